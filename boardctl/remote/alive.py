"""Is the connection to the broker moving? An echo through the broker, and a stalled
connection made anew (docs/remote.md, 'What happens in each fault': packets lost). MQTT's own
ping waits behind TCP's backlog like everything else, so a keep-alive sees nothing wrong."""

from __future__ import annotations

ECHO_EVERY = 1.0  # seconds between echoes on a connection that moves
STALLED_AFTER = 1.0  # seconds without the echo: the connection is stalled (at the least)
RTT_TIMES = 4.0  # ... or this many smoothed round trips, where that is longer
RTT_GAIN = 0.125  # the weight of each new round trip in the smoothed one (as TCP's SRTT)


class Echo:
    """When to send the next echo, and whether the connection is stalled (times in seconds)."""

    def __init__(self, every: float = ECHO_EVERY, stalled_after: float = STALLED_AFTER) -> None:
        self.every, self.stalled_after = every, stalled_after
        self.number = 0  # of the echo on the way (0: none)
        self.round_trip = 0.0  # smoothed, seconds (0: none measured yet)
        self._count = 0
        self._sent = self._back = float("-inf")

    def stalled_after_s(self) -> float:
        return max(self.stalled_after, RTT_TIMES * self.round_trip)

    def step(self, now: float, connected: bool) -> str:
        """``"send"`` an echo (numbered :attr:`number`), the connection is ``"stalled"``, or
        ``"wait"``."""
        if not connected:
            self.number = 0
            return "wait"
        if self.number:
            if now - self._sent <= self.stalled_after_s():
                return "wait"
            self.number = 0
            return "stalled"
        if now - self._back < self.every:
            return "wait"
        self._count += 1
        self.number, self._sent = self._count, now
        return "send"

    def echoed(self, number: int, now: float) -> None:
        if number and number == self.number:
            sample = now - self._sent
            smoothed = self.round_trip + RTT_GAIN * (sample - self.round_trip)
            self.round_trip = smoothed if self.round_trip else sample
            self.number, self._back = 0, now
