"""Standings for a tournament director: ACC ranking, round robin, cut and play-off bracket
(docs/standings.md); pure functions over result records, but :mod:`.collect` and :mod:`.by_hand`."""

import os
from pathlib import Path

from boardctl.errors import BoardError

BY = ("entrant", "player")  # a table ranks each track's entrant, or credits every partner
BEST_OF = (3, 5)  # the games a play-off match can be the best of


class StandingsError(BoardError, ValueError):
    """A result, schedule or bracket request that cannot be used (says why)."""


def state_path(name: str) -> Path:
    """``$XDG_STATE_HOME/boardctl/<name>`` (or ``~/.local/state/...``): the director's files."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "boardctl" / name
