"""Standings for a tournament director: ACC ranking, round robin, cut and play-off bracket
(docs/standings.md); pure functions over result records, but :mod:`.collect` and :mod:`.by_hand`."""

from boardctl.errors import BoardError


class StandingsError(BoardError, ValueError):
    """A result, schedule or bracket request that cannot be used (says why)."""
