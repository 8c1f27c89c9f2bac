"""The CLI's edges, as a user meets them: ``boardctl`` processes against a running service.

The service is ``boardctl run`` on mock pins in its own process (as systemd runs it, see
``tests/test_e2e_process.py``), with a buzzer wired so that the sound's settings are live;
every verb is a ``boardctl`` process of its own, and the socket requests that the CLI cannot
spell are real socket clients. Bad input gets a clear error, a non-zero exit and changes
nothing: the service's status (its journal's sequence number with it) is the same after.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from boardctl.errors import ControlError
from boardctl.service import client
from boardctl.service.control import MAX_CLIENTS, MAX_WATCHERS
from boardctl.service.settings import BOARD_SETTINGS, setting_keys
from tests.test_e2e_process import Service

REPO = Path(__file__).resolve().parent.parent
CONFIG = '[link]\nkind = "null"\n[game]\nmode = "free"\n[sound]\nbuzzer = 18\n'


@pytest.fixture
def board(tmp_path: Path) -> Iterator[Service]:
    service = Service(tmp_path)
    service.config.write_text(CONFIG)
    try:
        service.start()
        yield service
    finally:
        service.close()


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "GPIOZERO_PIN_FACTORY": "mock"}


def boardctl(board: Service, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``boardctl ARGS --socket`` the board's, as a process of its own."""
    command = [sys.executable, "-m", "boardctl", *args, "--socket", str(board.socket)]
    return subprocess.run(command, env=env(), capture_output=True, text=True, timeout=timeout)


def refused(done: subprocess.CompletedProcess[str], needle: str) -> None:
    """A clear refusal: exit 1, the message, no traceback and no internal error."""
    assert done.returncode == 1, done
    assert needle in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


def wait_for(condition: Callable[[], bool], seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def raw(board: Service, line: bytes) -> dict[str, Any]:
    """One request line as any socket client may send it; the reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(board.socket))
        sock.sendall(line + b"\n")
        reply = sock.makefile("rb").readline()
    answer: dict[str, Any] = json.loads(reply)
    return answer


# --- issue 26.1: set volume / set mute --------------------------------------------------------


def test_set_volume_and_mute_reach_the_running_boards_sound(board: Service) -> None:
    done = boardctl(board, "set", "volume", "0.4")
    assert done.returncode == 0, done.stderr
    assert "volume 0.4" in done.stdout
    muted = boardctl(board, "set", "mute", "true")
    assert muted.returncode == 0 and muted.stdout.strip() == "mute true"  # as typed, not "True"
    status = board.ask("status")
    assert status["volume"] == 0.4 and status["mute"] is True
    refused(boardctl(board, "set", "volume", "40"), "volume must be a number 0-1")
    refused(boardctl(board, "set", "mute", "maybe"), "mute must be true or false")
    assert board.ask("status") == status
    assert boardctl(board, "set", "mute", "off").returncode == 0
    assert board.ask("status")["mute"] is False


def test_the_sound_commands_the_docs_show_run_as_written(board: Service) -> None:
    texts = [(REPO / name).read_text(encoding="utf-8") for name in ("README.md", "docs/sound.md")]
    commands = sorted(
        {c for text in texts for c in re.findall(r"set (?:volume|mute) [^\s`]+", text)}
    )
    assert "set volume 0.5" in commands and "set mute true" in commands
    for command in commands:
        words = command.strip("`").split()
        done = boardctl(board, *words)
        assert done.returncode == 0, (command, done.stderr)
        assert board.ask("status")[words[1]] == {"0.5": 0.5, "true": True}[words[2]]


SAMPLES = {  # a value each setting takes, as typed after `boardctl set KEY`
    "mode": "free",
    "muggins": "false",
    "preset": "casual",
    "points": '{"win": 1, "skunk": 2}',
    "match": "3",
    "target": "61",
    "roster": "Ann,Bob,Cy",
    "names": "Ann,Bob",
    "confirm_result": "true",
    "house_rules": "none",
    "brightness": "60",
    "volume": "0.5",
    "mute": "true",
}


def test_every_setting_the_help_and_the_docs_list_is_accepted_end_to_end(
    board: Service,
) -> None:
    keys = setting_keys()  # the engine's table of setters, then the board's own
    assert set(SAMPLES) == set(keys), "give every setting a sample value here"
    assert set(BOARD_SETTINGS) == {"brightness", "volume", "mute"}
    shown = boardctl(board, "set", "--help")
    assert shown.returncode == 0
    help_text = " ".join(shown.stdout.split())
    service_doc = (REPO / "docs" / "service.md").read_text(encoding="utf-8")
    (set_row,) = [line for line in service_doc.splitlines() if "| `boardctl set KEY" in line]
    protocol = (REPO / "docs" / "control-protocol.md").read_text(encoding="utf-8")
    (protocol_row,) = [line for line in protocol.splitlines() if '"op": "set"' in line]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (readme_row,) = [line for line in readme.splitlines() if "| `boardctl set KEY" in line]
    for key in keys:
        assert re.search(rf"\b{key}\b", help_text), key
        spelled = (key, key.replace("_", "-"))
        assert any(f"`{s}`" in set_row for s in spelled), f"docs/service.md lacks {key}"
        assert f"`{key}`" in protocol_row, f"docs/control-protocol.md lacks {key}"
        assert any(re.search(rf"\b{s}\b", readme_row) for s in spelled), f"README lacks {key}"
    for key in keys:
        done = boardctl(board, "set", key, SAMPLES[key])
        assert done.returncode == 0, (key, done.stderr)
    status = board.ask("status")
    assert (status["target"], status["match_target"], status["muggins"]) == (61, 3, False)
    assert status["preset"] == "custom" and status["preset_points"]["skunk"] == 2  # points
    assert [t["name"] for t in status["tracks"]] == ["Ann", "Bob"]
    assert (status["brightness"], status["volume"], status["mute"]) == (60, 0.5, True)
    refused(boardctl(board, "set", "colour", "red"), "unknown setting 'colour'")
    assert board.ask("status") == status


def test_set_brightness_with_an_unknown_field_is_refused_and_changes_nothing(
    board: Service,
) -> None:
    before = board.ask("status")
    reply = raw(board, b'{"op": "set", "key": "brightness", "value": 9, "level": 200}')
    assert reply == {
        "ok": False,
        "error": "set: unknown field 'level' for set (fields: key, value)",
    }
    reply = raw(board, b'{"op": "set", "key": "volume", "value": 0.2, "loud": true}')
    assert not reply["ok"] and "unknown field 'loud'" in reply["error"]
    assert board.ask("status") == before
    assert before["brightness"] != 9 and "volume" not in before


# --- issue 25.7: watchers do not lock out entries ---------------------------------------------


def test_twenty_watch_processes_leave_room_for_a_peg_which_each_of_them_sees(
    board: Service,
) -> None:
    command = [sys.executable, "-m", "boardctl", "watch", "--timeout", "120"]
    command += ["--socket", str(board.socket)]
    watchers = [
        subprocess.Popen(command, env=env(), stdout=subprocess.PIPE, text=True)
        for _ in range(MAX_CLIENTS + 4)
    ]
    try:
        for watcher in watchers:  # each has its snapshot: it holds its connection
            assert watcher.stdout is not None
            assert "status" in json.loads(watcher.stdout.readline())
        done = boardctl(board, "peg", "1", "3")
        assert done.returncode == 0, done.stderr
        assert "too many clients" not in done.stderr
        assert board.ask("status")["tracks"][0]["front"] == 3
        for watcher in watchers:
            assert watcher.stdout is not None
            while "event" not in (message := json.loads(watcher.stdout.readline())):
                pass
            assert message["event"]["points"] == 3
    finally:
        for watcher in watchers:
            watcher.kill()
            watcher.wait(10)
            if watcher.stdout is not None:
                watcher.stdout.close()


def watch_socket(board: Service) -> tuple[socket.socket, dict[str, Any]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(str(board.socket))
    sock.sendall(b'{"op": "watch"}\n')
    reply: dict[str, Any] = json.loads(sock.makefile("rb").readline())
    return sock, reply


def test_watchers_have_a_cap_of_their_own_and_commands_still_get_through(
    board: Service,
) -> None:
    held = []
    try:
        for _ in range(MAX_WATCHERS):
            sock, reply = watch_socket(board)
            held.append(sock)
            assert reply["ok"], reply
        sock, reply = watch_socket(board)
        assert reply == {
            "ok": False,
            "error": f"watch: too many watchers ({MAX_WATCHERS}); try again later",
        }
        assert sock.recv(1) == b""  # and closed: it takes no command client's place
        sock.close()
        refused(boardctl(board, "watch", "--count", "1"), "too many watchers")
        for _ in range(MAX_CLIENTS - 1):  # command clients fill their own places, less one
            idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            idle.connect(str(board.socket))
            held.append(idle)
        done = boardctl(board, "peg", "2", "4")
        assert done.returncode == 0, done.stderr
        assert board.ask("status")["tracks"][1]["front"] == 4
        held.pop(0).close()  # a watcher leaves: its place is free again

        def watches() -> bool:
            try:
                stream = client.watch(board.socket, timeout=10)
                next(stream)
                stream.close()
                return True
            except ControlError:
                return False

        wait_for(watches)
    finally:
        for sock in held:
            sock.close()


# --- issue 25.9: bad input gets a clear error and changes nothing ------------------------------


def test_a_lone_surrogate_in_names_roster_or_request_id_is_refused_and_changes_nothing(
    board: Service,
) -> None:
    before, history = board.ask("status"), board.ask("history")
    # a name in bytes that are not UTF-8, typed in a terminal: argv holds a lone surrogate
    refused(boardctl(board, "set", "names", "Ann\udcff,Bob"), "is not Unicode text")
    refused(boardctl(board, "set", "roster", "\udcc3,Bob"), "is not Unicode text")
    refused(boardctl(board, "new-game", "--names", "\udce9,Bob"), "is not Unicode text")
    for line in (
        rb'{"op": "set", "key": "names", "value": ["\ud800", "Bob"]}',
        rb'{"op": "set", "key": "roster", "value": ["Ann", "\udfff"]}',
        rb'{"op": "new_game", "roster": ["\ud800"]}',
        rb'{"op": "peg", "track": 0, "points": 2, "request_id": "\ud800"}',
        rb'{"op": "set", "key": "points", "value": {"\ud800": 1}}',
    ):
        reply = raw(board, line)
        assert not reply["ok"] and "is not Unicode text" in reply["error"], reply
        assert "internal error" not in reply["error"]
    assert board.ask("status") == before
    assert board.ask("history") == history and [r["op"] for r in history] == ["new_game"]


def test_a_lone_surrogate_is_refused_with_the_service_down_too(board: Service) -> None:
    board.kill(signal.SIGTERM)
    journal = ["--journal", str(board.journal)]
    history = boardctl(board, "history", "--json", *journal)
    assert history.returncode == 0
    refused(boardctl(board, "set", "names", "Ann\udcff,Bob", *journal), "is not Unicode text")
    refused(boardctl(board, "set", "roster", "Ann,\udcff", *journal), "is not Unicode text")
    assert boardctl(board, "history", "--json", *journal).stdout == history.stdout


def test_a_config_nested_too_deeply_is_refused_by_run_and_status(tmp_path: Path) -> None:
    for name, text in (
        ("arrays.toml", "a = " + "[" * 5000 + "]" * 5000),
        ("tables.toml", "a = " + "{b = " * 5000 + "1" + "}" * 5000),
    ):
        config = tmp_path / name
        config.write_text(text + "\n")
        journal = tmp_path / "journal.sqlite"
        for verb in (["run", "--display", "none", "--journal", str(journal)], ["status"]):
            command = [sys.executable, "-m", "boardctl", *verb, "--config", str(config)]
            done = subprocess.run(command, env=env(), capture_output=True, text=True, timeout=60)
            refused(done, f"{config}: not a configuration (its values are nested too deeply)")
        assert not journal.exists()


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf"])
def test_watch_refuses_a_timeout_that_is_not_a_number_of_seconds(
    board: Service, value: str
) -> None:
    refused(boardctl(board, "watch", "--timeout", value), "--timeout must be a number of seconds")


def test_watch_refuses_a_negative_count(board: Service) -> None:
    refused(boardctl(board, "watch", "--count", "-1"), "--count must be 0 (never stop) or more")


def test_an_unanswered_entry_is_asked_three_times_and_counted_once(board: Service) -> None:
    assert board.proc is not None
    board.proc.send_signal(signal.SIGSTOP)  # a stalled service: connections wait, unanswered
    try:
        done = boardctl(board, "peg", "1", "6", timeout=120)
    finally:
        board.proc.send_signal(signal.SIGCONT)
    refused(done, "the entry may have been recorded")
    asked = re.findall(r"asking again \((\d) of (\d)\)", done.stderr)
    assert asked == [("2", "3"), ("3", "3")]
    # the three copies carried one request id: the service, resumed, applies one of them
    wait_for(lambda: board.ask("status")["seq"] > 1)
    assert [r["event"]["points"] for r in board.ask("history") if r["op"] == "peg"] == [6]
    assert board.ask("status")["tracks"][0]["front"] == 6


# --- issue 26.6: a roster and a new game with other seating ------------------------------------


def names(board: Service) -> list[str]:
    return [t["name"] for t in board.ask("status")["tracks"]]


def test_a_partnership_game_then_singles_takes_the_names_afresh(board: Service) -> None:
    def ok(*args: str) -> None:
        done = boardctl(board, *args)
        assert done.returncode == 0, (args, done.stderr)

    ok("set", "roster", "Alice,Bob,Carol,Dave")
    ok("new-game", "--variant", "four-player", "--names", "Alice,Bob,Carol,Dave")
    assert names(board) == ["Alice & Carol", "Bob & Dave"]
    ok("peg", "1", "9")
    ok("new-game", "--variant", "six-card")  # two players on two tracks: no team names
    assert names(board) == ["Track 1", "Track 2"]
    ok("new-game", "--names", "alice,carol")  # written as the roster spells them
    assert names(board) == ["Alice", "Carol"]
    ok("new-game")  # seated alike: the names stay
    assert names(board) == ["Alice", "Carol"]
    ok("new-game", "--players", "4")
    assert names(board) == ["Track 1", "Track 2"]
    before = board.ask("status")
    refused(boardctl(board, "new-game", "--names", "Alice,Zed"), "'Zed' is not on the roster")
    assert board.ask("status") == before


# --- issue 26.8: fault-sign says whether the LEDs got the sign --------------------------------


@pytest.fixture
def controller() -> Iterator[Any]:
    """The LED controller's firmware behind a pty (``firmware/emulator.py``)."""
    sys.path.insert(0, str(REPO / "firmware"))
    try:
        from emulator import PtyDevice

        with PtyDevice(led_count=256) as device:
            yield device
    finally:
        sys.path.remove(str(REPO / "firmware"))


def fault_sign(tmp_path: Path, link: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "fault.toml"
    config.write_text(f"[link]\n{link}\n")
    command = [sys.executable, "-m", "boardctl", "fault-sign", "--config", str(config)]
    return subprocess.run(command, env=env(), capture_output=True, text=True, timeout=60)


def test_fault_sign_shows_the_sign_on_the_controller_and_says_so(
    tmp_path: Path, controller: Any
) -> None:
    from boardctl.board import builtin_layout
    from boardctl.service.fault_sign import fault_frame

    done = fault_sign(tmp_path, f'kind = "serial"\ndevice = "{controller.path}"')
    assert done.returncode == 0, done.stderr
    assert "fault sign shown on the LEDs (serial link, layout two-121)" in done.stdout
    frame = fault_frame(builtin_layout("two-121"))
    assert controller.wait_for(frame + bytes(3 * 256 - len(frame)), timeout=10)


def test_fault_sign_without_a_controller_says_it_failed_and_exits_1(tmp_path: Path) -> None:
    done = fault_sign(tmp_path, f'kind = "serial"\ndevice = "{tmp_path / "no-such-tty"}"')
    refused(done, "fault sign not shown: the LED link (serial) did not connect within 5 s")
    assert "shown on the LEDs" not in done.stdout + done.stderr
    refused(fault_sign(tmp_path, 'kind = "null"'), "fault sign not shown: link.kind is null")


# --- issue 26.8: selftest on a machine without GPIO claims no keyboard ------------------------


def test_selftest_without_gpio_says_the_inputs_are_not_tested_and_reads_no_keys(
    tmp_path: Path,
) -> None:
    assert not list(Path("/dev").glob("gpiochip*")), "this test needs a machine without GPIO"
    config = tmp_path / "null.toml"
    config.write_text('[link]\nkind = "null"\n')
    plain = {k: v for k, v in env().items() if k != "GPIOZERO_PIN_FACTORY"}  # the fallback
    command = [sys.executable, "-m", "boardctl", "selftest", "--config", str(config)]
    command += ["--delay", "0", "--hold", "0"]  # the default --wait (60 s) would show a wait
    done = subprocess.run(
        command, env=plain, input="uuu\n", capture_output=True, text=True, timeout=45
    )
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "inputs not tested" in said and "using mock pins" in said
    assert "keyboard" not in said and "press every button" not in said
    assert "LED  255  (256/256)" in done.stdout  # the LEDs were tested
    only = subprocess.run(
        [*command, "--only-inputs"], env=plain, capture_output=True, text=True, timeout=45
    )
    refused(only, "no GPIO on this machine: there are no inputs to test")
