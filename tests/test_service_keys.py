"""The virtual board: keyboard keys, the terminal drawing, --print-config."""

from __future__ import annotations

import io
import logging
import os
import re
import selectors
import tomllib

import pytest

from boardctl.board import Renderer, builtin_layout
from boardctl.cli import main
from boardctl.config import Config, parse_config
from boardctl.inputs.events import InputEvent, Tap, Turn
from boardctl.inputs.keys import HELP, KEYMAP, Keyboard, events_for
from boardctl.service.app import terminal_display
from boardctl.view import BoardView, TrackView

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_keys_map_to_button_gestures() -> None:
    assert events_for("1qa") == [
        Tap("track1.plus1"),
        Tap("track1.plus5"),
        Tap("track1.encoder_push"),
    ]
    assert events_for("3x") == [Tap("track3.plus1"), Turn(1, -1)]
    assert events_for("uUm MN") == [
        Tap("undo"),
        Tap("undo", 1),
        Tap("menu"),
        Tap("menu"),
        Tap("menu", 1),
        Tap("menu", 2),
    ]
    assert events_for("?!\x1b[A") == []  # unknown keys do nothing
    for key in KEYMAP:
        assert key == " " or key in HELP  # the help line lists every key


def test_keyboard_reads_keys_from_its_fd_and_stops_at_end_of_input() -> None:
    read, write = os.pipe()
    selector = selectors.DefaultSelector()
    posted: list[InputEvent] = []
    keyboard = Keyboard(selector, posted.append, fd=read)
    os.write(write, b"2w")
    for key, mask in selector.select(1):
        key.data(mask)
    assert posted == [Tap("track2.plus1"), Tap("track2.plus5")]
    os.close(write)
    for key, mask in selector.select(1):
        key.data(mask)
    assert read not in selector.get_map()
    keyboard.close()
    os.close(read)
    selector.close()


def test_terminal_display_draws_the_board_and_shows_log_lines_under_it() -> None:
    layout = builtin_layout("two-61")
    out = io.StringIO()
    display, restore = terminal_display(layout, out)
    try:
        logging.getLogger("boardctl.test").warning("entry refused: 19 is not a possible count")
        view = BoardView(61, (TrackView("Ann", 7, 2), TrackView("Bo", 0, 0)))
        display(view, Renderer(layout).render(view, 0.0))
    finally:
        restore()
    text = out.getvalue()
    assert text.startswith("\x1b[H\x1b[J")
    assert "Ann" in text and "Bo" in text
    assert HELP in text
    assert text.rstrip().endswith("entry refused: 19 is not a possible count")


@pytest.mark.parametrize("layout_name", ["two-121", "three-121", "two-61"])
def test_terminal_display_fits_an_80x24_terminal(
    monkeypatch: pytest.MonkeyPatch, layout_name: str
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    layout = builtin_layout(layout_name)
    tracks = (TrackView("Ann", 47, 40, pending=12), TrackView("Bo", 3, 0), TrackView("Cy", 9, 4))
    out = io.StringIO()
    display, restore = terminal_display(layout, out)
    try:
        for n in range(4):  # more than are kept, one of them very long
            logging.getLogger("boardctl.test").warning("line %d %s", n, "waiting: " * 30)
        view = BoardView(
            layout.hole_count,
            tracks[: len(layout.tracks)],
            phase="show",
            dealer=0,
            to_count=0,
        )
        display(view, Renderer(layout).render(view, 0.0))
    finally:
        restore()
    lines = out.getvalue().removeprefix("\x1b[H\x1b[J").split("\n")
    assert lines[-1] == ""  # ends with a newline
    lines = [ANSI.sub("", line) for line in lines[:-1]]
    assert len(lines) <= 23, lines  # the cursor ends on the last row, nothing scrolls
    assert max(len(line) for line in lines) <= 80, lines
    assert "keys:" in "".join(lines)
    if len(layout.tracks) == 2:  # room left for log lines: the latest ones, clipped
        assert lines[-1].startswith("line 3 waiting:") and lines[-1].endswith("…")


def test_print_config_prints_every_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--print-config"]) == 0
    parsed = parse_config(tomllib.loads(capsys.readouterr().out))
    defaults = Config()
    assert (parsed.board, parsed.link, parsed.game, parsed.inputs, parsed.pins) == (
        defaults.board,
        defaults.link,
        defaults.game,
        defaults.inputs,
        defaults.pins,
    )
