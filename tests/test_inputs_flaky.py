"""A flaky or stuck contact: at most one undo without a confirm; a stuck button is ignored.

The gestures are checked on the panel with exact times; the promise itself
("a contact shorting 1-2 s again and again erases at most one entry") through
gpiozero MockFactory pins of a Pi Zero 2 W (revision 902120), the service loop
and a real scorekeeper, all on one injected clock.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.board import Renderer, builtin_layout
from boardctl.board.frame import pixel
from boardctl.board.overlay import BLUE, RED, OverlayRenderer
from boardctl.board.viewjson import view_from_dict
from boardctl.config import Config, parse_config
from boardctl.config import InputsConfig as Timing
from boardctl.errors import ConfigError
from boardctl.game.commands import BoardCommand, Brightness, Peg, Redo, Undo
from boardctl.game.keeper import Scorekeeper
from boardctl.inputs.gpio import Inputs
from boardctl.inputs.panel import GESTURES, Panel
from boardctl.link import RecordingLink
from boardctl.service.loop import ServiceLoop
from boardctl.view import BoardView, TrackView, ViewExtra
from tests.test_inputs import press, run_until
from tests.test_render_golden import golden_frame

T = Timing()  # long_press 1.0, confirm_timeout 10.0, stuck_after 10.0


# --- the guard on the panel ---------------------------------------------------------
def test_a_second_undo_in_a_row_asks_and_menu_confirms_it() -> None:
    panel = Panel(tracks=2)
    assert press(panel, "undo", 0.0) == [Undo()]  # the first undo acts at once
    assert press(panel, "undo", 1.0) == []  # the second asks
    assert panel.mode == "undo_confirm" and panel.overlay() == ViewExtra(undo_confirm=True)
    assert press(panel, "menu", 2.0) == [Undo()]  # a deliberate, different press confirms
    assert panel.mode == "entry"
    assert press(panel, "track1.plus1", 3.0, duration=1.2) == []  # a third asks again
    assert panel.mode == "undo_confirm"
    assert press(panel, "menu", 4.0) == [Undo()]


def test_the_asked_undo_is_cancelled_by_undo_by_the_timeout_or_by_a_track_press() -> None:
    panel = Panel(tracks=2)
    press(panel, "undo", 0.0)
    press(panel, "undo", 1.0)
    assert press(panel, "undo", 2.0) == [] and panel.mode == "entry"  # undo cancels it
    press(panel, "undo", 3.0)
    assert panel.mode == "undo_confirm"
    assert panel.deadline() == pytest.approx(3.1 + T.confirm_timeout)
    assert run_until(panel, 20.0) == [] and panel.mode == "entry"  # the timeout cancels it
    press(panel, "undo", 30.0)
    assert panel.mode == "undo_confirm"
    press(panel, "track2.plus5", 31.0)  # a track press carries on and counts
    assert panel.mode == "entry" and panel.pending == (0, 5)
    assert run_until(panel, 40.0) == [Peg(1, 5)]


def test_an_entry_from_the_buttons_lifts_the_guard_and_redo_does_not() -> None:
    panel = Panel(tracks=2)
    assert press(panel, "undo", 0.0) == [Undo()]
    press(panel, "track1.plus1", 1.0)
    assert run_until(panel, 5.0) == [Peg(0, 1)]
    assert press(panel, "undo", 6.0) == [Undo()]  # an entry came between: at once
    assert press(panel, "undo", 7.0, duration=1.5) == [Redo()]  # redo puts it back ...
    assert press(panel, "undo", 10.0) == []  # ... and is no entry: the next undo asks
    assert panel.mode == "undo_confirm"


def test_a_new_game_resets_the_guard() -> None:
    panel = Panel(tracks=2)
    press(panel, "undo", 0.0)
    panel.set_tracks(3)  # a new game, whoever started it
    assert press(panel, "undo", 1.0) == [Undo()]


def test_menu_held_while_an_undo_asks_confirms_it_and_starts_no_new_game() -> None:
    panel = Panel(tracks=2)
    press(panel, "undo", 0.0)
    press(panel, "undo", 1.0)
    assert press(panel, "menu", 2.0, duration=5.0) == [Undo()]
    assert panel.mode == "entry"


def test_the_gesture_table_says_how_to_confirm_a_second_undo() -> None:
    meanings = dict(GESTURES)
    assert "menu confirms" in meanings["2nd undo in a row"]


# One contact, shorted again and again with any timing: between two undos it lets
# through there is always an entry (so it erases at most one entry it did not make).
BUTTONS = ("undo", "menu", "track1.plus1", "track1.plus5", "track1.encoder_push")


@settings(max_examples=200, deadline=None)
@given(
    button=st.sampled_from(BUTTONS),
    shorts=st.lists(
        st.tuples(st.floats(0.03, 15.0), st.floats(0.03, 20.0)), min_size=1, max_size=25
    ),
)
def test_one_contact_never_lets_two_undos_through_without_an_entry_between(
    button: str, shorts: list[tuple[float, float]]
) -> None:
    panel = Panel(tracks=2)
    out: list[BoardCommand] = []
    t = 0.0
    for held, gap in shorts:
        out += panel.edge(button, True, t)
        out += run_until(panel, t + held)
        out += panel.edge(button, False, t + held)
        t += held + gap
        out += run_until(panel, t)
    entries_since_undo = True
    for command in out:
        if isinstance(command, Undo):
            assert entries_since_undo, out
            entries_since_undo = False
        elif not isinstance(command, Redo | Brightness):
            entries_since_undo = True


# --- a stuck contact ------------------------------------------------------------------
def test_a_stuck_button_is_logged_once_and_ignored_until_released(
    caplog: pytest.LogCaptureFixture,
) -> None:
    panel = Panel(tracks=2)
    caplog.set_level(logging.WARNING, logger="boardctl.inputs.panel")
    panel.edge("menu", True, 0.0)
    assert panel.deadline() == T.long_press
    run_until(panel, 3600.0)
    assert panel.stuck == ("menu",)
    assert panel.deadline() is None  # nothing more is timed while it stays down
    records = [r.getMessage() for r in caplog.records]
    assert records == [
        "button menu held for 10 s: ignored until it is released (stuck or shorted?)"
    ]
    assert panel.edge("menu", False, 3600.5) == []  # let go: no settings mode, no next
    assert not panel.stuck and len(caplog.records) == 1
    assert press(panel, "menu", 3601.0) != []  # works again: a short press is "next"


def test_stuck_after_is_a_bounded_config_key_longer_than_the_new_game_press() -> None:
    assert Config().inputs.stuck_after == 10.0
    assert parse_config({"inputs": {"stuck_after": 30}}).inputs.stuck_after == 30.0
    for bad, message in (
        (0.5, "between 2.0 and 600.0"),
        (1e9, "between 2.0 and 600.0"),
        ("10", "must be a number"),
        (3.0, "longer than inputs.very_long_press"),
    ):
        with pytest.raises(ConfigError, match=message):
            parse_config({"inputs": {"stuck_after": bad}})


# --- the board's sign -------------------------------------------------------------------
def test_golden_frame_of_the_asked_undo() -> None:
    layout = builtin_layout("two-121")
    view = BoardView(
        121,
        (TrackView("Ann", 44, 40), TrackView("Bo", 61, 52)),
        phase="play",
        dealer=1,
        extra=ViewExtra(undo_confirm=True),
    )
    renderer = OverlayRenderer(Renderer(layout), layout)
    now = 20.1  # the blink's "on" step
    frame = renderer.render(view, now)
    stored, differences = golden_frame(
        "frame-sign-undo-confirm.json", "two-121", layout, view, now, frame
    )
    assert view_from_dict(stored["view"]) == view
    assert not differences, "\n".join(differences)
    starts = [layout.led_of(track, 0) for track in range(2)]
    assert layout.status is not None
    assert all(bytes(pixel(frame, led)) == BLUE for led in [*starts, layout.status])
    assert BLUE != RED  # told apart from the new-game confirm
    off = renderer.render(view, 20.3)  # the "off" step: the game as it is
    assert off == Renderer(layout).render(view, 20.3)
    assert renderer.next_change(view, 20.1) == pytest.approx(20.25)


# --- the promise, through gpiozero mock pins ----------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def zero2w() -> Iterator[MockFactory]:
    """Mock pins of a Raspberry Pi Zero 2 W."""
    factory = MockFactory(revision="902120")
    try:
        yield factory
    finally:
        factory.reset()


class Board:
    """Mock pins -> gpiozero devices -> the service loop -> a real scorekeeper."""

    def __init__(self, factory: MockFactory, keeper: Scorekeeper | None = None) -> None:
        self.config = Config()
        self.clock = Clock()
        self.keeper = keeper or Scorekeeper.memory({"variant": "six-card", "mode": "free"})
        layout = builtin_layout("two-121")
        self.loop = ServiceLoop(
            self.keeper,
            OverlayRenderer(Renderer(layout), layout),
            RecordingLink(),
            panel=Panel(tracks=2, timing=self.config.inputs),
            clock=self.clock,
        )
        self.inputs = Inputs(
            self.config.pins,
            2,
            self.loop.post,
            factory=factory,
            clock=self.clock,
            lock=self.loop.edge_lock,
        )
        self.factory = factory
        self.loop.start()

    def pin(self, name: str) -> Any:
        pins = self.config.pins
        if name in ("undo", "menu"):
            return self.factory.pin(getattr(pins, name))
        track, role = name.split(".")
        return self.factory.pin(getattr(pins.tracks[int(track[5:]) - 1], role))

    def advance(self, to: float) -> None:
        """Run the loop at every deadline up to ``to``, then at ``to``."""
        for _ in range(10000):
            due = self.loop.panel.deadline()
            if due is None or due > to:
                break
            self.clock.now = max(self.clock.now, due)
            self.loop.run_once(max_wait=0)
        self.clock.now = to
        self.loop.run_once(max_wait=0)

    def short(self, name: str, at: float, held: float) -> None:
        """The contact closed at ``at`` for ``held`` seconds (the pin pulled low)."""
        self.advance(at)
        self.pin(name).drive_low()
        self.loop.run_once(max_wait=0)
        self.advance(at + held)
        self.pin(name).drive_high()
        self.loop.run_once(max_wait=0)

    def fronts(self) -> list[int]:
        return [t["front"] for t in self.keeper.status()["tracks"]]

    def close(self) -> None:
        self.inputs.close()
        self.loop.close()


def _ten_entries(board: Board) -> float:
    """Ten entries of 3 on track 2, entered with its buttons; the time after them."""
    t = 0.0
    for _ in range(10):
        for _ in range(3):
            board.short("track2.plus1", t, 0.1)
            t += 0.3
        board.short("track2.encoder_push", t, 0.1)
        t += 0.5
    assert board.fronts() == [0, 30]
    return t


@pytest.mark.parametrize("button", BUTTONS)
def test_a_contact_shorted_1_to_2_s_ten_times_erases_at_most_one_entry(
    zero2w: MockFactory, button: str
) -> None:
    board = Board(zero2w)
    try:
        t = _ten_entries(board) + 2.0
        rng = random.Random(f"flaky {button}")
        for _ in range(10):
            held = rng.uniform(1.0, 2.0)
            board.short(button, t, held)
            t += held + rng.uniform(0.3, 3.0)
        board.advance(t + 60.0)
        assert len(board.pin(button).states) > 10  # the edges went through gpiozero pins
        track2 = board.fronts()[1]
        assert track2 >= 27, f"{button}: {(30 - track2) // 3} entries erased"
        assert board.loop.panel.pending == (0, 0)
    finally:
        board.close()


@pytest.mark.parametrize(
    ("button", "shortest", "longest"),
    [("undo", 0.05, 0.95), ("undo", 0.05, 2.0), ("track1.plus1", 0.05, 2.0)],
)
def test_shorter_shorts_erase_at_most_one_real_entry(
    zero2w: MockFactory, button: str, shortest: float, longest: float
) -> None:
    """Shorts under the long press are undos (undo button) or +1s the contact makes itself."""
    board = Board(zero2w)
    try:
        t = _ten_entries(board) + 2.0
        rng = random.Random(f"mixed {button} {longest}")
        for _ in range(30):
            held = rng.uniform(shortest, longest)
            board.short(button, t, held)
            t += held + rng.uniform(0.1, 3.0)
        board.advance(t + 60.0)
        assert board.fronts()[1] >= 27, board.fronts()  # track 2: at most one real entry erased
    finally:
        board.close()


def test_a_stuck_contact_logs_once_is_ignored_until_released_then_works(
    zero2w: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    board = Board(zero2w)
    caplog.set_level(logging.WARNING, logger="boardctl.inputs.panel")
    try:
        t = _ten_entries(board) + 2.0
        pin = board.pin("track2.plus5")
        board.advance(t)
        pin.drive_low()  # stuck from here on
        board.loop.run_once(max_wait=0)
        board.advance(t + 3600.0)
        stuck = [r.getMessage() for r in caplog.records]
        assert stuck == [
            "button track2.plus5 held for 10 s: ignored until it is released (stuck or shorted?)"
        ]
        assert board.loop.panel.stuck == ("track2.plus5",)
        assert board.fronts()[1] >= 27  # its long press undid one entry at most
        after_stuck = board.fronts()
        board.short("track1.plus1", t + 3601.0, 0.1)  # the other buttons still work
        board.advance(t + 3610.0)
        assert board.fronts() == [after_stuck[0] + 1, after_stuck[1]]
        pin.drive_high()  # released
        board.loop.run_once(max_wait=0)
        board.advance(t + 3611.0)
        assert not board.loop.panel.stuck
        board.short("track2.plus5", t + 3612.0, 0.1)  # and it works again
        board.advance(t + 3620.0)
        assert board.fronts() == [after_stuck[0] + 1, after_stuck[1] + 5]
        assert len(caplog.records) == 1  # one line in all
    finally:
        board.close()


# --- a refused entry is no entry ------------------------------------------------------------
def test_an_entry_the_engine_refuses_does_not_lift_the_guard() -> None:
    panel = Panel(tracks=2)
    assert press(panel, "undo", 0.0) == [Undo()]
    press(panel, "track1.plus1", 1.0)
    assert run_until(panel, 5.0) == [Peg(0, 1)]
    panel.refused(Peg(0, 1))  # the service reports the refusal right after
    assert press(panel, "undo", 6.0) == []  # still guarded: it asks
    assert panel.mode == "undo_confirm"


def test_a_refusal_after_the_panels_next_call_changes_nothing() -> None:
    panel = Panel(tracks=2)
    press(panel, "undo", 0.0)
    press(panel, "track1.plus1", 1.0)
    assert run_until(panel, 5.0) == [Peg(0, 1)]
    panel.tick(5.5)  # the next loop turn: that entry was accepted
    panel.refused(Peg(0, 1))
    assert press(panel, "undo", 6.0) == [Undo()]


def test_through_the_pins_a_refused_entry_between_two_undos_erases_no_second_entry(
    zero2w: MockFactory,
) -> None:
    from boardctl.errors import EntryError
    from boardctl.game.commands import Command

    def no_sevens(command: Command) -> None:  # the layout check's hook, refusing 7s
        if isinstance(command, Peg) and command.points == 7:
            raise EntryError("no sevens on this board")

    board = Board(zero2w)
    board.loop.validate = no_sevens
    try:
        t = _ten_entries(board) + 2.0
        board.short("undo", t, 0.1)  # one entry erased
        assert board.fronts() == [0, 27]
        for name in ("track1.plus5", "track1.plus1", "track1.plus1", "track1.encoder_push"):
            t += 0.3
            board.short(name, t, 0.1)
        assert "no sevens" in board.loop.view().extra.refused
        board.short("undo", t + 1.0, 0.1)  # no entry came between: it asks
        board.advance(t + 30.0)
        assert board.fronts() == [0, 27]
    finally:
        board.close()
