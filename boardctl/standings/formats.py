"""The standings, schedule and bracket as a text table, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, astuple, fields
from typing import Any

from boardctl.standings.bracket import Match
from boardctl.standings.roundrobin import Round
from boardctl.standings.table import Row
from boardctl.standings.verify import Apart

COLUMNS = tuple(f.name for f in fields(Row))
HEADINGS = ("#", "Player", "G", "W", "L", "GP", "Spread", "Sk+", "Sk-")
JSON_FORMAT = 1


def table(rows: Sequence[Row]) -> str:
    """A fixed-width table, one player a line."""
    cells = [HEADINGS] + [tuple(_cell(getattr(row, c), c) for c in COLUMNS) for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(COLUMNS))]
    out = []
    for line in cells:
        parts = [
            cell.ljust(widths[i]) if i == 1 else cell.rjust(widths[i])
            for i, cell in enumerate(line)
        ]
        out.append("  ".join(parts).rstrip())
    return "\n".join(out)


def _cell(value: Any, column: str) -> str:
    return f"+{value}" if column == "spread" and value > 0 else str(value)


def csv_text(rows: Sequence[Row]) -> str:
    """CSV with a header row (the :data:`COLUMNS`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(map(astuple, rows))
    return buffer.getvalue()


def json_text(
    rows: Sequence[Row],
    *,
    games: int,
    bracket: Sequence[Sequence[Match]] | None = None,
    apart: Sequence[Apart] = (),
) -> str:
    """The standings (and the bracket, if any) as one JSON document for a web page."""
    document: dict[str, Any] = {
        "format": JSON_FORMAT,
        "games": games,
        "standings": [asdict(row) for row in rows],
    }
    if bracket is not None:
        document["bracket"] = [[asdict(m) for m in r] for r in bracket]
    document["apart"] = [a.to_dict() for a in apart]
    return json.dumps(document, indent=2, ensure_ascii=False)


def schedule_text(rounds: Sequence[Round]) -> str:
    lines = []
    for r in rounds:
        lines.append(f"Round {r.number}" + (f"  (bye: {r.bye})" if r.bye else ""))
        for g in r.games:
            wave = f"wave {g.wave}, " if any(x.wave > 1 for x in r.games) else ""
            lines.append(f"  {wave}board {g.board}: {g.first} v {g.second}")
    return "\n".join(lines)


def bracket_text(rounds: Sequence[Sequence[Match]], best_of: int) -> str:
    lines = []
    for number, matches in enumerate(rounds, 1):
        title = "Final" if number == len(rounds) else f"Round {number}"
        lines.append(f"{title} (best of {best_of})")
        for m in matches:
            score = f"  {m.first_wins}-{m.second_wins}" if m.first_wins or m.second_wins else ""
            through = f"  -> {m.winner}" if m.winner else ""
            lines.append(f"  {m.first or '?'} v {m.second or '?'}{score}{through}")
    return "\n".join(lines)


def apart_text(apart: Sequence[Apart]) -> str:
    """The results not counted, one a line with the reason."""
    lines = ["Not counted:"]
    for a in apart:
        g = a.game
        scores = "-".join(map(str, g.scores))
        lines.append(f"  {g.board} {g.id}: {' v '.join(g.names)} {scores}: {a.reason}")
    return "\n".join(lines)
