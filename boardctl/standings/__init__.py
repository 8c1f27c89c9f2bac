"""Standings for a tournament director: ACC ranking, round robin, cut and play-off bracket.

Pure functions over result records (the bridge's result messages, or games
entered by hand): :mod:`.games` reads a record, :mod:`.table` ranks players,
:mod:`.roundrobin` draws a schedule, :mod:`.bracket` makes the cut and the
play-off bracket, :mod:`.formats` prints them. Only :mod:`.collect` (the broker)
and :mod:`.by_hand` (games entered by hand) touch the world.
"""

from boardctl.errors import BoardError


class StandingsError(BoardError, ValueError):
    """A result, schedule or bracket request that cannot be used (says why)."""
