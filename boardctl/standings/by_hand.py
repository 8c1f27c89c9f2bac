"""Games played on a wooden board, entered by hand: one JSON result record a line, appended
(``board`` as typed, ``wood`` by default; ``id`` a digest: one game once)."""

from __future__ import annotations

import datetime
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from boardctl.game.setup import get_preset
from boardctl.results.export import numbered_lines
from boardctl.standings import StandingsError, state_path
from boardctl.standings.games import Game, from_record
from boardctl.view import lines_failed


def default_path() -> Path:
    return state_path("standings-manual.jsonl")


def parse_entry(text: str) -> tuple[str, int]:
    """``NAME=SCORE`` (e.g. ``Ann=121``) as a name and a score."""
    name, sep, score = text.rpartition("=")
    if not sep or not name.strip() or not score.strip().isdigit():
        raise StandingsError(f"{text!r}: write each player as NAME=SCORE, e.g. Ann=121")
    return name.strip(), int(score)


def manual_game(
    entries: Sequence[tuple[str, int]],
    *,
    target: int = 121,
    board: str = "wood",
    end: str | None = None,
) -> Game:
    """A hand-entered game: the top score wins, ACC game points (3 for a skunk, else 2)."""
    if len(entries) < 2:
        raise StandingsError("a game needs two or more players (NAME=SCORE each)")
    scores = [score for _, score in entries]
    top = max(scores)
    if scores.count(top) != 1 or top != target:
        raise StandingsError(f"exactly one player must have the target score {target}")
    skunk = lines_failed(target, min(s for s in scores if s != top))  # the lowest loser's
    acc = get_preset("acc")  # ACC scoring: 2 for a win, 3 for a skunk (of any depth)
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
    when = end or now.replace("+00:00", "Z")
    record: dict[str, Any] = {
        "board": board,
        "names": [name for name, _ in entries],
        "scores": scores,
        "winner": scores.index(top),
        "game_points": acc.skunk if skunk else acc.win,
        "skunk": skunk,
        "target": target,
        "end": when,
    }
    body = json.dumps(record, sort_keys=True, ensure_ascii=False)
    record["id"] = "manual-" + hashlib.sha256(body.encode()).hexdigest()[:12]
    return from_record(record)


def add(path: Path, game: Game) -> None:
    """Append ``game`` to the file (one durable line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(game.to_record(), ensure_ascii=False, sort_keys=True) + "\n"
    with path.open("a", encoding="utf-8") as file:
        file.write(line)
        file.flush()
        os.fsync(file.fileno())


def load(path: Path, *, missing_ok: bool = True) -> list[Game]:
    """Every game of a JSON-lines file of results (a missing file: none, if ``missing_ok``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return []
        raise StandingsError(f"{path}: no such file of results") from None
    except OSError as exc:
        raise StandingsError(f"{path}: cannot read it ({exc.strerror})") from None
    games = []
    for number, line in numbered_lines(text):
        try:
            record = json.loads(line)
        except ValueError:
            raise StandingsError(f"{path}:{number}: not a JSON result") from None
        try:
            games.append(from_record(record))
        except StandingsError as exc:
            raise StandingsError(f"{path}:{number}: {exc}") from None
    return games
