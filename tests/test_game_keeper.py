"""The Scorekeeper API: apply, view, status, history, rejection leaves state identical."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardctl.errors import EntryError, JournalError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.view import BoardView


class FactsLimits:
    """The published possible counts (FACTS.md): 19, 25, 26, 27 and > 29 impossible."""

    def hand_scores(self, cards: int, *, crib: bool = False) -> frozenset[int]:
        if cards == 4:
            return frozenset(range(30)) - {19, 25, 26, 27}
        return frozenset([*range(16), 20])

    def max_play_points(self) -> int:
        return 14


def test_memory_keeper_plays_and_reports() -> None:
    keeper = Scorekeeper.memory(
        {"variant": "six-card", "names": ["Ann", "Bob"]}, limits=FactsLimits()
    )
    keeper.apply(parse_command({"op": "cut", "dealer": 0}))
    result = keeper.apply(parse_command({"op": "peg", "track": 1, "points": 2, "kind": "pegging"}))
    assert result["ok"] is True
    assert result["event"] == {"op": "peg", "track": 1, "points": 2, "kind": "pegging"}
    status = keeper.status()
    assert status["phase"] == "play"
    assert status["dealer"] == 0
    assert [t["front"] for t in status["tracks"]] == [0, 2]
    view = keeper.view()
    assert isinstance(view, BoardView)
    assert view.tracks[1].name == "Bob"
    assert view.tracks[1].front == 2
    assert [row["op"] for row in keeper.history()] == ["new_game", "cut", "peg"]


def test_rejected_entry_changes_nothing() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card"}, limits=FactsLimits())
    keeper.apply(parse_command({"op": "cut", "dealer": 1}))
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "next"}))
    before_state, before_status = keeper.state, keeper.status()
    for bad in (
        {"op": "peg", "track": 0, "points": 19, "kind": "hand"},
        {"op": "peg", "track": 1, "points": 12, "kind": "hand"},  # dealer counts last
        {"op": "peg", "track": 0, "points": 3, "kind": "pegging"},
        {"op": "peg", "track": 5, "points": 3},
        {"op": "fly"},
    ):
        with pytest.raises(EntryError):
            keeper.apply(parse_command(bad))
        assert keeper.state == before_state
        assert keeper.status() == before_status
    assert keeper.view().error_at is not None


def test_journal_resume_equals_live(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    keeper = Scorekeeper.open(path, setup={"variant": "six-card"}, limits=FactsLimits())
    for command in (
        {"op": "cut", "dealer": 0},
        {"op": "peg", "track": 0, "points": 2, "kind": "heels"},
        {"op": "peg", "track": 1, "points": 3},
        {"op": "undo"},
        {"op": "peg", "track": 1, "points": 4},
    ):
        keeper.apply(parse_command(command))
    live, machine = keeper.state, keeper.machine
    keeper.close()
    with Scorekeeper.open(path, limits=FactsLimits(), readonly=True) as again:
        assert again.state == live
        assert again.machine == machine
        with pytest.raises(JournalError):
            again.apply(parse_command({"op": "undo"}))


def test_default_limits_come_from_the_rules_engine() -> None:
    """The real limits agree with the published facts (impossible 19, 25, 26, 27, > 29)."""
    from boardctl.game.limits import DEFAULT_LIMITS

    facts = FactsLimits()
    for crib in (False, True):
        hand = DEFAULT_LIMITS.hand_scores(4, crib=crib)
        assert hand == facts.hand_scores(4, crib=crib)
        assert not hand & {19, 25, 26, 27} and max(hand) == 29
    assert 0 < DEFAULT_LIMITS.max_play_points() <= 29
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    for impossible in (19, 25, 26, 27, 30):
        with pytest.raises(EntryError, match="not a possible"):
            keeper.apply(
                parse_command({"op": "peg", "track": 0, "points": impossible, "kind": "hand"})
            )
    keeper.apply(parse_command({"op": "peg", "track": 0, "points": 29, "kind": "hand"}))


def test_limits_are_pluggable() -> None:
    class Strict(FactsLimits):
        def max_play_points(self) -> int:
            return 2

    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"}, limits=Strict())
    keeper.apply(parse_command({"op": "peg", "track": 0, "points": 3, "kind": "pegging"}))
    with pytest.raises(EntryError, match="1-3"):
        keeper.apply(parse_command({"op": "peg", "track": 0, "points": 4, "kind": "pegging"}))


def test_warm_up_derives_every_limit_once() -> None:
    from boardctl.game.limits import RulesLimits, warm_up

    limits = RulesLimits()
    warm_up(limits)
    assert limits._max_play == 14
    assert set(limits._hands) == {(3, False), (3, True), (4, False), (4, True)}
    assert 19 not in limits._hands[(4, False)] and 29 in limits._hands[(4, True)]
