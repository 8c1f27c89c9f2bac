"""The service configuration: defaults, the pin table, and errors that name key and file."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from boardctl.config import (
    DEFAULT_PINS,
    Config,
    default_config_text,
    load_config,
    parse_config,
)
from boardctl.errors import ConfigError
from boardctl.service import paths


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return path


def test_missing_default_file_means_all_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardctl import config as module

    monkeypatch.setattr(module, "DEFAULT_CONFIG_PATH", tmp_path / "absent.toml")
    config = load_config()
    assert config.inputs.commit_idle == 1.5
    assert config.pins.tracks[0].plus1 == DEFAULT_PINS["track1"]["plus1"]
    assert "missing" in config.source


def test_explicit_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "nope.toml")


def test_empty_file_gives_every_default(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, ""))
    assert config.board == Config().board
    assert config.pins == Config().pins
    assert config.link.kind == "serial"


def test_the_commented_default_file_parses_back_to_the_defaults() -> None:
    parsed = parse_config(tomllib.loads(default_config_text()))
    assert parsed.board == Config().board
    assert parsed.inputs == Config().inputs
    assert parsed.pins == Config().pins


def test_values_are_read(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            '[inputs]\ncommit_idle = 2\n[game]\nvariant = "five-card"\n'
            "[pins]\nundo = false\n[pins.track2]\nplus5 = 16\n",
        )
    )
    assert config.inputs.commit_idle == 2.0 and isinstance(config.inputs.commit_idle, float)
    assert config.game.variant == "five-card"
    assert config.pins.undo is None
    assert config.pins.tracks[1].plus5 == 16
    assert config.pins.tracks[1].plus1 == DEFAULT_PINS["track2"]["plus1"]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[inputs]\ncomit_idle = 2\n", "unknown key 'inputs.comit_idle'"),
        ("[nonsense]\na = 1\n", "unknown section or key 'nonsense'"),
        ('[inputs]\ncommit_idle = "fast"\n', "inputs.commit_idle must be a number"),
        ("[link]\nbaudrate = 1.5\n", "link.baudrate must be an integer"),
        ("[link]\nbaudrate = true\n", "link.baudrate must be an integer"),
        ('[link]\nkind = "usb"\n', "link.kind must be one of"),
        ('[game]\nvariant = "seven-card"\n', "game.variant must be one of"),
        ("[board]\nbrightness = 300\n", "board.brightness must be between"),
        ("[pins]\nmenu = 40\n", "pins.menu must be a BCM GPIO number"),
        ('[pins]\nmenu = "GPIO6"\n', "pins.menu must be a BCM GPIO number"),
        ("[pins.track1]\nplus1 = 6\n", "pins.track1.plus1 uses GPIO 6, already used by pins.menu"),
        ("[pins.track1]\nplus10 = 4\n", "unknown key 'pins.track1.plus10'"),
        ("[pins.track4]\nplus1 = 4\n", "unknown key 'pins.track4'"),
        ("[pins.track1]\nencoder_b = false\n", "needs both encoder_a and encoder_b"),
        ("inputs = 3\n", "'inputs' must be a table"),
        ("[inputs]\nlong_press = 5.0\n", "very_long_press"),
        ("[inputs\n", "not valid TOML"),
    ],
)
def test_bad_files_name_the_key_and_the_file(tmp_path: Path, text: str, needle: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert needle in str(info.value)
    assert str(path) in str(info.value)


def test_default_pin_table_has_no_pin_twice_and_avoids_bus_pins() -> None:
    pins = [p for table in DEFAULT_PINS.values() for p in table.values() if p is not None]
    assert len(pins) == len(set(pins))
    from tools.hardware.pinout import KEPT_FREE, RESERVED

    assert not (set(RESERVED) | set(KEPT_FREE)) & set(pins)


def test_paths_follow_systemd_then_user_defaults(tmp_path: Path) -> None:
    config = Config()
    env = {"STATE_DIRECTORY": "/var/lib/boardctl", "RUNTIME_DIRECTORY": "/run/boardctl:/x"}
    assert paths.journal_path(config.service, env) == Path("/var/lib/boardctl/journal.sqlite")
    assert paths.socket_path(config.service, env) == Path("/run/boardctl/control.sock")
    user = {"HOME": "/home/ann", "XDG_RUNTIME_DIR": "/run/user/1000"}
    assert paths.journal_path(config.service, user) == Path(
        "/home/ann/.local/state/boardctl/journal.sqlite"
    )
    assert paths.socket_path(config.service, user) == Path("/run/user/1000/boardctl/control.sock")
    # no predictable shared /tmp path that another user could create first
    home = {"HOME": "/h"}
    assert paths.socket_path(config.service, home) == Path(
        "/h/.local/state/boardctl/run/control.sock"
    )
    custom = parse_config({"service": {"journal": str(tmp_path / "j.db")}})
    assert paths.journal_path(custom.service, env) == tmp_path / "j.db"


def test_link_options_leave_the_baud_rate_to_the_link_unless_configured() -> None:
    from boardctl.board.power import MA_PER_LED_WHITE
    from boardctl.config import link_options

    adalight = parse_config({"link": {"kind": "adalight"}}, "c.toml")
    assert link_options(adalight) == {"vid_pid": "2E8A:0005"}  # AdalightLink: 115,200
    uart = parse_config({"link": {"device": "/dev/serial0", "baudrate": 921600}}, "c.toml")
    assert link_options(uart) == {
        "path": "/dev/serial0",
        "baud": 921600,
        "budget_ma": 2000,
        "led_ma": round(MA_PER_LED_WHITE),  # the firmware's limiter counts as the host's
    }
    assert link_options(uart, "adalight", "/dev/ttyUSB0") == {
        "path": "/dev/ttyUSB0",
        "baud": 921600,
    }
    assert link_options(uart, "null") == {}
    # a network link takes the device as its address, and no serial option
    assert link_options(uart, "ddp", "wled.local") == {"path": "wled.local"}
    with pytest.raises(ConfigError, match=r"link\.baudrate must be 0 \(the link's default\)"):
        parse_config({"link": {"baudrate": 100}}, "c.toml")
