"""A garbled or truncated WAL or database: a clear error or a clean recovery, never a wrong state.

"Clean recovery" means the journal opens with exactly the first N events that
were written (an intact prefix, as after a torn write) and the state is the
replay of those events.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from boardctl.errors import JournalError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.store.journal import Journal
from tests.test_game_replay import replay
from tools.random_player import play_random

EVENTS = 60


def _write(folder: Path, *, keep_wal: bool) -> tuple[Path, list[dict[str, object]]]:
    """A journal of random games; with ``keep_wal`` the copy is taken while the WAL is live."""
    path = folder / "journal.sqlite"
    keeper = Scorekeeper.open(path, setup={"variant": "six-card"})
    play_random(keeper.apply, lambda: keeper.state, random.Random(7), EVENTS * 2)
    events = [row["event"] for row in keeper.history(all_games=True)]
    snapshot = folder / "copy"
    snapshot.mkdir()
    if keep_wal:  # copy while open: the events are still in the WAL, not yet checkpointed
        for suffix in ("", "-wal"):
            shutil.copyfile(f"{path}{suffix}", f"{snapshot / path.name}{suffix}")
        keeper.close()
    else:
        keeper.close()  # the last close checkpoints the WAL into the database
        shutil.copyfile(path, snapshot / path.name)
    return snapshot / path.name, events


def _outcome(
    original: Path, damage: str, rng: random.Random, events: list[dict[str, object]], work: Path
) -> str:
    """Damage a copy, open it; return "error" or "prefix N" (anything else fails the test)."""
    work.mkdir()
    for source in original.parent.iterdir():
        shutil.copyfile(source, work / source.name)
    target = work / (original.name + ("-wal" if damage.startswith("wal") else ""))
    data = bytearray(target.read_bytes())
    if damage.endswith("truncate"):
        data = data[: rng.randrange(len(data))]
    else:
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    target.write_bytes(bytes(data))
    path = work / original.name
    try:
        with Scorekeeper.open(path) as keeper:
            state, seq = keeper.state, keeper.seq
        with Journal.open(path, readonly=True) as journal:
            stored = [record.event for record in journal.records()]
    except JournalError as exc:
        assert str(path) in str(exc) or "journal" in str(exc)
        return "error"
    assert seq == len(stored)
    assert stored == events[: len(stored)], "recovered events are not a prefix of those written"
    assert state == replay([parse_command(e) for e in stored]).state
    return f"prefix {len(stored)}"


@pytest.mark.parametrize(
    ("damage", "keep_wal"),
    [("wal-garble", True), ("wal-truncate", True), ("db-garble", False), ("db-truncate", False)],
)
def test_damage_gives_an_error_or_an_intact_prefix(
    tmp_path: Path, damage: str, keep_wal: bool
) -> None:
    original, events = _write(tmp_path, keep_wal=keep_wal)
    rng = random.Random(damage)
    outcomes = [_outcome(original, damage, rng, events, tmp_path / f"trial{i}") for i in range(40)]
    # Every trial ended in one of the two acceptable ways (checked inside _outcome);
    # and the damage did something: not every trial came back whole.
    assert any(o != f"prefix {len(events)}" for o in outcomes), outcomes
