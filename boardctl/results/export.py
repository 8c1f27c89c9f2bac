"""Results as CSV or JSON lines (docs/results.md, "The format"), and back (:func:`read_rows`):
the stable export of ``boardctl results``."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from json.encoder import encode_basestring
from typing import Any, TextIO

from boardctl.errors import ResultsError
from boardctl.results.model import FIELDS, FORMAT, TYPES, GameResult
from boardctl.view import SKUNK_NAMES


def _json(value: Any) -> str:
    """Compact JSON of a name, a number or a (nested) list of them, as ``json.dumps`` writes
    it with ``ensure_ascii=False``, without its per-call cost."""
    if isinstance(value, str):
        return encode_basestring(value)
    if isinstance(value, tuple | list):
        return f"[{','.join(map(_json, value))}]"
    return str(value)


_WRITERS: dict[str, Any] = dict.fromkeys(("ints", "strs", "teams"), _json)  # lists: as JSON
_WRITERS["bool"] = lambda yes: "true" if yes else "false"
_CELLS = tuple((name, _WRITERS.get(TYPES[name], str)) for name in FIELDS)


def _value(name: str, cell: str) -> Any:
    kind = TYPES[name]
    try:
        if kind in ("int", "int?"):
            return None if cell == "" and kind == "int?" else int(cell)
        if kind == "bool":
            if cell not in ("true", "false"):
                raise ResultsError(f"result column {name}: not true or false: {cell!r}")
            return cell == "true"
        if kind in ("ints", "strs", "teams"):
            return json.loads(cell)
    except ValueError as exc:
        raise ResultsError(f"result column {name}: {exc}") from None
    return cell


def result_row(result: GameResult) -> list[str]:
    """One CSV row (the cells in :data:`FIELDS` order)."""
    return [
        "" if (value := getattr(result, name)) is None else cell(value) for name, cell in _CELLS
    ]


def _line(cells: list[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow(cells)
    return out.getvalue()


assert FIELDS[:2] == ("format", "board")  # the cells before a kept row's text


def row_after_board(result: GameResult) -> str:
    """A result's CSV line after its format and board cells (with its line end): the text
    the journal keeps for it, the same for any board id."""
    return _line(result_row(result)[2:])


def board_cells(board: str) -> str:
    """``1,<board>,``: the format and board cells before a kept row's text (each quoted
    alone)."""
    return _line([str(FORMAT), board, ""])[:-2]


def csv_lines(kept: Iterable[str], results: Iterable[GameResult]) -> Iterator[str]:
    """:func:`write_csv`'s text in pieces of whole lines: the header, the ``kept`` pieces (the
    rows the journal keeps, :func:`~.kept.kept_csv`), then a line for each of ``results``."""
    yield _line(list(FIELDS))
    yield from kept
    for result in results:
        yield _line(result_row(result))


def write_csv(results: Iterable[GameResult], out: TextIO) -> None:
    """The header, then one row per result (RFC 4180 quoting, ``\\r\\n`` line ends)."""
    out.writelines(csv_lines((), results))


def read_csv(text: TextIO) -> Iterator[GameResult]:
    """The results of a CSV export; :class:`ResultsError` for a wrong header or cell."""
    reader = csv.reader(text)
    header = next(reader, None)
    if header is None:
        return
    if tuple(header) != FIELDS:
        raise ResultsError(
            "not a boardctl results CSV of this format: the header must be " + ",".join(FIELDS)
        )
    for number, row in enumerate(reader, start=2):
        if len(row) != len(FIELDS):
            raise ResultsError(f"results CSV line {number}: {len(row)} cells, not {len(FIELDS)}")
        yield GameResult.from_dict(
            {name: _value(name, cell) for name, cell in zip(FIELDS, row, strict=True)}
        )


def write_jsonl(results: Iterable[GameResult], out: TextIO) -> None:
    """One compact JSON object per line."""
    for result in results:
        out.write(json.dumps(result.to_dict(), separators=(",", ":"), ensure_ascii=False))
        out.write("\n")


def numbered_lines(text: str) -> Iterator[tuple[int, str]]:
    """The non-blank lines of JSON-lines ``text``, numbered from 1, split at newlines only
    (``splitlines`` would also split at a U+2028 inside a name)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            yield number, line


def _json_objects(text: str) -> Iterator[dict[str, Any]]:
    """The JSON object on each non-blank line; a line that is not one is an error."""
    for number, line in numbered_lines(text):
        try:
            data = json.loads(line)
        except ValueError as exc:
            raise ResultsError(f"results line {number} is not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ResultsError(f"results line {number} is not a JSON object")
        yield data


def read_rows(text: str) -> list[dict[str, Any]]:
    """The rows of an export or of the broker's records, as data, to verify: JSON lines (with
    a broker's game ``id``) as written, so a verifier checks exactly what it was given."""
    if not text.lstrip().startswith("{"):
        return [result.to_dict() for result in read_csv(io.StringIO(text))]
    return list(_json_objects(text))


def format_table(results: Iterable[GameResult]) -> str:
    """A plain-text table for people: one line per game."""
    lines = []
    for r in results:
        scores = "-".join(str(s) for s in r.scores)
        skunk = f" {SKUNK_NAMES[r.skunk - 1]}" if r.skunk else ""
        flag = "" if r.final else "  (not final)"
        lines.append(
            f"{r.end[:16].replace('T', ' ')}  match {r.match} game {r.game}  "
            f"{' v '.join(r.names)}  {scores}  {r.winner_name} by {r.spread}{skunk}, "
            f"{r.game_points} game point{'s' if r.game_points != 1 else ''}{flag}"
        )
    return "\n".join(lines) if lines else "no finished games"
