"""Match formats: one game, first to N game points, or best of N games.

*Best of N* is won by the first track to win more than half of N games
(``wins_needed``), whatever the skunks: each game counts one toward the
match, and a triple skunk does not end it outright. The board's game-point
LEDs then show games won out of the wins needed. *To N points* counts the
preset's game points, as before.

On the command line and in ``set match``: ``0`` or ``single`` (one game),
``N`` or ``points-N`` (first to N game points), ``best-of-N``.
"""

from __future__ import annotations

import re
from typing import Any

from boardctl.errors import EntryError

MAX_GAMES = 99
_BEST_OF = re.compile(r"best-?of-?(\d+)", re.IGNORECASE)
_POINTS = re.compile(r"(?:points-?)?(\d+)", re.IGNORECASE)


def wins_needed(best_of: int) -> int:
    """Games a track must win to take a best-of-``best_of`` match (more than half)."""
    return best_of // 2 + 1


def check_best_of(value: Any) -> int:
    """Validate a best-of length in games (0 = the match is counted in game points)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_GAMES:
        raise EntryError(f"best_of must be 0 or the number of games (1-{MAX_GAMES}), not {value!r}")
    return value


def parse_match(value: Any) -> dict[str, int]:
    """A match setting as command fields: ``{"match": N}`` or ``{"best_of": N}``.

    Takes a whole number (game points, 0 = one game) or text: ``single``,
    ``N``, ``points-N``, ``best-of-N``.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return {"match": value}
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("single", "one", "none"):
            return {"match": 0}
        found = _BEST_OF.fullmatch(text)
        if found:
            return {"best_of": int(found.group(1))}
        found = _POINTS.fullmatch(text)
        if found:
            return {"match": int(found.group(1))}
    raise EntryError(
        f"match must be 0 or single (one game), N or points-N (first to N game points) "
        f"or best-of-N (games), not {value!r}"
    )


def match_text(match: int, best_of: int) -> str:
    """``single``, ``points:N`` or ``best-of:N`` (the ``match_format`` of a result)."""
    if best_of:
        return f"best-of:{best_of}"
    return "single" if match == 0 else f"points:{match}"
