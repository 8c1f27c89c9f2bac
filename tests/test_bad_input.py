"""Bad input: configuration bounded before allocation, and no control characters in names.

Each used to be a MemoryError traceback (holes = 10**8, led_count = 10**9), a
failure deep in the protocol (led_count = 30000), "Is a directory"
(board.layout = ""), a message naming neither file nor key (game.preset =
"bogus"), or an escape sequence printed on other users' terminals.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from boardctl.board.layout import load_layout, parse_layout
from boardctl.cli import main
from boardctl.config import load_config
from boardctl.errors import ConfigError, LayoutError
from boardctl.link.protocol import MAX_LEDS
from boardctl.service import app
from boardctl.service.control import parse_request

LAYOUT = """
name = "big"
holes = {holes}
[strip]
led_count = {leds}
color_order = "GRB"
[[track]]
name = "Track 1"
start = 0
segments = [{{ from_hole = 1, to_hole = 3, first_led = 1 }}]
"""


@pytest.mark.parametrize(
    ("holes", "leds", "message"),
    [
        (10**8, 256, "holes must be at most 255 (each hole and the start hole needs an LED"),
        (121, 10**9, f"led_count must be at most {MAX_LEDS} (the most the link protocol"),
        (121, 30000, f"led_count must be at most {MAX_LEDS}"),
    ],
)
def test_layout_sizes_are_bounded_before_anything_is_allocated(
    holes: int, leds: int, message: str
) -> None:
    with pytest.raises(LayoutError, match=r"big\.toml: .*") as caught:
        parse_layout(LAYOUT.format(holes=holes, leds=leds), source="big.toml")
    assert message in str(caught.value)


def test_an_empty_layout_and_a_bogus_preset_name_the_file_and_the_key(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="the layout is empty"):
        load_layout("")
    config_file = tmp_path / "config.toml"
    config_file.write_text('[board]\nlayout = ""\n')
    with pytest.raises(ConfigError, match=rf"{config_file}: board.layout '': the layout is empty"):
        app.load_board_layout(load_config(config_file))
    config_file.write_text('[game]\npreset = "bogus"\n')
    config = load_config(config_file)
    with pytest.raises(ConfigError, match=rf"{config_file}: game.preset: unknown preset 'bogus'"):
        app.check_config_fits(config, app.load_board_layout(config))


def test_control_characters_are_stripped_from_names_at_the_edge(tmp_path: Path) -> None:
    request = parse_request(
        json.dumps({"op": "set", "key": "names", "value": ["Ann\x1b[2J", "B\x07ob\x9b"]})
    )
    assert request["value"] == ["Ann[2J", "Bob"]
    journal = tmp_path / "j.sqlite"
    where = ["--journal", str(journal), "--socket", str(tmp_path / "none.sock")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["new-game", "--mode", "free", *where]) == 0
        assert main(["set", "names", "Ann\x1b[2J,Bob\x1b]0;pwned\x07", *where]) == 0
        assert main(["status", *where]) == 0
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
    assert "Ann[2J" in out.getvalue()
