"""An independent recount of game results from a journal file's raw rows (tests only).

It reads the SQLite rows itself (not through boardctl's journal reader),
recomputes the chained CRC-32 with zlib, and keeps the score with its own
undo and redo stacks of plain snapshots. It knows only what the tests play:
the six-card game, the ACC preset (2 a win, 3 a skunk), matches to N points.
"""

from __future__ import annotations

import datetime
import json
import sqlite3
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ACC = {"win": 2, "skunk": 3}


@dataclass
class Snap:
    scores: tuple[int, ...]
    winner: int | None
    won: tuple[int, float] | None
    points: tuple[int, ...]  # match game points
    match_over: bool
    entries: tuple[tuple[int, int, str, int], ...] = ()  # (seq, track, kind, points)


@dataclass
class Oracle:
    results: list[dict[str, Any]] = field(default_factory=list)


def _iso(at: float) -> str:
    moment = datetime.datetime.fromtimestamp(round(at, 3), datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def raw_rows(path: Path) -> list[tuple[int, float, dict[str, Any], int]]:
    """(seq, at, event, chained crc) straight from the file, the chain recomputed here."""
    db = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT seq, at, body, crc FROM events ORDER BY seq").fetchall()
    finally:
        db.close()
    out = []
    crc = 0
    for seq, at, body, stored in rows:
        crc = zlib.crc32(f"{seq}\x1f{at!r}\x1f{body}".encode(), crc)
        assert crc == stored
        out.append((seq, at, json.loads(body), crc))
    return out


def recount(path: Path) -> list[dict[str, Any]]:
    """Every finished game's result, recounted from the raw rows."""
    results: list[dict[str, Any]] = []
    setup: dict[str, Any] = {}
    snap: Snap | None = None
    past: list[Snap] = []
    future: list[Snap] = []
    start: tuple[int, float] = (0, 0.0)
    last: tuple[int, int] = (0, 0)
    match = game = 0

    def close(final: bool) -> None:
        if snap is None or snap.winner is None or snap.won is None:
            return
        w = snap.winner
        loser = max(s for i, s in enumerate(snap.scores) if i != w)
        target = setup["target"]
        results.append(
            {
                "match": match,
                "game": game,
                "names": tuple(setup["names"]),
                "scores": snap.scores,
                "winner": w,
                "spread": snap.scores[w] - loser,
                "skunk": sum(1 for line in (target - 30, target - 60, target - 90)
                             if line > 0 and loser < line),
                "match_points": snap.points,
                "match_winner": w if snap.match_over else None,
                "start": _iso(start[1]),
                "end": _iso(snap.won[1]),
                "first_seq": start[0],
                "won_seq": snap.won[0],
                "seq": last[0],
                "crc": f"{last[1]:08x}",
                "final": final,
                "entries": snap.entries,
            }
        )  # fmt: skip

    for seq, at, event, crc in raw_rows(path):
        op = event["op"]
        if op == "new_game" or (op == "next" and snap is not None and snap.winner is not None):
            close(final=True)
            assert snap is not None or op == "new_game"
            if op == "new_game":
                setup = dict(event)
                setup.setdefault("names", [f"Track {i + 1}" for i in range(setup["players"])])
                match += 1
                game = 1
                points = (0,) * setup["players"]
            else:
                assert snap is not None
                if snap.match_over:
                    match += 1
                    game = 1
                    points = (0,) * len(snap.scores)
                else:
                    game += 1
                    points = snap.points
            snap = Snap((0,) * len(points), None, None, points, False)
            past, future = [], []
            start = (seq, at)
        elif op == "undo":
            assert snap is not None
            future.append(snap)
            snap = past.pop()
        elif op == "redo":
            assert snap is not None
            past.append(snap)
            snap = future.pop()
            if snap.winner is not None:
                snap = Snap(snap.scores, snap.winner, (seq, at), snap.points,
                            snap.match_over, snap.entries)  # fmt: skip
        else:
            assert snap is not None
            past.append(snap)
            future = []
            if op == "peg":
                snap = _peg(snap, event, seq, at, setup)
            elif op == "set" and event["key"] == "names":
                setup["names"] = event["value"]  # (undo of a set is not recounted here)
        last = (seq, crc)
    close(final=False)
    return results


def _peg(snap: Snap, event: dict[str, Any], seq: int, at: float, setup: dict[str, Any]) -> Snap:
    track, points = event["track"], event["points"]
    target = setup["target"]
    scores = list(snap.scores)
    scores[track] = min(scores[track] + points, target)
    entries = (*snap.entries, (seq, track, event["kind"], points))
    if scores[track] < target:
        return Snap(tuple(scores), None, None, snap.points, False, entries)
    loser = max(s for i, s in enumerate(scores) if i != track)
    won = ACC["skunk"] if loser < target - 30 else ACC["win"]
    totals = list(snap.points)
    totals[track] += won
    over = setup["match"] == 0 or totals[track] >= setup["match"]
    return Snap(tuple(scores), track, (seq, at), tuple(totals), over, entries)
