"""Where the demo is shown: pacing, the virtual board in a terminal, plain text, the LEDs."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

from boardctl.board.frame import pixel
from boardctl.board.terminal import printable
from boardctl.cli import build_parser
from boardctl.demo.display import (
    BEAT,
    Board,
    LedTable,
    Pacer,
    TerminalTable,
    TextTable,
    layout_for,
    wrap,
)
from boardctl.demo.game import DemoGame
from boardctl.demo.runner import run_demo
from boardctl.errors import BoardError
from boardctl.link import RecordingLink

ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal."""

    encoding = "utf-8"

    def isatty(self) -> bool:
        return True


def test_pacer_scales_beats_and_speed_zero_never_sleeps() -> None:
    slept: list[float] = []
    Pacer(0, sleep=slept.append).pause(3)
    assert slept == []
    Pacer(2, sleep=slept.append).pause(3)
    Pacer(0.5, sleep=slept.append).pause(1)
    assert slept == [pytest.approx(3 * BEAT / 2), pytest.approx(2 * BEAT)]
    with pytest.raises(BoardError, match="speed"):
        Pacer(-1)


def test_default_pace_finishes_a_game_in_about_a_minute() -> None:
    for seed in range(3):
        slept: list[float] = []
        table = TextTable(io.StringIO(), Pacer(1, sleep=slept.append))
        DemoGame(seed=seed, table=table).play()
        assert 20 < sum(slept) < 100


def test_clip_counts_visible_characters_only() -> None:
    from boardctl.board.terminal import clip

    assert clip("abcdef", 4, "") == "abcd"
    assert clip("abc", 10) == "abc"
    coloured = "\x1b[31mab\x1b[0mcdef"
    cut = clip(coloured, 3, "")
    assert ESCAPE.sub("", cut) == "abc"
    assert cut.endswith("\x1b[0m")


def test_wrap_keeps_every_word_within_the_width() -> None:
    line = "Bob: 7♥ 8♦ 8♣ 9♠: fifteen two, fifteen four, fifteen six, a pair is eight, and more"
    rows = wrap(line, 40)
    assert len(rows) > 1
    assert all(len(row) < 40 for row in rows)
    assert " ".join(row.strip() for row in rows) == line


def test_a_terminal_without_unicode_gets_plain_symbols() -> None:
    assert printable("A ·●· → x", "ascii") == "A .o. -> x"
    assert printable("10♦", "ascii") == "10?"
    assert printable("10♦ ·", "utf-8") == "10♦ ·"
    assert printable("·", "no-such-codec") == "?"

    class AsciiTerminal(FakeTerminal):
        encoding = "ascii"

    stream = AsciiTerminal()
    args = build_parser().parse_args(["demo", "--seed", "4", "--speed", "0"])
    assert run_demo(args, stream=stream) == 0
    text = stream.getvalue()
    text.encode("ascii")  # nothing an ASCII terminal cannot print
    assert "[Alice +" in text or "[Bob +" in text
    assert "->" in text


def test_layout_for_each_board() -> None:
    assert layout_for(2, 121) == "two-121"
    assert layout_for(2, 61) == "two-61"
    assert layout_for(3, 121) == "three-121"
    with pytest.raises(BoardError, match="--display none"):
        layout_for(5, 121)


@pytest.mark.parametrize(
    ("columns", "rows", "variant"),
    [(80, 24, "six-card"), (120, 40, "six-card"), (80, 24, "three-player")],
)
def test_terminal_screen_fits_and_shows_the_board_and_the_latest_lines(
    columns: int, rows: int, variant: str
) -> None:
    stream = FakeTerminal()
    board = Board("three-121" if variant == "three-player" else "two-121")
    table = TerminalTable(stream, Pacer(0), board, color="256")
    game = DemoGame(seed=9, variant=variant, table=table)
    game.play()
    screen = table.screen(columns, rows)
    assert len(screen) <= rows - 1  # a newline follows each row: one more would scroll
    assert all(len(ESCAPE.sub("", row)) <= columns for row in screen)
    text = "\n".join(ESCAPE.sub("", row) for row in screen)
    assert "skunk line (91)" in text
    assert game.result.lines[-1] in text  # the winner line is on screen
    out = stream.getvalue()
    assert out.startswith("\x1b[H\x1b[2J")
    assert out.count("\x1b[H") > 100  # redrawn after every entry and line
    assert "\x1b[38;5;" in out  # in colour


def test_terminal_display_is_used_only_on_a_terminal() -> None:
    args = build_parser().parse_args(["demo", "--seed", "4", "--speed", "0"])
    tty = FakeTerminal()
    assert run_demo(args, stream=tty) == 0
    assert "\x1b[H" in tty.getvalue()
    pipe = io.StringIO()
    assert run_demo(args, stream=pipe) == 0
    assert "\x1b" not in pipe.getvalue()
    # The same game either way.
    assert "wins (" in pipe.getvalue()
    last = next(line for line in pipe.getvalue().splitlines() if " wins (" in line)
    assert last in ESCAPE.sub("", tty.getvalue())


def test_five_tracks_have_no_board_but_play_as_text() -> None:
    argv = ["demo", "--seed", "4", "--variant", "five-player", "--speed", "0"]
    tty = FakeTerminal()
    assert run_demo(build_parser().parse_args(argv), stream=tty) == 0
    assert tty.getvalue().startswith("(No virtual board shows 5 tracks")
    assert "\x1b" not in tty.getvalue()
    assert " wins (" in tty.getvalue()
    with pytest.raises(BoardError, match="has 2 tracks and five-player needs 5"):
        run_demo(build_parser().parse_args([*argv, "--display", "leds", "--link", "null"]))


def test_led_table_sends_the_frame_of_every_entry() -> None:
    link = RecordingLink()
    board = Board("two-121")
    text = io.StringIO()
    table = LedTable(TextTable(text, Pacer(0)), board, link)
    game = DemoGame(seed=2, table=table)
    game.play()
    entries = len(game.keeper.history())
    assert len(link.frames) == entries
    assert all(len(frame) == len(link.frames[0]) for frame in link.frames)
    assert len(set(link.frames)) > 50  # the pegs moved
    assert " wins (" in text.getvalue()


def test_led_self_test_lights_every_hole_of_every_track_in_order() -> None:
    link = RecordingLink()
    board = Board("two-121")
    table = LedTable(TextTable(io.StringIO(), Pacer(0)), board, link)
    table.self_test(["Ann", "Ben"])
    layout = board.layout
    assert len(link.frames) == sum(len(track.holes) for track in layout.tracks)
    for track in range(len(layout.tracks)):
        for hole, led in enumerate(layout.tracks[track].holes):
            frame = link.frames[track * len(layout.tracks[0].holes) + hole]
            assert pixel(frame, led) != (0, 0, 0), (track, hole)
            other = layout.led_of(1 - track, hole)
            if hole:
                assert pixel(frame, other) == (0, 0, 0)


def test_leds_through_the_link_from_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import boardctl.link

    opened: list[Any] = []
    real_open = boardctl.link.open_link

    def spy(kind: str, **options: Any) -> Any:
        link = real_open(kind, **options)
        opened.append((kind, options, link))
        return link

    monkeypatch.setattr(boardctl.link, "open_link", spy)
    config = tmp_path / "config.toml"
    config.write_text('[link]\nkind = "recording"\n\n[board]\nbrightness = 64\n')
    argv = ["demo", "--seed", "6", "--speed", "0", "--display", "leds", "--config", str(config)]
    out = io.StringIO()
    assert run_demo(build_parser().parse_args(argv), stream=out) == 0
    ((kind, options, link),) = opened
    assert kind == "recording"
    assert options == {}
    assert len(link.frames) > 2 * 122 + 40  # the self-test, then one per engine entry
    assert "Self-test: Alice's track" in out.getvalue()
    assert max(max(frame) for frame in link.frames) <= 64  # the configured brightness
    assert link.closed
    assert " wins (" in out.getvalue()  # the play-by-play still goes to the output
    assert "\x1b" not in out.getvalue()

    # --link wins over the file; a board with too few tracks is refused.
    opened.clear()
    argv += ["--link", "null", "--variant", "three-player"]
    config.write_text('[board]\nlayout = "two-121"\n')
    with pytest.raises(BoardError, match="has 2 tracks and three-player needs 3"):
        run_demo(build_parser().parse_args(argv), stream=io.StringIO())
    assert opened[0][0] == "null"


def test_pauses_keep_the_game_over_animation_running() -> None:
    stream = FakeTerminal()
    table = TerminalTable(stream, Pacer(0), Board("two-121"), color="256")
    link = RecordingLink()
    leds = LedTable(TextTable(io.StringIO(), Pacer(0)), Board("two-121"), link)
    DemoGame(seed=3, table=table).play()
    DemoGame(seed=3, table=leds).play()
    assert table.view is not None and table.view.winner is not None
    before, frames = stream.getvalue().count("\x1b[H"), len(link.frames)
    table.pacer = Pacer(10)  # 15 beats in 0.45 s, real sleeps
    leds.text.pacer = Pacer(10)
    table.pause(15)
    leds.pause(15)
    assert stream.getvalue().count("\x1b[H") - before >= 3  # the comet runs on screen
    assert len(link.frames) - frames >= 3  # and on the LEDs
    assert len(set(link.frames[frames:])) >= 3
    table.settle()
    assert stream.getvalue().count("\x1b[H") - before >= 4


def test_a_connected_led_board_is_pointed_out_after_a_terminal_game(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from boardctl.demo import runner

    args = build_parser().parse_args(["demo", "--seed", "4", "--speed", "0"])
    monkeypatch.setattr(runner, "led_board_port", lambda: "/dev/ttyACM0")
    tty = FakeTerminal()
    run_demo(args, stream=tty)
    assert "An LED board is connected (/dev/ttyACM0): boardctl demo --display leds" in (
        tty.getvalue()
    )
    monkeypatch.setattr(runner, "led_board_port", lambda: None)
    tty = FakeTerminal()
    run_demo(args, stream=tty)
    assert "LED board" not in tty.getvalue()
