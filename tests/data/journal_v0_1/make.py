"""Write ``journal.sqlite`` and ``expected.json`` with boardctl 0.1's scorekeeper.

Run once, with the release whose journals later versions must keep reading:

    python tests/data/journal_v0_1/make.py

It plays a varied match through :class:`Scorekeeper` (every command, every
entry kind, undo, redo, settings, new games, a won match) and stores the
journal with the final ``status()``, board view and history (times left out)
as the expected result. ``tests/test_journal_compat.py`` replays the file with
the current code and compares.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from boardctl.board.viewjson import view_to_dict
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper

HERE = Path(__file__).resolve().parent

COMMANDS: list[dict[str, Any]] = [
    # a guided six-card game with names, a drawn cut (the chooser gives seat 1)
    {"op": "cut"},
    {"op": "peg", "track": 1, "points": 2, "kind": "heels"},
    {"op": "next"},
    {"op": "peg", "track": 0, "points": 2},
    {"op": "peg", "track": 1, "points": 3, "kind": "pegging"},
    {"op": "peg", "track": 0, "points": 1},
    {"op": "undo"},
    {"op": "redo"},
    {"op": "undo"},
    {"op": "peg", "track": 0, "points": 2},
    {"op": "next"},
    {"op": "peg", "track": 0, "points": 8},
    {"op": "peg", "track": 1, "points": 12, "kind": "hand"},
    {"op": "peg", "track": 1, "points": 4, "kind": "crib"},
    {"op": "next"},
    {"op": "peg", "track": 1, "points": 5},
    {"op": "set", "key": "muggins", "value": True},
    {"op": "peg", "track": 0, "points": 4, "kind": "muggins"},
    {"op": "peg", "track": 1, "points": -2, "kind": "correction"},
    {"op": "set", "key": "mode", "value": "free"},
    {"op": "peg", "track": 0, "points": 20},
    {"op": "peg", "track": 1, "points": 24},
    {"op": "peg", "track": 0, "points": 6},
    {"op": "set", "key": "names", "value": ["Ann", "Bob"]},
    {"op": "set", "key": "preset", "value": "casual"},
    {"op": "set", "key": "points", "value": {"win": 2, "skunk": 4}},
    {"op": "set", "key": "match", "value": 5},
    {"op": "set", "key": "mode", "value": "guided"},
    {"op": "peg", "track": 1, "points": 3, "kind": "correction"},
    # win the first game in free mode, then the next game of the match
    {"op": "set", "key": "mode", "value": "free"},
    {"op": "peg", "track": 0, "points": 29},
    {"op": "peg", "track": 0, "points": 29},
    {"op": "peg", "track": 0, "points": 29},
    {"op": "undo"},
    {"op": "redo"},
    {"op": "next"},
    {"op": "set", "key": "target", "value": 61},
    {"op": "peg", "track": 1, "points": 29},
    {"op": "peg", "track": 1, "points": 29},
    {"op": "peg", "track": 1, "points": 5},
    {"op": "next"},
    {"op": "peg", "track": 1, "points": 29},
    {"op": "peg", "track": 1, "points": 29},
    {"op": "peg", "track": 1, "points": 5},
    # the match is won: next starts a new match with the same setup
    {"op": "next"},
    # a five-card game, guided: three for last at the first deal
    {
        "op": "new_game",
        "variant": "five-card",
        "target": 61,
        "mode": "guided",
        "preset": "lurch",
        "match": 0,
        "muggins": False,
        "names": ["Cy", "Di"],
    },
    {"op": "cut", "dealer": 0},
    {"op": "peg", "track": 0, "points": 2, "kind": "heels"},
    {"op": "next"},
    {"op": "peg", "track": 1, "points": 2},
    {"op": "peg", "track": 0, "points": 1},
    {"op": "next"},
    {"op": "peg", "track": 1, "points": 8},
    {"op": "peg", "track": 0, "points": 6},
    {"op": "peg", "track": 0, "points": 2},
    # three for last entered by hand in free mode, a three-player game with a custom preset
    # and a set drawn cut, a four-player game picked by its player count
    {"op": "new_game", "variant": "five-card", "mode": "free", "target": 121},
    {"op": "peg", "track": 0, "points": 3, "kind": "last"},
    {
        "op": "new_game",
        "players": 3,
        "mode": "guided",
        "preset": "custom",
        "points": {"win": 1, "lurch": 3},
    },
    {"op": "cut", "dealer": 2, "drawn": True},
    {"op": "next"},
    {"op": "peg", "track": 2, "points": 4},
    {"op": "new_game", "players": 4},
    {"op": "cut", "dealer": 3},
    {"op": "peg", "track": 1, "points": 2, "kind": "heels"},
    {"op": "next"},
    {"op": "peg", "track": 0, "points": 3},
    {"op": "next"},
    {"op": "peg", "track": 0, "points": 6},
    {"op": "peg", "track": 1, "points": 10},
    {"op": "undo"},
]


def expected(keeper: Scorekeeper) -> dict[str, Any]:
    """What a replay of the journal must give (no wall-clock or monotonic times)."""
    history = keeper.history(all_games=True)
    for row in history:
        del row["at"], row["time"]
    view = view_to_dict(keeper.view())
    return {"status": keeper.status(), "view": view, "history": history}


def main() -> int:
    journal = HERE / "journal.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{journal}{suffix}").unlink(missing_ok=True)
    setup = {"variant": "six-card", "mode": "guided", "preset": "acc"}
    with Scorekeeper.open(journal, setup=setup, choose=lambda n: 1) as keeper:
        for index, command in enumerate(COMMANDS):
            try:
                keeper.apply(parse_command(command))
            except Exception:
                print(f"command {index} {command} refused", keeper.status(), file=sys.stderr)
                raise
    # the reference is what a fresh open of the file shows
    with Scorekeeper.open(journal, readonly=True) as keeper:
        data = expected(keeper)
    for suffix in ("-wal", "-shm"):
        Path(f"{journal}{suffix}").unlink(missing_ok=True)
    (HERE / "expected.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{journal}: {data['status']['seq']} events", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
