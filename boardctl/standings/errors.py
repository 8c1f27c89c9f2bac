"""The errors of ``boardctl standings``."""

from __future__ import annotations

from boardctl.errors import BoardError


class StandingsError(BoardError, ValueError):
    """A result, schedule or bracket request that cannot be used (says why)."""
