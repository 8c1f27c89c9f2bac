"""The link's signs on the LEDs: lost (steady white), ended (a slow white blink) and a joined
board's undo on its way to the host (the peg it takes back blinking), drawn on a mock layout's
frame at times given (no clock), and their words on the virtual board."""

from __future__ import annotations

from dataclasses import replace

from boardctl.board.card import card_text
from boardctl.board.overlay import WHITE, OverlayRenderer
from boardctl.board.render import PENDING_PERIOD
from boardctl.board.screen import mode_note
from boardctl.board.signs import LINK_ENDED_STEP, UNDO_SENT_MEANING
from boardctl.board.terminal import draw_board
from boardctl.board.viewjson import view_from_dict, view_to_dict
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


def test_an_undo_on_its_way_blinks_the_front_peg_it_takes_back_on_the_pending_beat() -> None:
    overlay, _leds = rig()
    layout = overlay.layout
    undoing = replace(BOARD, extra=replace(BOARD.extra, undoing=(1,), pending_at=10.0))
    bob, ann = layout.led_of(1, 7), layout.led_of(0, 5)  # the fronts of Bob (undone) and Ann
    half = PENDING_PERIOD / 2
    plain = overlay.render(BOARD, 10.1)
    frames = [overlay.render(undoing, t) for t in (10.1, 10.0 + half + 0.1, 10.0 + 2 * half)]
    rgb = [[frame[3 * led : 3 * led + 3] for frame in frames] for led in (bob, ann)]
    lit = plain[3 * bob : 3 * bob + 3]
    assert lit != bytes(3)
    assert rgb[0] == [bytes(3), lit, bytes(3)]  # dark from the undo's press, then on the beat
    assert rgb[1] == [plain[3 * ann : 3 * ann + 3]] * 3  # the other track's peg stays
    assert overlay.next_change(undoing, 10.1) == 10.0 + half  # the loop wakes for the blink
    assert overlay.next_change(BOARD, 10.1) is None
    # every track of an entry of none (the cut, a phase); a track the board lacks: nothing
    every = replace(BOARD, extra=replace(BOARD.extra, undoing=(0, 1)))
    frame = overlay.render(every, 0.1)
    assert [frame[3 * led : 3 * led + 3] for led in (bob, ann)] == [bytes(3)] * 2
    beyond = replace(BOARD, extra=replace(BOARD.extra, undoing=(5,)))
    assert overlay.render(beyond, 0.1) == overlay.render(BOARD, 0.1)
    # in the watch stream's JSON (the phone page, a joined board's own watchers) and back
    assert view_to_dict(undoing)["extra"]["undoing"] == [1]
    assert view_from_dict(view_to_dict(undoing)).extra.undoing == (1,)


def test_the_virtual_board_and_the_card_say_an_undo_is_on_its_way() -> None:
    overlay, _leds = rig()
    undoing = replace(BOARD, extra=replace(BOARD.extra, undoing=(1,)))
    text = draw_board(undoing, overlay.render(undoing, 0.1), overlay.layout, color="none")
    bob = " ".join(row for row in text.splitlines() if row.startswith("Bob"))
    ann = " ".join(row for row in text.splitlines() if row.startswith("Ann"))
    assert "undo sent" in bob and "undo sent" not in ann
    plain = draw_board(BOARD, overlay.render(BOARD, 0.1), overlay.layout, color="none")
    assert "undo sent" not in plain
    assert UNDO_SENT_MEANING in " ".join(card_text().split())
