"""Signing off a finished game with the board's buttons (``[game] confirm_result``).

While a result waits, a press of any of a side's buttons is that side's
``confirm``; the start holes show who has confirmed (steady bluish green) and
who is awaited (blinking). Checked on the panel, as a golden frame, through
gpiozero MockFactory pins (Pi Zero 2 W) into the service loop and a journal on
disk, whose results export then carries the confirmation, and through the whole
service (``app.build``).
"""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.board import Renderer, builtin_layout
from boardctl.board.frame import pixel
from boardctl.board.overlay import GREEN, OverlayRenderer
from boardctl.board.viewjson import view_from_dict
from boardctl.cli import main
from boardctl.config import parse_config
from boardctl.game.commands import Confirm, Peg, Undo, parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.inputs.panel import GESTURES, Panel
from boardctl.link import RecordingLink
from boardctl.refusals import Refusal
from boardctl.results.export import read_csv
from boardctl.service.loop import Call
from boardctl.view import BoardView, TrackView, ViewExtra
from tests.test_e2e import FAST, Rig
from tests.test_inputs import press, run_until
from tests.test_inputs_flaky import Board, zero2w  # noqa: F401 (a fixture)
from tests.test_render_golden import golden_frame
from tests.test_results import read_jsonl

WIN = parse_command({"op": "peg", "track": 0, "points": 121, "kind": "correction"})
WIN_61 = parse_command({"op": "peg", "track": 0, "points": 61, "kind": "correction"})


# --- the panel ------------------------------------------------------------------------
def test_while_a_result_waits_a_track_press_confirms_for_its_side() -> None:
    waiting: list[tuple[int, ...] | None] = [()]
    panel = Panel(tracks=2, signoff=lambda: waiting[0])
    assert panel.overlay() == ViewExtra(signoff=())
    assert press(panel, "track2.plus1", 0.0) == [Confirm(1)]  # at once, nothing pending
    assert panel.pending == (0, 0) and run_until(panel, 5.0) == []
    assert press(panel, "track1.encoder_push", 6.0) == [Confirm(0)]
    assert press(panel, "track1.plus5", 7.0, duration=1.2) == [Confirm(0), Undo()]  # held: undo
    waiting[0] = None  # settled: the buttons enter points again
    press(panel, "track1.plus5", 10.0)
    assert run_until(panel, 20.0) == [Peg(0, 5)]
    assert panel.overlay().signoff is None


def test_the_engine_says_which_sides_a_waiting_result_has_been_confirmed_by() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free", "confirm_result": True})
    assert keeper.waiting_signoff() is None  # not over
    keeper.apply(WIN)
    assert keeper.waiting_signoff() == ()
    keeper.apply(Confirm(1))
    assert keeper.waiting_signoff() == (1,)
    keeper.apply(Confirm(0))
    assert keeper.waiting_signoff() is None  # settled: nothing waits
    plain = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    plain.apply(WIN)
    assert plain.waiting_signoff() is None  # no confirmation asked


def test_the_gesture_table_says_how_to_confirm_a_result() -> None:
    meanings = dict(GESTURES)
    assert "confirm" in meanings["track button at game end"]


# --- the sign -------------------------------------------------------------------------
def _signoff_view(confirmed: list[int]) -> BoardView:
    return BoardView(
        121,
        (TrackView("Ann", 121, 115), TrackView("Bo", 90, 84)),
        phase="over",
        winner=0,
        over_at=0.0,
        dealer=1,
        extra=ViewExtra(signoff=tuple(confirmed)),
    )


def test_golden_frame_of_a_result_waiting_for_one_side() -> None:
    layout = builtin_layout("two-121")
    renderer = OverlayRenderer(Renderer(layout), layout)
    view, now = _signoff_view([1]), 60.1  # Bo confirmed, Ann awaited; the blink's "on" step
    frame = renderer.render(view, now)
    stored, differences = golden_frame(
        "frame-sign-signoff.json", "two-121", layout, view, now, frame
    )
    assert view_from_dict(stored["view"]) == view
    assert stored["view"]["extra"]["signoff"] == [1]
    assert not differences, "\n".join(differences)
    ann, bo = layout.led_of(0, 0), layout.led_of(1, 0)
    assert bytes(pixel(frame, ann)) == GREEN and bytes(pixel(frame, bo)) == GREEN
    off = renderer.render(view, 60.3)  # the "off" step: the awaited side's hole is dark
    assert bytes(pixel(off, ann)) != GREEN and bytes(pixel(off, bo)) == GREEN
    assert renderer.next_change(view, 60.1) == pytest.approx(60.25)
    everyone = _signoff_view([0, 1])
    assert renderer.next_change(everyone, 60.1) is None  # nothing blinks: all steady
    assert all(bytes(pixel(renderer.render(everyone, 60.3), led)) == GREEN for led in (ann, bo))
    plain = replace(_signoff_view([]), extra=ViewExtra())
    assert bytes(pixel(renderer.render(plain, 60.1), ann)) != GREEN  # no sign without a wait


def test_a_refusal_sign_is_not_hidden_by_the_signoff_sign() -> None:
    layout = builtin_layout("two-121")
    renderer = OverlayRenderer(Renderer(layout), layout)
    view = _signoff_view([1])
    reason = "Bo has already confirmed the result"
    extra = replace(view.extra, refusal=Refusal.OTHER, refused=reason)
    view = replace(view, extra=extra)
    frame = renderer.render(view, 60.1)
    assert bytes(pixel(frame, layout.led_of(1, 0))) != GREEN


# --- a game to its end through mock pins, signed off, exported ---------------------------
def test_a_game_played_and_signed_off_with_the_buttons_exports_the_confirmation(
    tmp_path: Path,
    zero2w: MockFactory,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    journal = tmp_path / "journal.sqlite"
    keeper = Scorekeeper.open(
        journal,
        setup={
            "variant": "six-card",
            "mode": "free",
            "names": ["Ann", "Bo"],
            "confirm_result": True,
        },
    )
    board = Board(zero2w, keeper=keeper)
    try:
        t = 0.0

        def enter(track: int, fives: int, ones: int = 0) -> None:
            nonlocal t
            for name, count in ((f"track{track}.plus5", fives), (f"track{track}.plus1", ones)):
                for _ in range(count):
                    board.short(name, t, 0.1)
                    t += 0.3
            board.short(f"track{track}.encoder_push", t, 0.1)
            t += 0.5

        for _ in range(6):  # Ann 20s to 120, Bo 15s to 90
            enter(1, 4)
            enter(2, 3)
        enter(1, 0, 1)  # the winning point
        status = keeper.status()
        assert (status["winner"], status["confirmed"]) == (0, [])
        assert board.loop.view().extra.signoff == ()
        board.short("menu", t, 0.1)  # next is refused: the result waits
        assert keeper.status()["winner"] == 0
        assert "waits for Ann, Bo" in board.loop.view().extra.refused
        t += 6.0  # the refusal's sign has gone (it covers the sign-off while it shows)
        board.short("track2.plus1", t, 0.1)  # Bo signs off
        t += 0.5
        assert keeper.status()["confirmed"] == [1]
        assert board.loop.view().extra.signoff == (1,)
        layout = builtin_layout("two-121")
        frame = board.loop.frame
        assert frame is not None and bytes(pixel(frame, layout.led_of(1, 0))) == GREEN
        board.short("track1.plus5", t, 0.1)  # Ann signs off: settled
        t += 0.5
        assert keeper.status()["confirmed"] == [0, 1]
        assert board.loop.view().extra.signoff is None
        board.advance(t + 10.0)
        assert keeper.status()["tracks"][0]["front"] == 121  # no stray peg from the presses
    finally:
        board.close()
        keeper.close()
    assert main(["results", "--csv", "--journal", str(journal), "--board-id", "b"]) == 0
    (row,) = read_csv(io.StringIO(capsys.readouterr().out))
    assert (row.winner, row.scores, row.confirm, row.confirmed, row.final) == (
        0,
        (121, 90),
        True,
        (0, 1),
        True,
    )
    assert main(["results", "--jsonl", "--journal", str(journal), "--board-id", "b"]) == 0
    (line,) = read_jsonl(io.StringIO(capsys.readouterr().out))
    assert line.confirmed == (0, 1) and line.final


def test_the_running_service_takes_the_signoff_from_the_pins(
    tmp_path: Path, mock_factory: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    config = parse_config({**FAST, "game": {"mode": "free", "target": 61, "confirm_result": True}})
    rig = Rig(tmp_path, mock_factory, config, RecordingLink())
    try:
        # the game's end as any client enters it, then the sign-off from the pins
        rig.loop.post(Call(lambda: rig.loop.dispatcher.execute(WIN_61)))
        rig.wait_for(lambda: rig.status()["winner"] == 0)
        assert rig.loop.view().extra.signoff == ()
        rig.press("track2.plus1")
        rig.wait_for(lambda: rig.status()["confirmed"] == [1])
        rig.press("track1.plus1")
        rig.wait_for(lambda: rig.status()["confirmed"] == [0, 1])
        rig.press("menu")  # settled: the next game
        rig.wait_for(lambda: rig.status()["winner"] is None)
    finally:
        rig.close()
    capsys.readouterr()
    assert main(["results", "--jsonl", "--journal", str(rig.board.journal)]) == 0
    (result,) = read_jsonl(io.StringIO(capsys.readouterr().out))
    assert (result.scores[0], result.confirmed, result.final) == (61, (0, 1), True)
