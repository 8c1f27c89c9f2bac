"""A stuck contact is shown: its button's places double-flash yellow until it is released.

Through gpiozero's mock pins (a Zero 2 W, revision 902120), the real service loop,
the renderer and the overlay; the same names reach ``status`` and the watchers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.board import builtin_layout
from boardctl.board.card import card_text
from boardctl.board.frame import pixel
from boardctl.board.overlay import YELLOW
from boardctl.board.signs import STUCK_MEANING, STUCK_SIGN, stuck_next, stuck_on, stuck_places
from boardctl.cli.cmd_status import summary_lines
from boardctl.inputs.events import Tap
from boardctl.view import ButtonId
from tests.test_inputs_flaky import Board

LAYOUT = builtin_layout("two-121")
STATUS = LAYOUT.status
ON, OFF = 0.05, 0.5  # seconds into the sign's period: flash lit, and dark


@pytest.fixture
def pins() -> Iterator[MockFactory]:
    factory = MockFactory(revision="902120")
    try:
        yield factory
    finally:
        factory.reset()


def _yellow(board: Board) -> set[int]:
    frame = board.loop.frame
    assert frame is not None
    return {led for led in range(LAYOUT.led_count) if bytes(pixel(frame, led)) == YELLOW}


def _stick(board: Board, name: str, at: float) -> None:
    board.advance(at)
    board.pin(name).drive_low()
    board.loop.run_once(max_wait=0)
    board.advance(at + board.config.inputs.stuck_after + 1.0)


@pytest.mark.parametrize(
    ("name", "places"),
    [
        ("track2.plus5", {LAYOUT.led_of(1, 0), LAYOUT.led_of(1, 5)}),
        ("track1.plus1", {LAYOUT.led_of(0, 0), LAYOUT.led_of(0, 1)}),
        ("track1.encoder_push", {LAYOUT.led_of(0, 0)}),
        ("undo", {STATUS}),
        ("menu", {STATUS, LAYOUT.led_of(0, 0), LAYOUT.led_of(1, 0)}),
    ],
)
def test_a_stuck_button_double_flashes_yellow_where_it_is_until_released(
    pins: MockFactory, name: str, places: set[int]
) -> None:
    board = Board(pins)
    lines: list[bytes] = []
    board.loop.watch.subscribe(1, lines.append)
    try:
        board.advance(100.0 + ON)
        assert _yellow(board) == set()  # nothing is yellow on a board at rest
        _stick(board, name, 101.0)
        assert board.loop.panel.stuck == (name,)
        assert [button.name for button in board.loop.view().extra.stuck] == [name]
        board.advance(120.0 + ON)
        assert _yellow(board) == places
        board.advance(120.0 + OFF)
        assert _yellow(board) == set()  # ... it flashes
        board.advance(121.0 + 0.25)  # the second flash of the period
        assert _yellow(board) == places
        status = board.loop.requests.status()
        assert status["stuck"] == [name]
        assert any(name in line and "stuck" in line for line in summary_lines(status))
        told = [json.loads(line) for line in lines]
        assert any(m.get("state", {}).get("status", {}).get("stuck") == [name] for m in told)
        board.pin(name).drive_high()  # released
        board.loop.run_once(max_wait=0)
        board.advance(130.0 + ON)
        assert not board.loop.panel.stuck
        assert board.loop.view().extra.stuck == ()
        assert _yellow(board) == set()
        assert "stuck" not in board.loop.requests.status()
        assert not any("stuck" in line for line in summary_lines(board.loop.requests.status()))
        last = [json.loads(line) for line in lines][-1]
        assert "stuck" not in last["state"]["status"]
    finally:
        board.close()


def test_the_sign_shows_over_settings_mode_and_a_pending_entry(pins: MockFactory) -> None:
    board = Board(pins)
    try:
        _stick(board, "track2.plus1", 101.0)
        board.loop.post(Tap("track1.plus5"))  # a pending +5 on track 1, blinking meanwhile
        board.advance(120.0 + ON)
        assert _yellow(board) == {LAYOUT.led_of(1, 0), LAYOUT.led_of(1, 1)}
        board.loop.post(Tap("menu", hold=1))  # settings mode: the board goes dark ...
        board.advance(125.0 + ON)
        assert board.loop.panel.mode == "settings"
        assert _yellow(board) == {LAYOUT.led_of(1, 0), LAYOUT.led_of(1, 1)}  # ... but for it
    finally:
        board.close()


def test_the_flash_timing_and_the_places_are_one_table() -> None:
    lit = [t / 100 for t in range(100) if stuck_on(t / 100)]
    assert lit == [t / 100 for t in [*range(10), *range(20, 30)]]  # two 0.1 s flashes a second
    assert [stuck_next(t) for t in (0.0, 0.1, 0.2, 0.3, 0.95)] == [0.1, 0.2, 0.3, 1.0, 1.0]
    assert stuck_places(ButtonId("plus5", 2), 2, True) == []  # not a track of this board
    assert stuck_places(ButtonId("undo"), 2, False) == [(0, 1), (1, 1)]  # no status LED: holes 1
    assert stuck_places(ButtonId("menu"), 2, False) == [(0, 0), (1, 0)]
    assert stuck_places(ButtonId("nonsense"), 2, True) == []
    card = " ".join(card_text().split())
    assert f"{STUCK_SIGN}: {STUCK_MEANING}" in card
