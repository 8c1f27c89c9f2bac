"""Software debounce for one button, with an explicit clock (docs/service.md, "1. Buttons").

The first edge after a quiet line counts at once; edges within ``lockout`` seconds are chatter,
settled once the line stays quiet for ``lockout``: a bounce never counts twice.

>>> d = Debouncer(0.02)
>>> d.edge(True, 0.000), d.edge(False, 0.001), d.edge(True, 0.002)
([(True, 0.0)], [], [])
>>> d.pressed, d.deadline()  # chatter ended pressed: nothing to settle
(True, None)
"""

from __future__ import annotations

Transition = tuple[bool, float]  # (pressed, time)


class Debouncer:
    """Clean press/release transitions from raw edges of one contact."""

    __slots__ = ("_last_accept", "_last_edge", "_raw", "lockout", "pressed")

    def __init__(self, lockout: float) -> None:
        self.lockout = lockout
        self.pressed = False  # the debounced level
        self._raw = False
        self._last_edge = float("-inf")
        self._last_accept = float("-inf")

    def edge(self, pressed: bool, t: float) -> list[Transition]:
        """A raw edge to ``pressed`` at time ``t``; returns the accepted transitions."""
        out: list[Transition] = []
        due = self.deadline()
        if due is not None and t >= due:
            # the line had settled before this edge and no poll ran in time: take it then
            out += self._accept(due)
        quiet = t - self._last_edge >= self.lockout and t - self._last_accept >= self.lockout
        self._raw = pressed
        self._last_edge = t
        if pressed != self.pressed and quiet:
            out += self._accept(t)
        return out

    def deadline(self) -> float | None:
        """When :meth:`poll` must run to settle a level, or None."""
        if self._raw == self.pressed:
            return None
        return max(self._last_edge, self._last_accept) + self.lockout

    def poll(self, t: float) -> list[Transition]:
        """Settle the level if the line has been quiet long enough by ``t`` (every edge up to
        ``t`` must have been passed first)."""
        due = self.deadline()
        return self._accept(t) if due is not None and t >= due else []

    def _accept(self, t: float) -> list[Transition]:
        self.pressed = self._raw
        self._last_accept = t
        return [(self.pressed, t)]
