"""One deal's counts never share a card: a card named by another count of the deal is refused."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import EntryError
from boardctl.game import JsonValue
from boardctl.game.commands import Command, Cut, Next, Peg, Redo, Refile, Undo, parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.game.machine import Machine
from boardctl.refusals import Refusal

BOB_HAND = ("5H", "TD", "JS", "QC")


def _show(keeper: Scorekeeper) -> Scorekeeper:
    """Alice deals; to the show, Bob's hand due."""
    keeper.apply(Cut(dealer=0))
    keeper.apply(Next())
    keeper.apply(Next())
    return keeper


def _guided(path: Path | None = None) -> Scorekeeper:
    setup: dict[str, JsonValue] = {"variant": "six-card", "names": ["Alice", "Bob"]}
    keeper = Scorekeeper.memory(setup) if path is None else Scorekeeper.open(path, setup=setup)
    return _show(keeper)


def _refused(keeper: Scorekeeper, command: Command, message: str) -> EntryError:
    before = (keeper.state, keeper.history())
    with pytest.raises(EntryError, match=message) as caught:
        keeper.apply(command)
    assert (keeper.state, keeper.history()) == before
    return caught.value


def test_a_card_in_another_count_of_the_deal_is_refused_naming_where_it_is() -> None:
    keeper = _guided()
    keeper.apply(Peg(1, None, cards=BOB_HAND, starter="5S"))
    refused = _refused(
        keeper,
        Peg(0, None, cards=("2H", "3D", "JS", "9C")),
        r"JS is already in Bob's hand \(5H TD JS QC\), counted this deal",
    )
    assert refused.refusal is Refusal.IMPOSSIBLE
    keeper.apply(Peg(0, None, cards=("2H", "3D", "4S", "9C")))
    _refused(keeper, Peg(0, None, cards=("AH", "AD", "KS", "9C")), "9C is already in Alice's hand")
    _refused(keeper, Peg(0, None, cards=("AH", "AD", "KS", "TD")), "TD is already in Bob's hand")
    _refused(keeper, Peg(0, None, cards=("AH", "5S", "KS", "KC")), "5S is this deal's starter")
    crib = keeper.apply(Peg(0, None, cards=("AH", "AD", "KS", "KC")))["event"]
    assert crib["kind"] == "crib" and keeper.state.deal == 2
    assert keeper.state.counted == ()  # a new deal: every card may come again
    keeper.apply(Next())
    keeper.apply(Next())
    assert keeper.apply(Peg(0, None, cards=BOB_HAND, starter="2C"))["event"]["points"] == 9


def test_a_count_by_points_only_names_no_card() -> None:
    keeper = _guided()
    keeper.apply(Peg(1, 6, "hand"))
    keeper.apply(Peg(0, None, cards=BOB_HAND, starter="5S"))
    _refused(keeper, Peg(0, None, cards=("5H", "AD", "KS", "KC")), "5H is already in Alice's hand")


def test_undo_and_redo_take_a_counts_cards_back_and_forth() -> None:
    keeper = _guided()
    keeper.apply(Peg(1, None, cards=BOB_HAND, starter="5S"))
    keeper.apply(Undo())
    keeper.apply(Peg(1, None, cards=("2H", "3D", "4S", "9C"), starter="5S"))
    keeper.apply(Peg(0, None, cards=BOB_HAND))  # Bob's undone hand named them: free again
    keeper.apply(Undo())
    keeper.apply(Undo())
    keeper.apply(Redo())  # Bob's 2H 3D 4S 9C again
    _refused(keeper, Peg(0, None, cards=("2H", "AD", "KS", "KC")), "2H is already in Bob's hand")
    keeper.apply(Redo())  # Alice's 5H TD JS QC again
    _refused(keeper, Peg(0, None, cards=("AH", "AD", "KS", "QC")), "QC is already in Alice's hand")


def test_the_journal_replays_and_resumes_the_deals_cards(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with _guided(path) as keeper:
        keeper.apply(Peg(1, None, cards=BOB_HAND, starter="5S"))
        state = keeper.state
    assert [count.cards for count in state.counted] == [BOB_HAND]
    for full in (False, True):
        with Scorekeeper.open(path, full_replay=full) as again:
            assert again.state == state
            _refused(again, Peg(0, None, cards=("QC", "AD", "KS", "KC")), "QC is already in")
    from boardctl.game.state import GameState

    assert GameState.from_dict(state.to_dict()) == state  # the snapshot form keeps them
    with pytest.raises(EntryError, match="malformed count"):
        GameState.from_dict({**state.to_dict(), "counted": [[1, "hand", "5H"]]})


def test_free_mode_checks_each_count_alone() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    keeper.apply(Peg(0, None, "hand", BOB_HAND, "5S"))
    assert keeper.apply(Peg(1, None, "hand", BOB_HAND, "5S"))["event"]["points"] == 18
    assert keeper.state.counted == ()


# --- the property: whatever is entered, undone, redone or refiled ------------------------

#: Few cards, so that counts often collide.
POOL = ["AH", "2H", "3H", "4H", "5H", "5S", "6C", "7D", "8S", "9C", "TD", "JS"]

COMMANDS = st.one_of(
    st.builds(
        lambda track, cards, starter, kind: Peg(track, None, kind, tuple(cards), starter),
        st.integers(0, 1),
        st.lists(st.sampled_from(POOL), min_size=4, max_size=4, unique=True),
        st.one_of(st.none(), st.sampled_from(POOL)),
        st.sampled_from([None, "hand", "crib"]),
    ),
    st.builds(lambda track, points: Peg(track, points), st.integers(0, 1), st.integers(0, 8)),
    st.builds(
        Peg,
        st.integers(0, 1),
        st.just(None),
        st.just("heels"),
        st.just(None),
        st.sampled_from(["JS", "JD"]),
    ),
    st.just(Next()),
    st.just(Undo()),
    st.just(Redo()),
    st.just(Refile()),
)


def _counts_by_deal(events: Iterable[Command]) -> dict[tuple[int, int, int], list[Peg]]:
    """Replay the journal's events, keeping beside the undo stack which deal each entry was in.

    The effective entries are followed with their own stacks (an undone entry leaves the
    deal, a redone one comes back; an entry refiled as another kind is entered anew, naming
    no card), so this does not read the engine's own record of them.
    """
    machine = Machine()
    done: list[tuple[tuple[int, int, int], Command]] = []
    undone: list[tuple[tuple[int, int, int], Command]] = []
    for event in events:
        state = machine.state
        plan = machine.plan(event)
        machine.commit(plan)
        if plan.move == "undo":
            undone.append(done.pop())
        elif plan.move == "redo":
            done.append(undone.pop())
        elif plan.reset:
            done, undone = [], []
        else:
            if isinstance(event, Refile) and done:  # the entry asked about is the last one
                deal, asked = done[-1]
                if isinstance(asked, Peg) and event.kind != asked.kind:  # refiled anew:
                    done[-1] = (deal, Peg(asked.track, asked.points, event.kind))  # no cards
            done.append(((state.match_number, state.game_number, state.deal), event))
            undone = []
    deals: dict[tuple[int, int, int], list[Peg]] = {}
    for deal, event in done:
        if isinstance(event, Peg) and event.starter is not None:
            deals.setdefault(deal, []).append(event)
    return deals


@settings(max_examples=300, deadline=None)
@given(commands=st.lists(COMMANDS, min_size=1, max_size=40))
def test_no_deals_recorded_counts_ever_share_a_card(commands: list[Command]) -> None:
    keeper = _guided()
    for command in commands:
        with contextlib.suppress(EntryError):  # a refused command changes nothing
            keeper.apply(command)
    rows = keeper.history(all_games=True)
    events = [parse_command(row["event"]) for row in rows]
    for deal, pegs in _counts_by_deal(events).items():
        starters = {peg.starter for peg in pegs}
        assert len(starters) == 1, (deal, pegs)  # one starter per deal
        cards = [card for peg in pegs for card in peg.cards or ()]
        assert len(cards) == len(set(cards)) and not starters & set(cards), (deal, pegs)
