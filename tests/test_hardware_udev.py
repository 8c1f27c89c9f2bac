"""The udev rule in hardware/ gives the Pico a stable name with dialout permissions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

RULE_FILE = Path(__file__).resolve().parent.parent / "hardware" / "99-boardctl.rules"

# One udev rule token: KEY or KEY{attr}, an operator, a double-quoted value.
TOKEN = re.compile(
    r'^(?P<key>[A-Z_]+)(?:\{(?P<attr>[^}]+)\})?(?P<op>==|!=|\+=|-=|:=|=)"(?P<value>[^"]*)"$'
)
MATCH_KEYS = {"SUBSYSTEM", "SUBSYSTEMS", "KERNEL", "KERNELS", "ATTR", "ATTRS", "ACTION", "DRIVERS"}
ASSIGN_KEYS = {"SYMLINK", "GROUP", "MODE", "OWNER", "ENV", "TAG"}


def parse_rules(text: str) -> list[list[tuple[str, str | None, str, str]]]:
    """Split a rules file into rules, each a list of (key, attr, op, value)."""
    rules = []
    logical = text.replace("\\\n", "")
    for number, line in enumerate(logical.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        tokens = []
        for raw in re.split(r",\s*", line):
            m = TOKEN.match(raw.strip())
            if m is None:
                raise ValueError(f'line {number}: {raw!r} is not a udev KEY=="value" token')
            tokens.append((m["key"], m["attr"], m["op"], m["value"]))
        rules.append(tokens)
    return rules


def test_parser_rejects_malformed_tokens() -> None:
    with pytest.raises(ValueError, match="not a udev"):
        parse_rules('SUBSYSTEM=="tty", MODE=0660\n')
    with pytest.raises(ValueError, match="not a udev"):
        parse_rules('SUBSYSTEM=="tty" ATTRS{idVendor}=="2e8a"\n')


@pytest.fixture(scope="module")
def rule() -> dict[str, tuple[str, str]]:
    rules = parse_rules(RULE_FILE.read_text(encoding="utf-8"))
    assert len(rules) == 1, "the file holds exactly one rule"
    found: dict[str, tuple[str, str]] = {}
    for key, attr, op, value in rules[0]:
        name = f"{key}{{{attr}}}" if attr else key
        assert name not in found, f"{name} appears twice"
        found[name] = (op, value)
    return found


def test_every_key_uses_the_right_operator(rule: dict[str, tuple[str, str]]) -> None:
    for name, (op, _value) in rule.items():
        key = name.split("{")[0]
        if key in MATCH_KEYS:
            assert op == "==", f"{name} is a match key and needs =="
        else:
            assert key in ASSIGN_KEYS, f"unexpected key {name}"
            assert op in {"=", "+="}, f"{name} is an assignment and needs = or +="


def test_matches_the_micropython_pico_by_usb_id(rule: dict[str, tuple[str, str]]) -> None:
    assert rule["SUBSYSTEM"] == ("==", "tty")
    # sysfs spells USB ids in lower-case hex; "2E8A" would never match.
    assert rule["ATTRS{idVendor}"] == ("==", "2e8a")
    assert rule["ATTRS{idProduct}"] == ("==", "0005")


def test_gives_a_stable_name_and_dialout_access(rule: dict[str, tuple[str, str]]) -> None:
    assert rule["SYMLINK"] == ("+=", "boardctl-leds")
    assert rule["GROUP"] == ("=", "dialout")
    op, mode = rule["MODE"]
    assert op == "="
    assert int(mode, 8) == 0o660
    assert rule["ENV{ID_MM_DEVICE_IGNORE}"] == ("=", "1")


def test_file_name_sorts_after_the_system_rules() -> None:
    # 60-serial.rules and 50-udev-default.rules set the tty defaults first.
    assert RULE_FILE.name.endswith(".rules")
    assert int(RULE_FILE.name.split("-")[0]) > 60


def test_rule_matches_the_usb_id_the_link_looks_for(rule: dict[str, tuple[str, str]]) -> None:
    from boardctl.link.serial_link import PICO_MICROPYTHON

    vid, pid = PICO_MICROPYTHON.lower().split(":")
    assert (rule["ATTRS{idVendor}"][1], rule["ATTRS{idProduct}"][1]) == (vid, pid)
