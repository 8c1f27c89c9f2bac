"""The virtual board shows the truth: no stale words, and a board sized to the terminal."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

import pytest

from boardctl.board import Renderer, builtin_layout
from boardctl.board.overlay import OverlayRenderer
from boardctl.board.screen import compose, fit, mode_note
from boardctl.board.terminal import fit_name
from boardctl.game.commands import Cut, Peg, Set
from boardctl.game.keeper import Scorekeeper
from boardctl.inputs.events import InputEvent, Tap
from boardctl.inputs.keys import HELP, KEYMAP, SHORT_HELP, events_for
from boardctl.inputs.panel import Panel
from boardctl.link import RecordingLink
from boardctl.refusals import Refusal
from boardctl.service.app import resized, terminal_display
from boardctl.service.loop import ERROR_KEPT, ServiceLoop
from boardctl.view import BoardView, Question, TrackView, ViewExtra

ANSI = re.compile(r"\x1b\[[0-9;]*m")
HELP_LINES = HELP.split("\n")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Screen:
    """A service loop drawing the virtual board into a string, on a fake clock."""

    def __init__(self, setup: dict[str, Any] | None = None) -> None:
        self.layout = builtin_layout("two-121")
        self.out = io.StringIO()
        self.display, self.restore = terminal_display(self.layout, self.out)
        self.clock = Clock()
        self.link = RecordingLink()
        keeper = Scorekeeper.memory(setup or {"variant": "six-card", "mode": "free"})
        self.loop = ServiceLoop(
            keeper,
            OverlayRenderer(Renderer(self.layout), self.layout),
            self.link,
            panel=Panel(tracks=2),
            display=self.display,
            clock=self.clock,
        )
        self.loop.start()

    def at(self, now: float, *events: InputEvent) -> None:
        """Post ``events`` at ``now`` and run one turn of the loop."""
        self.clock.now = now
        for event in events:
            self.loop.post(event)
        self.loop.run_once(max_wait=0)

    @property
    def text(self) -> str:
        """What the terminal shows now (the last screen drawn)."""
        return self.out.getvalue().split("\x1b[H\x1b[J")[-1]

    def close(self) -> None:
        self.loop.close()
        self.restore()


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> Iterator[Screen]:
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")
    board = Screen()
    yield board
    board.close()


# --- no stale words -------------------------------------------------------------------------
def test_a_cancelled_pending_entry_leaves_no_label(screen: Screen) -> None:
    screen.at(100.0, Tap("track1.plus1"))
    assert "pending +1" in screen.text
    screen.at(100.4)  # the pending hole's blink is off: the frame is the one without it
    frames = len(screen.link.frames)
    screen.at(100.45, Tap("undo"))  # cancels the pending amount
    assert len(screen.link.frames) == frames  # the LEDs did not change ...
    assert "pending" not in screen.text  # ... but the words did
    assert screen.loop.keeper.status()["tracks"][0]["front"] == 0


def test_a_declined_new_game_leaves_no_prompt(screen: Screen) -> None:
    screen.at(100.0, Tap("menu", 2))  # new game? the start holes blink
    assert "new game? m = yes, u = no" in screen.text
    screen.at(100.3)  # the confirm blink is off
    frames = len(screen.link.frames)
    screen.at(100.35, Tap("undo"))  # declined
    assert len(screen.link.frames) == frames
    assert "new game?" not in screen.text


def test_a_timed_out_confirm_leaves_no_prompt(screen: Screen) -> None:
    screen.at(100.0, Tap("menu", 2))
    assert "new game?" in screen.text
    timeout = screen.loop.panel.timing.confirm_timeout
    screen.at(99.8 + timeout)  # still asking, in an "off" step of the blink
    assert "new game?" in screen.text
    frames = len(screen.link.frames)
    screen.at(100.3 + timeout)  # past the timeout, in an "off" step again
    assert screen.loop.panel.mode == "entry"
    assert len(screen.link.frames) == frames
    assert "new game?" not in screen.text


def test_a_name_change_is_drawn_at_once(screen: Screen) -> None:
    assert "Track 1" in screen.text
    frames = len(screen.link.frames)
    screen.loop.dispatcher.execute(Set("names", ["Alice", "Bob"]))
    screen.at(100.1)
    assert len(screen.link.frames) == frames  # names are not on the LEDs
    rows = screen.text.splitlines()
    assert any(row.startswith("Alice ") for row in rows)
    assert not any("Track 1" in row for row in rows)


def test_a_refusal_leaves_with_its_sign(screen: Screen) -> None:
    screen.loop.flash_error(Refusal.IMPOSSIBLE, "19 is not a possible count")
    screen.at(100.0)
    assert "REFUSED (1 lit): 19 is not a possible count" in screen.text
    screen.at(100.0 + ERROR_KEPT - 0.5)  # the sign is over, the words are still kept
    frames = len(screen.link.frames)
    screen.at(100.0 + ERROR_KEPT + 0.1)
    assert len(screen.link.frames) == frames
    assert "REFUSED" not in screen.text


def test_a_refusals_log_line_leaves_once_a_later_entry_is_taken(screen: Screen) -> None:
    screen.at(100.0, *events_for("u"))  # nothing to undo: refused, and logged under the board
    screen.loop.redraw()  # the log line came after the refusal's frame: the next drawing has it
    screen.at(100.1)
    assert "entry refused: nothing to undo" in screen.text
    screen.at(100.2, *events_for("1a"))  # +1 on track 1, committed: a good entry
    assert screen.loop.keeper.status()["tracks"][0]["front"] == 1
    assert "entry refused" not in screen.text
    screen.loop.redraw()
    screen.at(100.3)
    assert "entry refused" not in screen.text


def test_the_board_asks_its_question_in_words_with_the_keys_that_answer_it() -> None:
    board = Screen({"variant": "six-card", "mode": "guided", "names": ["Alice", "Bob"]})
    try:
        board.loop.dispatcher.execute(Cut(1))  # Bob deals
        board.loop.dispatcher.execute(
            Peg(1, 2)
        )  # his heels? or his first pegging, the press forgotten
        board.at(100.0)
        rows = board.text.splitlines()
        assert "the board asks: is Bob's 2 heels or pegging?" in rows
        assert "U (undo held) = pegging · the next entry keeps heels · u takes it back" in rows
        assert any("U = pegging" in row for row in rows)  # the key help while it asks
        assert not any("U redo" in row for row in rows)
        board.at(100.2, *events_for("U"))  # undo held: file it as pegging
        status = board.loop.keeper.status()
        assert status["ask"] is None and status["phase"] == "play"
        rows = board.text.splitlines()
        assert not any("the board asks" in row for row in rows)
        assert HELP_LINES[0] in rows  # "U redo" again
    finally:
        board.close()


@pytest.mark.parametrize(("lines", "help_row"), [(24, "U = hand"), (21, "U:hand m:next")])
def test_the_question_and_its_key_fit_the_terminal_while_the_board_asks(
    lines: int, help_row: str
) -> None:
    layout = builtin_layout("three-121")
    ask = Question(track=0, points=4, kind="pegging", other="hand")
    names = ("Alice & Carol", "Bob & Dave", "Erin & Frank")
    view = BoardView(121, tuple(TrackView(n, 30, 26) for n in names), extra=ViewExtra(ask=ask))
    frame = OverlayRenderer(Renderer(layout), layout).render(view, 0.0)
    text = compose(
        view, frame, layout, columns=80, lines=lines, note=mode_note(view), help_lines=HELP_LINES
    )
    rows = _rows(text)
    assert "the board asks: is Alice & Carol's 4 pegging or hand?" in rows
    assert "U (undo held) = hand · the next entry keeps pegging · u takes it back" in rows
    assert any(help_row in row for row in rows) and not any("redo" in row for row in rows)
    assert len(rows) <= lines - 1 and all(len(row) <= 80 for row in rows)


def test_the_same_screen_is_not_written_twice(screen: Screen) -> None:
    screen.at(100.0, Tap("track1.plus1"))
    written = screen.out.getvalue().count("\x1b[H\x1b[J")
    screen.at(100.4)  # the blink's off step: the frame changes, the words do not
    screen.at(100.7)  # on again
    assert screen.out.getvalue().count("\x1b[H\x1b[J") == written + 2  # the pending hole blinks
    screen.display(screen.loop.view(), screen.loop.frame or b"")
    assert screen.out.getvalue().count("\x1b[H\x1b[J") == written + 2  # nothing new to say


# --- sized to the terminal -----------------------------------------------------------------
TEAMS = ("Alice & Dave", "Bob & Erin", "Carol & Frank")
REASON = (
    "Bob & Erin counts first: the hand to the dealer's left is counted before the others, "
    "then the crib, and this reason is long enough to wrap twice on 80 columns"
)


def _view(layout_name: str, **extra: Any) -> tuple[BoardView, bytes, Any]:
    layout = builtin_layout(layout_name)
    tracks = (
        TrackView(TEAMS[0], 47, 40, pending=12),
        TrackView(TEAMS[1], 3),
        TrackView(TEAMS[2], 9, 4),
    )
    view = BoardView(
        layout.hole_count,
        tracks[: len(layout.tracks)],
        phase="show",
        dealer=0,
        to_count=1,
        match_target=7,
        error_at=0.0,
        extra=ViewExtra(refusal=Refusal.NOT_YOUR_TURN, refused=REASON, **extra),
    )
    return view, Renderer(layout).render(view, 0.1), layout


def _rows(text: str) -> list[str]:
    assert text.endswith("\n")
    return [ANSI.sub("", row) for row in text[:-1].split("\n")]


@pytest.mark.parametrize("layout_name", ["two-121", "three-121", "two-61"])
@pytest.mark.parametrize("note", ["", "settings: rules = english"])
@pytest.mark.parametrize("color", ["none", "truecolor"])
def test_every_board_with_team_names_and_the_reason_fits_80x24(
    layout_name: str, note: str, color: str
) -> None:
    view, frame, layout = _view(layout_name)
    text = compose(
        view, frame, layout, columns=80, lines=24, note=note, help_lines=HELP_LINES, color=color
    )
    rows = _rows(text)
    assert len(rows) <= 23, rows  # the cursor's row is left free: nothing scrolls
    assert max(len(row) for row in rows) <= 80, rows
    assert rows[1].strip().startswith("start 1")  # a board, not the too-small message
    refused = [i for i, row in enumerate(rows) if row.startswith("REFUSED (2 lit): Bob & Erin")]
    assert refused and rows[refused[0] + 1].startswith("  ")  # the reason, on its two rows
    assert (note in rows) == bool(note)
    assert HELP_LINES[0] in rows or SHORT_HELP in rows
    names = {row[:10].rstrip() for row in rows[2:]}
    assert {"Alice&Dave", "Bob & Erin"} <= names  # team names shortened alike, not cut off


def test_three_tracks_on_80x24_put_the_game_hole_at_the_end_of_the_last_row() -> None:
    view, frame, layout = _view("three-121")
    fitted = fit(view, frame, layout, columns=80, lines=24, help_lines=HELP_LINES, color="none")
    assert fitted.style == "compact" and fitted.help == HELP_LINES
    last = [row for row in fitted.rows if "91-121" in row]
    assert len(last) == 3 and not any(row.rstrip().endswith("game") for row in fitted.rows)


def test_a_large_terminal_gets_the_large_board() -> None:
    view, frame, layout = _view("three-121", rules="english")
    small = _rows(compose(view, frame, layout, columns=80, lines=24, help_lines=HELP_LINES))
    fitted = fit(view, frame, layout, columns=140, lines=40, help_lines=HELP_LINES, color="none")
    assert fitted.style == "large"
    rows = fitted.rows
    assert max(len(row) for row in rows) <= 140
    assert max(len(row) for row in rows) > max(len(row) for row in small) + 30  # bigger holes
    assert (
        rows[1]
        == "rules english · skunk lines: skunk 91, double 61, triple 31 · match to 7 game points"
    )
    assert any(row.startswith("Carol & Frank ") for row in rows)  # whole names
    assert any(row.rstrip().endswith("game") for row in rows)  # the game hole on its own row
    refused = next(i for i, row in enumerate(rows) if row.startswith("REFUSED (2 lit): "))
    assert " ".join(row.strip() for row in rows[refused : refused + 2]) == (
        "REFUSED (2 lit): " + REASON
    )  # the whole reason, wrapped at 140 columns


def test_a_wider_terminal_shows_whole_names_on_the_normal_board() -> None:
    view, frame, layout = _view("three-121")
    fitted = fit(view, frame, layout, columns=100, lines=30, help_lines=HELP_LINES, color="none")
    assert fitted.style == "normal"
    assert any(row.startswith("Carol & Frank ") for row in fitted.rows)
    assert max(len(row) for row in fitted.rows) <= 100


@pytest.mark.parametrize(("columns", "lines"), [(60, 20), (80, 12), (20, 5), (1, 1)])
def test_a_terminal_too_small_says_so_instead_of_a_garbled_board(columns: int, lines: int) -> None:
    view, frame, layout = _view("three-121")
    text = compose(
        view, frame, layout, columns=columns, lines=lines, help_lines=HELP_LINES, logs=["x" * 99]
    )
    rows = _rows(text) if text else []
    assert len(rows) <= max(lines - 1, 1)
    assert max((len(row) for row in rows), default=0) <= max(columns, 1)
    assert not any("start 1" in row for row in rows)
    if lines >= 8 and columns >= 20:
        words = " ".join(rows)
        assert "too small for the virtual board" in words
        assert re.search(r"needs at least \d+x\d+", words)
        assert "Alice & Dave 47" in words  # the score in words


def test_the_needed_size_is_the_smallest_board_that_fits() -> None:
    view, frame, layout = _view("three-121")
    small = compose(view, frame, layout, columns=60, lines=20, help_lines=HELP_LINES)
    found = re.search(r"needs at least (\d+)x(\d+)", " ".join(_rows(small)))
    assert found is not None
    width, height = int(found[1]), int(found[2])

    def style(columns: int) -> str:
        return fit(view, frame, layout, columns=columns, lines=height, help_lines=HELP_LINES).style

    assert style(width) != "too-small" and style(width - 1) == "too-small"


def test_a_resized_terminal_is_drawn_again_for_its_new_size(
    screen: Screen, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "skunk lines:" not in screen.text  # 80x24: the normal board
    monkeypatch.setenv("COLUMNS", "140")
    monkeypatch.setenv("LINES", "40")
    resized(screen.loop)  # what the SIGWINCH handler does
    screen.at(100.1)
    assert "skunk lines: skunk 91, double 61, triple 31" in screen.text
    monkeypatch.setenv("COLUMNS", "50")
    resized(screen.loop)
    screen.at(100.2)
    assert "too small for the virtual board" in " ".join(screen.text.split())


def test_names_fit_their_column() -> None:
    assert fit_name("Alice & Carol", 10) == "Alic&Carol"
    assert fit_name("Alice & Carol", 13) == "Alice & Carol"
    assert fit_name("Ann & Bo & Cy & Di", 10) == "A&Bo&Cy&Di"
    assert len(fit_name("Ann & Bo & Cy & Di", 10)) == 10
    assert fit_name("Bartholomew", 6) == "Bartho"
    assert fit_name("A & B", 2) == "A "  # no room for two members: cut


def test_the_short_help_names_every_key() -> None:
    assert len(SHORT_HELP) <= 76
    for key in KEYMAP:
        assert key == " " or key in SHORT_HELP
