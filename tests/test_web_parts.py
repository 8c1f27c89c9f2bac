"""The phone page's parts without a browser: config, pairing, board plan, tools, size."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.board.layout import builtin_layout
from boardctl.errors import BoardError, CardError, ConfigError
from boardctl.web import tools
from boardctl.web.board_leds import board_plan, led_colours, plan_key
from boardctl.web.page_config import check_address, parse_web_config, with_overrides
from boardctl.web.pairing import CODE_TRIES, CODE_TRIES_TOTAL, Pairing, PairingError
from boardctl.web.server import ASSETS, allowed_hosts, asset_bytes

STATUS = {"target": 121, "tracks": [{"name": "Ann"}, {"name": "Bob"}]}


# --- configuration ----------------------------------------------------------------
def test_defaults_listen_on_loopback_only() -> None:
    config = parse_web_config({})
    assert config.listen == ("127.0.0.1",)
    assert config.port == 8121


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "8.8.8.8", "2001:4860::8888"])
def test_wildcard_and_public_addresses_are_refused_by_default(address: str) -> None:
    with pytest.raises(ConfigError, match=address.split(":")[0] or "::"):
        parse_web_config({"web": {"listen": [address]}})


@pytest.mark.parametrize("address", ["192.168.1.20", "10.0.0.5", "fe80::1", "127.0.0.1"])
def test_lan_addresses_are_accepted(address: str) -> None:
    assert parse_web_config({"web": {"listen": [address]}}).listen == (address,)


def test_public_needs_allow_public() -> None:
    config = parse_web_config({"web": {"listen": ["0.0.0.0"], "allow_public": True}})
    assert config.listen == ("0.0.0.0",)
    assert check_address("8.8.8.8", allow_public=True) == "8.8.8.8"


def test_unknown_keys_and_wrong_types_name_the_key() -> None:
    with pytest.raises(ConfigError, match=r"unknown key .web\.prot."):
        parse_web_config({"web": {"prot": 1}}, "web.toml")
    with pytest.raises(ConfigError, match=r"web\.port must be an integer"):
        parse_web_config({"web": {"port": "80"}}, "web.toml")
    with pytest.raises(ConfigError, match="not an IP address"):
        parse_web_config({"web": {"listen": ["board.local"]}})


def test_standings_times_may_be_empty_a_date_or_a_time_and_nothing_else() -> None:
    options = {"since": "", "playoffs_since": "2026-12-20T19:00", "best_of": 5}
    standings = parse_web_config({"standings": options}).standings
    assert (standings.since, standings.playoffs_since, standings.best_of) == (
        "",
        options["playoffs_since"],
        5,
    )
    assert parse_web_config({"standings": {"since": "2026-12-01"}}).standings.since == "2026-12-01"
    with pytest.raises(ConfigError, match=r"standings\.since must be a date or a time"):
        parse_web_config({"standings": {"since": "yesterday"}}, "web.toml")
    with pytest.raises(ConfigError, match=r"web\.results must be \"mqtt\" or \"\""):
        parse_web_config({"web": {"results": "journal"}}, "web.toml")


def test_command_line_overrides_are_checked_too() -> None:
    config = parse_web_config({})
    with pytest.raises(ConfigError, match="--listen"):
        with_overrides(config, listen=["0.0.0.0"])
    assert with_overrides(config, listen=["192.168.1.2"], port=9000).port == 9000


def test_allowed_hosts_are_the_addresses_and_names_with_the_port() -> None:
    config = parse_web_config({"web": {"listen": ["192.168.1.20", "fe80::1"], "port": 8121}})
    config = parse_web_config(
        {"web": {"listen": ["192.168.1.20", "fe80::1"], "hostnames": ["board.local"]}}
    )
    hosts = allowed_hosts(config)
    assert {"192.168.1.20:8121", "[fe80::1]:8121", "board.local:8121", "localhost:8121"} <= hosts
    assert "evil.example:8121" not in hosts


def test_state_dir_prefers_config_then_systemd_then_the_system_unit(tmp_path: Path) -> None:
    from boardctl.web.page_config import state_dir

    system = tmp_path / "var-lib-boardctl-web"
    plain = parse_web_config({})
    env = {"HOME": str(tmp_path / "home")}
    assert state_dir(plain, env, system=system) == tmp_path / "home/.local/state/boardctl-web"
    system.mkdir()
    assert state_dir(plain, env, system=system) == system
    assert state_dir(plain, {**env, "STATE_DIRECTORY": "/sd:/x"}, system=system) == Path("/sd")
    configured = parse_web_config({"web": {"state": str(tmp_path / "s")}})
    assert state_dir(configured, env, system=system) == tmp_path / "s"


# --- pairing ----------------------------------------------------------------------
def test_a_code_pairs_once_and_the_token_checks(tmp_path: Path) -> None:
    pairing = Pairing(tmp_path)
    code = pairing.new_code()
    assert len(code) == 6 and code.isdigit()
    ident, token = pairing.redeem(code, "phone")
    assert pairing.check(token)
    assert not pairing.check(token + "x")
    assert not pairing.check(None)
    with pytest.raises(PairingError, match="no pairing code is open"):
        pairing.redeem(code)
    assert [p["id"] for p in pairing.phones()] == [ident]
    stored = (tmp_path / "tokens.json").read_text()
    assert token not in stored and code not in (tmp_path / "tokens.json").read_text()
    assert (tmp_path / "tokens.json").stat().st_mode & 0o777 == 0o600


def test_wrong_codes_from_every_address_together_use_up_the_code(tmp_path: Path) -> None:
    pairing = Pairing(tmp_path)
    code = pairing.new_code()
    wrong = "000000" if code != "000000" else "111111"
    addresses = [f"192.168.1.{n}" for n in range(CODE_TRIES_TOTAL)]
    for address in addresses[:-1]:
        with pytest.raises(PairingError, match="wrong code"):
            pairing.redeem(wrong, address=address)
    with pytest.raises(PairingError, match="too many tries"):
        pairing.redeem(wrong, address=addresses[-1])
    with pytest.raises(PairingError, match="no pairing code"):
        pairing.redeem(code)  # the right code no longer works either


def test_wrong_codes_from_one_address_do_not_void_the_code_for_another(tmp_path: Path) -> None:
    pairing = Pairing(tmp_path)
    code = pairing.new_code()
    wrong = "000000" if code != "000000" else "111111"
    for left in range(CODE_TRIES - 1, -1, -1):
        with pytest.raises(PairingError, match=f"wrong code \\({left} tries left"):
            pairing.redeem(wrong, address="192.168.1.66")
    with pytest.raises(PairingError, match="too many wrong codes from this address"):
        pairing.redeem(code, address="192.168.1.66")  # not even checked from there now
    ident, token = pairing.redeem(code, "phone", address="192.168.1.20")
    assert pairing.check(token) and [p["id"] for p in pairing.phones()] == [ident]


@given(st.lists(st.sampled_from(["10.0.0.1", "10.0.0.2", "10.0.0.3", "fe80::1"]), max_size=40))
def test_no_address_guesses_more_than_its_share_and_no_more_than_the_total(
    guessers: list[str],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        pairing = Pairing(folder)
        code = pairing.new_code()
        wrong = "000000" if code != "000000" else "111111"
        checked: dict[str, int] = {}
        for address in guessers:
            try:
                pairing.redeem(wrong, address=address)
            except PairingError as exc:
                if str(exc).startswith("wrong code"):  # checked (and wrong)
                    checked[address] = checked.get(address, 0) + 1
        assert all(n <= CODE_TRIES for n in checked.values())
        assert sum(checked.values()) <= CODE_TRIES_TOTAL
        void = sum(checked.values()) == CODE_TRIES_TOTAL
        outcome = "no pairing code" if void else None
        if outcome:
            with pytest.raises(PairingError, match=outcome):
                pairing.redeem(code, address="10.0.0.9")
        else:
            assert pairing.check(pairing.redeem(code, address="10.0.0.9")[1])


def test_a_code_expires(tmp_path: Path) -> None:
    now = [1000.0]
    pairing = Pairing(tmp_path, clock=lambda: now[0])
    code = pairing.new_code(ttl=60)
    now[0] += 61
    with pytest.raises(PairingError, match="expired"):
        pairing.redeem(code)


def test_unpair_revokes_at_once_even_for_a_server_that_checked_before(tmp_path: Path) -> None:
    server_side = Pairing(tmp_path)
    cli_side = Pairing(tmp_path)
    _, first = server_side.redeem(cli_side.new_code())
    second_id, second = server_side.redeem(cli_side.new_code())
    assert server_side.check(first) and server_side.check(second)
    assert cli_side.revoke(second_id) == 1
    assert server_side.check(first) and not server_side.check(second)
    assert cli_side.revoke() == 1
    assert not server_side.check(first)
    with pytest.raises(PairingError, match="no paired phone with id"):
        cli_side.revoke("nope")


# --- the board plan ---------------------------------------------------------------
def test_the_plan_places_every_led_of_the_layout() -> None:
    layout = builtin_layout("two-121")
    plan = board_plan(layout, STATUS)
    leds = {led for led, _, _ in plan["leds"]}
    for track in layout.tracks[:2]:
        assert set(track.holes) <= leds
    assert plan["w"] > plan["h"] > 0
    texts = [text for _, _, text in plan["labels"]]
    assert "Ann" in texts and not any("game to" in t for t in texts)  # the page writes captions


def test_plan_key_changes_with_names_and_target_only() -> None:
    other = {**STATUS, "tracks": [{"name": "Ann", "front": 9}, {"name": "Bob"}]}
    assert plan_key(STATUS) == plan_key(other)
    assert plan_key(STATUS) != plan_key({**STATUS, "target": 61})


def test_led_colours_are_the_frame_lifted_and_dark_is_empty() -> None:
    colours = led_colours("000000ffffff100000", 4)
    assert colours[0] == "" and colours[3] == ""
    assert colours[1] == "#ffffff"  # full white stays full white
    assert colours[2].startswith("#") and int(colours[2][1:3], 16) > 0x10  # faint is lifted


# --- card tools -----------------------------------------------------------------------
def test_score_counts_and_says_the_hand() -> None:
    result = tools.score("5H 5C 5S JD 5D")
    assert result["total"] == 29
    assert result["said"].endswith("twenty-nine")
    with pytest.raises(CardError):
        tools.score("5H 5C")


def test_advise_ranks_the_discards() -> None:
    options = tools.advise("5H JH 6C 7D KS 2C", dealer=True)
    assert len(options) == 15
    assert options[0]["net"] >= options[-1]["net"]
    with pytest.raises(BoardError):
        tools.advise("5H 5H 6C 7D KS 2C", dealer=True)


def test_history_rows_itemise_a_hand_when_its_cards_are_known() -> None:
    history = [
        {"seq": 1, "time": "2026-01-01 10:00:00", "text": "new game", "event": {}, "scores": [0]},
        {
            "seq": 2,
            "time": "2026-01-01 10:01:00",
            "text": "Ann +12 (hand)",
            "event": {"op": "peg", "kind": "hand", "cards": ["5H", "5C", "JD", "6S", "4D"]},
            "scores": [12],
        },
    ]
    rows = tools.history_rows(history)
    assert [r["seq"] for r in rows] == [2, 1]
    assert rows[0]["count"]["total"] == tools.score("5H 5C JD 6S 4D")["total"]
    assert "count" not in rows[1]


def test_choices_come_from_the_engine_tables() -> None:
    from boardctl.cribbage.variants import VARIANTS
    from boardctl.game.setup import PRESETS

    choices = tools.choices()
    assert choices["variants"] == list(VARIANTS)
    assert choices["presets"] == list(PRESETS)
    assert "guided" in choices["modes"]


# --- small and offline ------------------------------------------------------------------
def test_page_and_assets_fit_in_100_kb() -> None:
    files = asset_bytes()
    total = sum(len(body) for body in files.values())
    assert total <= 100 * 1024, f"page and assets are {total} bytes"
    assert set(files) == {name for name, _ in ASSETS.values()}


def test_the_page_loads_nothing_from_outside() -> None:
    for name, body in asset_bytes().items():
        text = body.decode()
        assert "http://" not in text.replace("http://www.w3.org", ""), name
        assert "https://" not in text, name
        assert "@import" not in text and "url(" not in text, name


def test_the_manifest_makes_it_installable() -> None:
    manifest = json.loads(asset_bytes()["manifest.webmanifest"])
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/"
    assert manifest["icons"]


# --- lean imports -----------------------------------------------------------------
LEAN_CHECK = """
import sys
from boardctl.web.lean import prepare
prepare()
import aiohttp.connector, asyncio.sslproto, frozenlist
print(aiohttp.connector.ssl is None, asyncio.sslproto.ssl is None, "ssl" in sys.modules)
print(frozenlist.FrozenList.__module__, any("stdc++" in line for line in open("/proc/self/maps")))
import ssl  # the results' MQTT client may still use TLS
print(ssl.create_default_context().protocol.name)
"""


def test_the_server_libraries_load_without_tls_contexts_or_cpp() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", LEAN_CHECK], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0] == "True True False"  # no TLS contexts built, ssl not loaded
    assert out[1] == "frozenlist False"  # the pure-Python frozenlist, no libstdc++ mapped
    assert out[2] == "PROTOCOL_TLS_CLIENT"  # ssl importable again afterwards


def test_lean_imports_leave_already_imported_modules_alone() -> None:
    import sys

    from boardctl.web.lean import prepare

    ssl_before = sys.modules.get("ssl")
    prepare()
    assert sys.modules.get("ssl") is ssl_before


def test_the_gate_caps_each_address_and_logs_one_line_per_episode_of_no_descriptors(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import errno
    import logging

    from boardctl.web.gate import Gate

    now = [0.0]
    gate = Gate(per_address=3, header_timeout=10, clock=lambda: now[0])
    assert [gate.admit("10.0.0.2") for _ in range(5)] == [True, True, True, False, False]
    assert gate.admit("10.0.0.3")  # another address is not held by the first one's cap
    gate.release("10.0.0.2")
    assert gate.admit("10.0.0.2") and not gate.admit("10.0.0.2")
    out = {"message": "socket.accept() out of system resource"}
    out["exception"] = OSError(errno.EMFILE, "Too many open files")  # type: ignore[assignment]
    with caplog.at_level(logging.WARNING, logger="boardctl.web.gate"):
        for step in (0, 1, 1, 1, 15, 1):  # retried each second; 15 s < quiet (21 s): one episode
            now[0] += step
            assert gate.out_of_descriptors(out)
        now[0] += gate.quiet + 0.1
        assert gate.out_of_descriptors(out)  # a new episode
        assert not gate.out_of_descriptors({"message": "other", "exception": ValueError()})
    lines = [r.getMessage() for r in caplog.records]
    assert sum("holds 3 connections" in line for line in lines) == 1
    assert sum("out of file descriptors" in line for line in lines) == 2, lines
