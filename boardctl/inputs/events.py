"""What the inputs tell the service loop: typed events (:class:`Edge`, :class:`Turn`, the keyboard's
whole :class:`Tap`), posted from any thread."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Edge:
    """A raw edge of a button (see :attr:`boardctl.view.ButtonId.name`) at time ``at``."""

    button: str
    pressed: bool
    at: float


@dataclass(frozen=True, slots=True)
class Turn:
    """An encoder on ``track`` turned ``steps`` detents (+ clockwise); ``at`` None = now."""

    track: int
    steps: int
    at: float | None = None


@dataclass(frozen=True, slots=True)
class Tap:
    """A whole press of a button, held short (``hold`` 0), long (1) or very long (2)."""

    button: str
    hold: int = 0


InputEvent = Edge | Turn | Tap
