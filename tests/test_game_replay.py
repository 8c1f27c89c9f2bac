"""Property: for any sequence of entries, replaying the journal gives the live state."""

from __future__ import annotations

import contextlib
import random
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardctl.errors import EntryError
from boardctl.game.commands import Command, parse_command
from boardctl.game.entries import KINDS
from boardctl.game.keeper import Scorekeeper
from boardctl.game.machine import Machine
from tools.random_player import random_command

pegs = st.fixed_dictionaries(
    {
        "op": st.just("peg"),
        "track": st.integers(-1, 3),
        "points": st.integers(-5, 32),
    },
    optional={"kind": st.sampled_from(KINDS)},
)
simple = st.sampled_from(
    [{"op": "undo"}, {"op": "redo"}, {"op": "next"}, {"op": "cut"}, {"op": "cut", "dealer": 1}]
)
settings_changes = st.one_of(
    st.fixed_dictionaries(
        {"op": st.just("set"), "key": st.just("mode"), "value": st.sampled_from(["free", "guided"])}
    ),
    st.fixed_dictionaries(
        {"op": st.just("set"), "key": st.just("muggins"), "value": st.booleans()}
    ),
    st.fixed_dictionaries(
        {
            "op": st.just("set"),
            "key": st.just("preset"),
            "value": st.sampled_from(["acc", "casual", "lurch"]),
        }
    ),
    st.fixed_dictionaries(
        {"op": st.just("set"), "key": st.just("target"), "value": st.sampled_from([61, 121, 45])}
    ),
)
new_games = st.fixed_dictionaries(
    {
        "op": st.just("new_game"),
        "variant": st.sampled_from(["six-card", "five-card", "three-player", "four-player"]),
        "target": st.sampled_from([61, 121]),
        "match": st.integers(0, 5),
        "preset": st.sampled_from(["acc", "casual", "lurch"]),
    }
)
# A "driven" step: a plausible command for whatever the state is then (reaches deep states).
driven = st.integers(0, 2**32 - 1).map(lambda seed: {"driven": seed})
steps = st.lists(
    st.one_of(driven, driven, driven, pegs, simple, settings_changes, new_games),
    min_size=1,
    max_size=80,
)


def _command(keeper: Scorekeeper, step: dict[str, Any]) -> Command:
    if "driven" in step:
        return random_command(keeper.state, random.Random(step["driven"]))
    return parse_command(step)


def apply(machine: Machine, command: Command) -> Command:
    """Validate and apply a command on ``machine``; return the event recorded."""
    plan = machine.plan(command)
    machine.commit(plan)
    return plan.event


def replay(events: Iterable[Command]) -> Machine:
    """Fold ``events`` from a fresh machine (as the journal's replay does)."""
    machine = Machine()
    for event in events:
        apply(machine, event)
    return machine


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=steps, variant=st.sampled_from(["six-card", "five-card", "three-player"]))
def test_replay_of_the_journal_equals_the_live_state(
    steps: list[dict[str, Any]], variant: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.sqlite"
        keeper = Scorekeeper.open(path, setup={"variant": variant}, choose=lambda n: n - 1)
        events = [keeper.history()[0]["event"]]
        for step in steps:
            before = keeper.state
            try:
                events.append(keeper.apply(_command(keeper, step))["event"])
            except EntryError:
                assert keeper.state == before  # a refusal changes nothing
            state = keeper.state
            assert all(0 <= t.back <= t.front <= state.target for t in state.tracks)
        live_machine, live_status = keeper.machine, keeper.status()
        live_history = keeper.history()
        keeper.close()
        with Scorekeeper.open(path, readonly=True) as again:  # from the latest snapshot
            assert again.machine == live_machine
            assert again.status() == live_status
            assert again.history() == live_history
        with Scorekeeper.open(path, readonly=True, full_replay=True) as again:
            assert again.machine == live_machine
            assert again.history() == live_history
        assert replay([parse_command(e) for e in events]) == live_machine


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 300))
def test_undo_all_then_redo_all_is_the_identity(seed: int, count: int) -> None:
    rng = random.Random(seed)
    machine = Machine()
    apply(machine, parse_command({"op": "new_game", "variant": "six-card"}))
    for _ in range(count):
        with contextlib.suppress(EntryError):
            apply(machine, random_command(machine.state, rng, mistakes=0.0))
    end, depth = machine.state, len(machine.past)
    for _ in range(depth):
        apply(machine, parse_command({"op": "undo"}))
    assert not machine.past
    for _ in range(depth):
        apply(machine, parse_command({"op": "redo"}))
    assert machine.state == end
