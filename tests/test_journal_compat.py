"""A journal written by boardctl 0.1 opens and replays to the same state today.

``tests/data/journal_v0_1/`` holds a journal made by ``make.py`` with the 0.1
scorekeeper (every command and entry kind, undo and redo, settings, new
games, a won match) and the status, board view and history it showed then.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from boardctl.board.viewjson import view_to_dict
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper

DATA = Path(__file__).parent / "data" / "journal_v0_1"


def _expected() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / "expected.json").read_text())
    return data


def _seen(keeper: Scorekeeper) -> dict[str, Any]:
    """What the keeper shows, as 0.1 wrote it down: fields added since are left out
    (every field 0.1 had must be there with the same value)."""
    history = keeper.history(all_games=True)
    for row in history:
        del row["at"], row["time"]
    # through JSON, as expected.json was written (tuples become lists)
    seen: dict[str, Any] = json.loads(
        json.dumps(
            {"status": keeper.status(), "view": view_to_dict(keeper.view()), "history": history}
        )
    )
    known: dict[str, Any] = _as_known(seen, _expected())
    return known


def _as_known(seen: Any, known: Any) -> Any:
    """``seen`` with only the keys ``known`` has, at every level (fields added since 0.1 go)."""
    if isinstance(seen, dict) and isinstance(known, dict):
        return {k: _as_known(v, known[k]) for k, v in seen.items() if k in known}
    if isinstance(seen, list) and isinstance(known, list) and len(seen) == len(known):
        return [_as_known(a, b) for a, b in zip(seen, known, strict=True)]
    return seen


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    copy = tmp_path / "journal.sqlite"
    shutil.copyfile(DATA / "journal.sqlite", copy)
    return copy


@pytest.mark.parametrize("full_replay", [False, True], ids=["snapshot", "full"])
def test_old_journal_replays_to_the_same_state(journal: Path, full_replay: bool) -> None:
    with Scorekeeper.open(journal, full_replay=full_replay) as keeper:
        assert _seen(keeper) == _expected()


def test_old_journal_read_only(journal: Path) -> None:
    with Scorekeeper.open(journal, readonly=True) as keeper:
        seen = _seen(keeper)
    assert seen["status"]["seq"] == 71
    assert seen == _expected()


def test_old_journal_takes_new_entries(journal: Path) -> None:
    """The resumed game goes on: redo brings back the undone count, then seat 3's is due."""
    with Scorekeeper.open(journal) as keeper:
        keeper.apply(parse_command({"op": "redo"}))
        result = keeper.apply(parse_command({"op": "peg", "track": 0, "points": 4}))
        assert result["seq"] == 73
        assert [t["front"] for t in keeper.status()["tracks"]] == [13, 12]
        assert keeper.status()["counting_seat"] == 3
    with Scorekeeper.open(journal, full_replay=True) as keeper:
        assert [t["front"] for t in keeper.status()["tracks"]] == [13, 12]


def test_fixture_covers_every_command_and_kind() -> None:
    """The fixture stays varied: every op and every entry kind is in it."""
    events = [row["event"] for row in _expected()["history"]]
    assert {e["op"] for e in events} == {"new_game", "cut", "peg", "undo", "redo", "next", "set"}
    kinds = {e["kind"] for e in events if e["op"] == "peg"}
    assert kinds == {"pegging", "hand", "crib", "heels", "muggins", "correction", "last"}
    keys = {e["key"] for e in events if e["op"] == "set"}
    assert keys == {"mode", "muggins", "preset", "points", "match", "target", "names"}
