"""Why an entry was refused: each refusal class carried from the engine to its own LED sign.

The engine names the class of every refusal it raises (``EntryError.refusal``);
the service puts it in the view (``extra["refusal"]``, the reason in
``extra["refused"]``); the renderer lights that class's sign; the virtual board
prints the reason under the board. Golden frames pin each sign.
"""

from __future__ import annotations

from typing import Any

import pytest

from boardctl.board import Renderer, builtin_layout
from boardctl.board.frame import pixel
from boardctl.board.overlay import OverlayRenderer
from boardctl.board.signs import SIGN_HOLES, SIGN_SECONDS, legend
from boardctl.board.terminal import SCREEN_COLUMNS, draw_board
from boardctl.board.theme import DEFAULT_THEME
from boardctl.board.viewjson import view_from_dict
from boardctl.errors import ConfigError, EntryError, JournalError, refusal_of
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.inputs.events import Tap
from boardctl.inputs.panel import Panel
from boardctl.link import RecordingLink
from boardctl.refusals import MEANINGS, Refusal
from boardctl.service.app import layout_check
from boardctl.service.loop import ServiceLoop
from boardctl.view import BoardView, TrackView, ViewExtra
from tests.test_render_golden import golden_frame

ERROR = bytes(DEFAULT_THEME.error)


def _refused(keeper: Scorekeeper, **command: Any) -> EntryError:
    with pytest.raises(EntryError) as caught:
        keeper.apply(parse_command(command))
    return caught.value


def _guided_show() -> Scorekeeper:
    """A guided six-card game in the show, the non-dealer's hand due."""
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "guided"})
    keeper.apply(parse_command({"op": "cut", "dealer": 1}))
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "next"}))
    return keeper


def test_the_engine_names_the_class_of_each_refusal() -> None:
    keeper = _guided_show()
    assert _refused(keeper, op="peg", track=0, points=19).refusal is Refusal.IMPOSSIBLE
    assert _refused(keeper, op="peg", track=1, points=4).refusal is Refusal.NOT_YOUR_TURN
    assert _refused(keeper, op="peg", track=0, points=4, kind="crib").refusal is (
        Refusal.NOT_YOUR_TURN
    )
    assert _refused(keeper, op="peg", track=5, points=4).refusal is Refusal.NO_SUCH_TRACK
    play = Scorekeeper.memory({"variant": "six-card", "mode": "guided"})
    play.apply(parse_command({"op": "cut", "dealer": 0}))
    play.apply(parse_command({"op": "next"}))
    assert _refused(play, op="peg", track=0, points=40, kind="pegging").refusal is (
        Refusal.TOO_MANY_POINTS
    )
    won = Scorekeeper.memory({"variant": "six-card", "mode": "free", "target": 61})
    won.apply(parse_command({"op": "peg", "track": 0, "points": 61, "kind": "correction"}))
    assert _refused(won, op="peg", track=1, points=2).refusal is Refusal.GAME_OVER
    assert _refused(won, op="peg", track=0, points=2).refusal is Refusal.GAME_OVER


def test_a_refusal_of_no_named_class_is_other_and_a_journal_fault_is_storage() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    assert _refused(keeper, op="redo").refusal is Refusal.OTHER
    assert refusal_of(EntryError("x")) is Refusal.OTHER
    assert refusal_of(JournalError("disk full")) is Refusal.STORAGE
    assert refusal_of(EntryError("x", Refusal.GAME_OVER)) is Refusal.GAME_OVER


def test_the_board_layout_check_refuses_too_many_tracks_as_no_such_track() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    check = layout_check(builtin_layout("two-121"), keeper)
    with pytest.raises(EntryError) as caught:
        check(parse_command({"op": "new_game", "players": 3}))
    assert caught.value.refusal is Refusal.NO_SUCH_TRACK


def test_every_class_has_its_own_sign_and_a_legend_line() -> None:
    assert set(SIGN_HOLES) == set(Refusal)
    assert len(set(SIGN_HOLES.values())) == len(Refusal)  # told apart
    rows = legend()
    assert [row[0] for row in rows] == list(Refusal)
    assert len({row[1] for row in rows}) == len(Refusal)
    assert all(row[2] == MEANINGS[row[0]] for row in rows)
    state = {"target": 121, "tracks": [{"name": "Ann"}]}
    stored = view_from_dict({**state, "extra": {"refusal": "storage"}})
    assert stored.extra.refusal is Refusal.STORAGE
    for wrong in ("nonsense", 3):
        with pytest.raises(ConfigError, match=r"extra\.refusal"):
            view_from_dict({**state, "extra": {"refusal": wrong}})


def _sign_view(refusal: Refusal) -> BoardView:
    return BoardView(
        121,
        (TrackView("Ann", 44, 40), TrackView("Bo", 61, 52)),
        phase="play",
        dealer=1,
        error_at=10.0,
        extra=ViewExtra(refusal=refusal, refused=MEANINGS[refusal]),
    )


@pytest.mark.parametrize("refusal", list(Refusal), ids=[r.value for r in Refusal])
def test_golden_frame_of_each_refusal_sign(refusal: Refusal) -> None:
    layout = builtin_layout("two-121")
    view, now = _sign_view(refusal), 10.1  # the flash's first "on" step
    frame = Renderer(layout).render(view, now)
    stored, differences = golden_frame(
        f"frame-sign-{refusal.value}.json", "two-121", layout, view, now, frame
    )
    assert view_from_dict(stored["view"]) == view
    assert stored["view"]["extra"]["refusal"] == refusal.value
    assert not differences, "\n".join(differences)
    holes = SIGN_HOLES[refusal]
    for track in range(2):
        for hole in range(1, 8):
            shown = bytes(pixel(frame, layout.led_of(track, hole))) == ERROR
            assert shown == (hole <= holes), (refusal, track, hole)


def test_the_sign_stays_after_the_flash_then_goes() -> None:
    layout = builtin_layout("two-121")
    renderer = Renderer(layout)
    view = _sign_view(Refusal.NOT_YOUR_TURN)
    hole2 = layout.led_of(0, 2)
    between = renderer.render(view, 10.0 + 0.3)  # the flash is "off": the sign is still lit
    assert bytes(pixel(between, layout.led_of(0, 0))) != ERROR
    assert bytes(pixel(between, hole2)) == ERROR
    assert renderer.next_change(view, 10.0 + 2.0) == pytest.approx(10.0 + SIGN_SECONDS)
    after = renderer.render(view, 10.0 + SIGN_SECONDS)
    assert not any(pixel(after, hole2))


def _loop(setup: dict[str, Any]) -> tuple[ServiceLoop, list[float]]:
    keeper = Scorekeeper.memory(setup)
    layout = builtin_layout("two-121")
    now = [100.0]
    loop = ServiceLoop(
        keeper,
        OverlayRenderer(Renderer(layout), layout),
        RecordingLink(),
        panel=Panel(tracks=2),
        clock=lambda: now[0],
    )
    return loop, now


def test_a_refused_button_entry_shows_its_class_and_reason_in_the_view() -> None:
    loop, now = _loop({"variant": "six-card", "mode": "guided"})
    loop.start()
    for name in ("track2.plus1",):  # track 2 deals
        loop.post(Tap(name))
    loop.run_once(max_wait=0)
    now[0] += 2
    loop.run_once(max_wait=0)
    for _ in range(2):
        loop.post(Tap("menu"))  # to the play, to the show: track 1's hand is due
    loop.run_once(max_wait=0)
    loop.post(Tap("track2.plus5"))  # the dealer tries to count first
    loop.run_once(max_wait=0)
    now[0] += 2
    loop.run_once(max_wait=0)
    view = loop.view()
    assert view.extra.refusal == "not_your_turn"
    assert "counts first" in view.extra.refused
    frame = loop.frame
    assert frame is not None
    layout = builtin_layout("two-121")
    assert bytes(pixel(frame, layout.led_of(1, 2))) == ERROR
    text = draw_board(view, frame, layout, color="none")
    assert "REFUSED (2 lit)" in text and "counts first" in text
    now[0] += 6  # the refusal is kept five seconds, then leaves the view
    loop.run_once(max_wait=0)
    assert loop.view().extra.refusal is None
    assert "REFUSED" not in draw_board(loop.view(), loop.frame or b"", layout, color="none")
    loop.close()


def test_three_tracks_with_team_names_and_a_long_reason_fit_80x24() -> None:
    layout = builtin_layout("three-121")
    reason = (
        "there is no track 4 (index 3): this game has 3 tracks, 1 (Alice & Carol) to 3 (Cy), "
        "index 0 to 2, and this is a deliberately long reason to wrap"
    )
    view = BoardView(
        121,
        (TrackView("Alice & Carol", 7, 2), TrackView("Bob & Dave", 0), TrackView("Cy", 3)),
        phase="show",
        dealer=0,
        to_count=1,
        match_target=7,
        error_at=0.0,
        extra=ViewExtra(refusal=Refusal.NO_SUCH_TRACK, refused=reason),
    )
    text = draw_board(view, Renderer(layout).render(view, 0.1), layout, color="none")
    rows = text.rstrip("\n").split("\n")
    assert len(rows) <= 23  # one row left for the cursor in 24
    assert max(len(row) for row in rows) <= SCREEN_COLUMNS
    assert rows[-2].startswith("REFUSED (5 lit): there is no track 4")
    assert "Alice & Carol to count" not in rows[0] and "Bob & Dave to count" in rows[0]


def test_the_legend_in_the_docs_is_the_sign_table() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "board.md").read_text(encoding="utf-8")
    for refusal, sign, meaning in legend():
        assert f"| `{refusal.value}` | {sign} | {meaning} |" in text


def test_the_demo_screen_keeps_the_reason_and_a_log_row_in_80x24_with_three_tracks() -> None:
    import io

    from boardctl.demo.display import Board, Pacer, TerminalTable

    table = TerminalTable(io.StringIO(), Pacer(0), Board("three-121"), color="none")
    table.view = BoardView(
        121,
        (TrackView("Alice & Carol", 7, 2), TrackView("Bob", 0), TrackView("Cy", 3)),
        phase="show",
        dealer=0,
        to_count=1,
        error_at=0.0,
        extra=ViewExtra(
            refusal=Refusal.IMPOSSIBLE, refused="19 is not a possible 4-card hand count"
        ),
    )
    table.lines.extend(["one", "two", "the latest line"])
    screen = table.screen(80, 24, now=0.1)
    assert len(screen) <= 23 and all(len(row) <= 80 for row in screen)
    assert any(row.startswith("REFUSED (1 lit): 19 is not a possible") for row in screen)
    assert screen[-1] == "the latest line"


def test_layout_errors_say_how_to_fix_them() -> None:
    from boardctl.board import load_layout
    from boardctl.board.layout import LAYOUT_NAMES
    from boardctl.errors import LayoutError

    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    check = layout_check(builtin_layout("two-121"), keeper)
    with pytest.raises(EntryError, match=r"set board\.layout in the config.*restart the service"):
        check(parse_command({"op": "new_game", "players": 3}))
    with pytest.raises(LayoutError) as caught:
        load_layout("three-12l")
    assert "board.layout" in str(caught.value)
    assert all(name in str(caught.value) for name in LAYOUT_NAMES)
