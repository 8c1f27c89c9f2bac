"""The link's signs on the LEDs: lost (steady white) and ended (a slow white blink), drawn by
the overlay on a mock layout's frame, at times given (no clock)."""

from __future__ import annotations

from dataclasses import replace

from boardctl.board.overlay import WHITE, OverlayRenderer
from boardctl.board.screen import mode_note
from boardctl.board.signs import LINK_ENDED_STEP
from boardctl.config import parse_config
from boardctl.service.app import load_board_layout, make_renderer
from boardctl.view import BoardView, TrackView


def rig() -> tuple[OverlayRenderer, list[int]]:
    config = parse_config({})
    layout = load_board_layout(config)
    overlay = OverlayRenderer(make_renderer(layout, config, 255), layout)
    leds = [layout.led_of(t, 0) for t in range(len(layout.tracks))]
    return overlay, leds + ([layout.status] if layout.status is not None else [])


def lit(frame: bytes, leds: list[int]) -> list[bool]:
    return [frame[3 * led : 3 * led + 3] == WHITE for led in leds]


BOARD = BoardView(target=121, tracks=(TrackView("Ann", 5), TrackView("Bob", 7)))


def test_the_ended_link_blinks_white_slowly_where_the_lost_link_is_steady() -> None:
    overlay, leds = rig()
    lost = replace(BOARD, extra=replace(BOARD.extra, link_lost=True))
    ended = replace(BOARD, extra=replace(BOARD.extra, link_ended=True))
    step = LINK_ENDED_STEP
    times = [0.1, step + 0.1, 2 * step + 0.1, 3 * step + 0.1]
    assert [all(lit(overlay.render(lost, t), leds)) for t in times] == [True] * 4
    assert [all(lit(overlay.render(ended, t), leds)) for t in times] == [True, False, True, False]
    assert not any(lit(overlay.render(ended, step + 0.1), leds))  # off: the board's own holes
    assert overlay.render(ended, step + 0.1) == overlay.render(BOARD, step + 0.1)
    # the renderer asks to be woken for the blink's next step (the loop sleeps until then)
    assert overlay.next_change(ended, 0.1) == step
    assert overlay.next_change(lost, 0.1) is None
    assert overlay.next_change(BOARD, 0.1) is None


def test_the_virtual_board_says_the_link_ended_in_words() -> None:
    ended = replace(BOARD, extra=replace(BOARD.extra, link_ended=True))
    assert "link ended (remote leave)" in mode_note(ended)
    assert "link lost" in mode_note(replace(BOARD, extra=replace(BOARD.extra, link_lost=True)))
