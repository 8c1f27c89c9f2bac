"""The results fold counts refiled, undone and redone entries as the game that stands has them."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cli import main
from boardctl.errors import EntryError
from boardctl.game.commands import Command, NewGame, Peg, Refile, parse_command
from boardctl.game.machine import Machine
from boardctl.results.derive import GameFold
from boardctl.store.journal import Journal
from tests.test_game_replay import apply
from tools.random_player import random_command

#: (track, kind, points) of each entry that stands.
Ledger = tuple[tuple[int, str, int], ...]


def play(variant: str, seed: int) -> tuple[list[dict[str, Any]], Machine, Ledger, int]:
    """A won guided game with random slips, refiles, undos, redos, muggins and corrections.

    Beside the engine, an independent ledger of the entries that stand is kept with
    its own undo and redo stacks of whole snapshots. Returns the events, the machine,
    the ledger and how many refiles changed a kind.
    """
    rng = random.Random(seed)
    machine = Machine()
    events = [
        apply(machine, NewGame(variant=variant, mode="guided", match=0, muggins=True)).to_json()
    ]
    ledger: Ledger = ()
    past: list[Ledger] = []
    future: list[Ledger] = []
    refiled = 0
    while machine.state.winner is None:
        state = machine.state
        command: Command
        roll = rng.random()
        if state.ask is not None and roll < 0.6:
            command = Refile()
        elif roll < 0.04:  # a muggins claim, or a correction of a miscount
            kind = rng.choice(("muggins", "correction"))
            command = Peg(rng.randrange(len(state.tracks)), rng.choice((-2, 1, 2, 4)), kind)
        else:
            command = random_command(state, rng)
        try:
            plan = machine.plan(command)
        except EntryError:
            continue
        machine.commit(plan)
        event = plan.event
        events.append(event.to_json())
        if plan.move == "undo":
            future.append(ledger)
            ledger = past.pop()
            continue
        if plan.move == "redo":
            past.append(ledger)
            ledger = future.pop()
            continue
        past.append(ledger)
        future.clear()
        if isinstance(event, Peg):
            assert event.points is not None and event.kind is not None
            ledger = (*ledger, (event.track, event.kind, event.points))
        elif isinstance(event, Refile) and state.ask is not None and event.kind != state.ask.kind:
            assert event.kind is not None
            ledger = (*ledger[:-1], (state.ask.track, event.kind, state.ask.points))
            refiled += 1
        for track, (old, new) in enumerate(zip(state.tracks, machine.state.tracks, strict=True)):
            if not isinstance(event, Peg) and new.front != old.front:
                ledger = (*ledger, (track, "start", new.front - old.front))  # three for last
    return events, machine, ledger, refiled


def totals(entries: Any) -> Counter[tuple[int, str]]:
    out: Counter[tuple[int, str]] = Counter()
    for track, kind, points in entries:
        out[track, kind] += points
    return out


@settings(max_examples=60, deadline=None)
@given(
    variant=st.sampled_from(("six-card", "five-card", "three-player", "four-player")),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_folds_totals_by_track_and_kind_equal_the_replayed_games(
    variant: str, seed: int
) -> None:
    events, machine, ledger, _ = play(variant, seed)
    rows = [(seq, float(seq), event, 0) for seq, event in enumerate(events, start=1)]
    (game,) = GameFold(board="t", rows=rows).games()
    folded = totals((e.track, e.kind, e.points) for e in game.entries)
    standing = totals(ledger)
    assert folded == Counter({key: p for key, p in standing.items() if key[1] != "start"})
    target = machine.state.setup.target
    for track, front in enumerate(t.front for t in machine.state.tracks):
        # the winner's peg stops in the game hole
        assert min(sum(p for (t, _), p in standing.items() if t == track), target) == front
    assert game.result.scores == tuple(t.front for t in machine.state.tracks)


def test_random_games_refile_and_claim_muggins_often_enough_to_matter() -> None:
    games = [play("six-card", seed) for seed in range(20)]
    assert sum(refiled for _, _, _, refiled in games) >= 10
    assert sum(kind == "muggins" for _, _, ledger, _ in games for _, kind, _ in ledger) >= 10


def journal_of(tmp_path: Path, commands: list[dict[str, Any]]) -> Path:
    """A journal file of the events the engine makes of ``commands``."""
    machine = Machine()
    events = [apply(machine, parse_command(command)).to_json() for command in commands]
    path = tmp_path / "journal.sqlite"
    with Journal.open(path) as journal:
        journal.append_all((event, 1_000.0 + n) for n, event in enumerate(events))
    return path


def test_stats_players_counts_a_refiled_entry_as_its_new_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bob's 2 refiled from heels to pegging, and Alice's 4 from pegging to her hand."""
    commands: list[dict[str, Any]] = [
        {"op": "new_game", "variant": "six-card", "mode": "guided", "match": 0},
        {"op": "set", "key": "names", "value": ["Alice", "Bob"]},
        {"op": "cut", "dealer": 1},
        {"op": "peg", "track": 1, "points": 2},  # heels? the board asks
        {"op": "refile"},  # pegging: the press that starts the play was forgotten
        {"op": "peg", "track": 1, "points": 2},
        {"op": "peg", "track": 0, "points": 4},  # pegging? the board asks
        {"op": "refile"},  # Alice's hand: the press that ends the play was forgotten
        {"op": "peg", "track": 1, "points": 8},
        {"op": "peg", "track": 1, "points": 6},
        {"op": "peg", "track": 0, "points": 117, "kind": "correction"},  # Alice wins
    ]
    path = journal_of(tmp_path, commands)
    assert main(["stats", "players", "--journal", str(path), "--json"]) == 0
    players = {p["name"]: p for p in json.loads(capsys.readouterr().out)["players"]}
    alice, bob = players["Alice"], players["Bob"]
    assert alice["hands"] == 1 and alice["average_hand"] == 4.0
    # Bob pegged 2 + 2 over the game's two deals (the second just begun); hand 8, crib 6
    assert bob["deals"] == 2 and bob["average_pegging"] == 2.0 and bob["average_hand"] == 8.0
    assert bob["average_crib"] == 6.0


def test_stats_players_averages_three_card_hands_apart_from_four_card_hands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = {"op": "set", "key": "names", "value": ["Alice", "Bob"]}
    path = journal_of(
        tmp_path,
        [
            {"op": "new_game", "variant": "five-card", "mode": "guided", "match": 0},
            names,
            {"op": "cut", "dealer": 1},
            {"op": "peg", "track": 0, "points": 4, "kind": "hand"},
            {"op": "peg", "track": 0, "points": 54, "kind": "correction"},
            {"op": "new_game", "variant": "six-card", "mode": "guided", "match": 0},
            names,
            {"op": "cut", "dealer": 1},
            {"op": "peg", "track": 0, "points": 12, "kind": "hand"},
            {"op": "peg", "track": 0, "points": 109, "kind": "correction"},
        ],
    )
    assert main(["stats", "players", "--journal", str(path), "--json"]) == 0
    (alice,) = [p for p in json.loads(capsys.readouterr().out)["players"] if p["name"] == "Alice"]
    assert alice["games"] == 2
    assert (alice["hands"], alice["average_hand"]) == (1, 12.0)
    assert (alice["three_card_hands"], alice["average_three_card_hand"]) == (1, 4.0)
    assert main(["stats", "players", "--journal", str(path)]) == 0
    head, alice_row = capsys.readouterr().out.splitlines()[:2]
    assert head.split()[8:10] == ["hand", "hand3"]
    assert alice_row.split()[8:10] == ["12.0", "4.0"]
