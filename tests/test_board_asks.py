"""The board asks: an entry that fits both the phase and a forgotten menu press.

The engine files it as the phase says and asks (``status["ask"]``, the white blink
on the LEDs); one press (undo held, ``refile``) files it as the other kind, any
other command keeps it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.board import Renderer, builtin_layout
from boardctl.board.frame import pixel
from boardctl.errors import EntryError
from boardctl.game.commands import Cut, Next, Peg, Redo, Refile, Undo, parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.game.state import GameState
from boardctl.view import Question


def _dealt(dealer: int, variant: str = "six-card") -> Scorekeeper:
    keeper = Scorekeeper.memory({"variant": variant, "mode": "guided"})
    keeper.apply(Cut(dealer))
    return keeper


def _ask(keeper: Scorekeeper) -> object:
    return keeper.status()["ask"]


def test_his_heels_in_the_deal_is_asked_about_and_one_press_makes_it_pegging() -> None:
    keeper = _dealt(1)
    assert keeper.apply(Peg(1, 2))["event"]["kind"] == "heels"
    assert _ask(keeper) == {"track": 1, "points": 2, "kind": "heels", "other": "pegging"}
    event = keeper.apply(Refile())["event"]
    assert event == {"op": "refile", "kind": "pegging", "track": 1, "points": 2}
    status = keeper.status()
    assert status["phase"] == "play" and status["ask"] is None
    assert status["tracks"][1]["front"] == 2  # the points stay where they were
    keeper.apply(Undo())  # undo the refile: filed as heels again, and asked again
    assert keeper.status()["phase"] == "deal" and _ask(keeper) is not None


def test_a_pegging_entry_that_could_be_the_first_count_is_asked_about() -> None:
    keeper = _dealt(1)  # track 2 deals: track 1's hand is counted first
    keeper.apply(Next())
    keeper.apply(Peg(0, 2))
    assert _ask(keeper) is None  # the first entry of a play never ends it (the last card scores)
    keeper.apply(Peg(1, 1))
    assert _ask(keeper) is None  # the dealer's track counts second
    keeper.apply(Peg(0, 12))
    assert _ask(keeper) == {"track": 0, "points": 12, "kind": "pegging", "other": "hand"}
    keeper.apply(Refile())
    status = keeper.status()
    assert status["phase"] == "show" and status["to_count"] == 1 and status["ask"] is None
    pegs = [row["event"] for row in keeper.history() if row["op"] in ("peg", "refile")]
    assert pegs[-1] == {"op": "refile", "kind": "hand", "track": 0, "points": 12}


def test_the_next_command_keeps_the_entry_as_filed() -> None:
    keeper = _dealt(0)
    keeper.apply(Peg(1, 2))  # the pone's first pegging: not asked
    keeper.apply(Peg(1, 3))
    assert _ask(keeper) is not None
    keeper.apply(Peg(0, 1))  # the play goes on: the 3 was pegging
    assert _ask(keeper) is None and keeper.status()["phase"] == "play"
    keeper.apply(Peg(1, 2))
    assert _ask(keeper) is not None
    keeper.apply(Next())  # menu ends the play: the 2 stays pegging
    assert _ask(keeper) is None and keeper.status()["to_count"] == 1
    with pytest.raises(EntryError, match="not asking"):
        keeper.apply(Refile())


def test_no_question_where_the_amount_or_the_kind_tells() -> None:
    keeper = _dealt(1)
    keeper.apply(Next())
    keeper.apply(Peg(0, 2))
    keeper.apply(Peg(0, 19 - 3))  # 16: more than the play can peg, the show's first count
    assert keeper.status()["phase"] == "show" and _ask(keeper) is None
    other = _dealt(1)
    other.apply(Next())
    other.apply(Peg(0, 2))
    other.apply(Peg(0, 4, "hand"))  # a kind given that the phase does not say: not asked
    assert _ask(other) is None
    free = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    free.apply(Peg(0, 2))
    free.apply(Peg(0, 2))
    assert _ask(free) is None


def test_refile_checks_its_kind_and_entry_and_keeping_it_ends_the_question() -> None:
    keeper = _dealt(0)
    keeper.apply(Peg(0, 2))  # the dealer's 2: heels, asked
    with pytest.raises(EntryError, match="heels or pegging, not hand"):
        keeper.apply(Refile("hand"))
    with pytest.raises(EntryError, match="asked about is 2 on track 1"):
        keeper.apply(parse_command({"op": "refile", "track": 1, "points": 2}))
    event = keeper.apply(parse_command({"op": "refile", "kind": "heels"}))["event"]
    assert event["kind"] == "heels" and _ask(keeper) is None
    assert keeper.status()["phase"] == "deal"


def test_a_refile_replays_from_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup={"variant": "six-card", "mode": "guided"}) as keeper:
        keeper.apply(Cut(1))
        keeper.apply(Next())
        keeper.apply(Peg(0, 2))
        keeper.apply(Peg(0, 8))
        keeper.apply(Refile())
        live = keeper.state
    for full in (False, True):
        with Scorekeeper.open(path, readonly=True, full_replay=full) as again:
            assert again.state == live
    assert live.phase == "show" and live.count_index == 1


def test_the_state_with_a_question_round_trips_through_its_snapshot() -> None:
    keeper = _dealt(0)
    keeper.apply(Peg(0, 2))
    state = keeper.state
    assert state.ask == Question(0, 2, "heels", "pegging")
    assert GameState.from_dict(state.to_dict()) == state
    old = state.to_dict()
    del old["ask"], old["pegged"]  # a snapshot written before the question existed
    assert GameState.from_dict(old).ask is None


def test_undo_held_is_the_answer_only_while_the_board_asks_and_nothing_can_be_redone() -> None:
    keeper = _dealt(0)
    keeper.apply(Peg(0, 2))
    assert keeper.button_command(Redo()) == Refile()
    keeper.apply(Refile())
    assert keeper.button_command(Redo()) == Redo()  # nothing asked: redo
    keeper.apply(Undo())  # back to the question, with the refile to redo
    assert _ask(keeper) is not None
    assert keeper.button_command(Redo()) == Redo()


def test_the_sign_lights_the_asked_tracks_start_hole_and_the_status_led_white() -> None:
    keeper = _dealt(1)
    keeper.apply(Peg(1, 2))
    layout = builtin_layout("two-121")
    renderer = Renderer(layout)
    view = keeper.view()
    on = renderer.render(view, now=0.1)
    start = layout.led_of(1, 0)
    assert pixel(on, start) == (255, 255, 255)
    assert layout.status is not None and pixel(on, layout.status) == (255, 255, 255)
    assert pixel(on, layout.led_of(0, 0)) != (255, 255, 255)  # only the asked track's hole
    assert renderer.next_change(view, now=0.1) is None  # steady: nothing animates
    keeper.apply(Refile())
    plain = renderer.render(keeper.view(), now=0.1)
    assert pixel(plain, start) != (255, 255, 255)
