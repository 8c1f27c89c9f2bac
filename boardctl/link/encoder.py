"""Host side of the protocol: which message carries each new frame.

Pure bookkeeping, no I/O: remembers what the controller has, sends a DELTA when it is
smaller than a FULL frame, and a FULL frame when one is due (first frame, after a
reconnect, a controller HELLO or NAK, and every ``full_every`` seconds).
"""

from __future__ import annotations

from boardctl.board.frame import changed_runs
from boardctl.link import protocol


class FrameEncoder:
    """Wire bytes for each message the host sends, with its own sequence numbers."""

    def __init__(self, *, full_every: float = 10.0) -> None:
        self.full_every = full_every
        self.seq = 0
        self.device_frame: bytes | None = None  # what the controller shows, as far as we know
        self.last_full = float("-inf")

    def _encode(self, kind: int, payload: bytes) -> bytes:
        wire = protocol.encode(kind, self.seq, payload)
        self.seq = (self.seq + 1) & 0xFF
        return wire

    def invalidate(self) -> None:
        """Forget what the controller shows: the next frame goes out in full."""
        self.device_frame = None

    def hello(self, led_count: int, version: tuple[int, int, int] = (0, 1, 0)) -> bytes:
        """Our HELLO: protocol version, boardctl version, the LED count of our frames."""
        return self._encode(
            protocol.HELLO,
            protocol.hello_payload(protocol.PROTOCOL_VERSION, version, led_count, "RGB"),
        )

    def full(self, frame: bytes, now: float) -> bytes:
        """A FULL message for ``frame``."""
        self.device_frame = frame
        self.last_full = now
        return self._encode(protocol.FULL, frame)

    def frame(self, frame: bytes, now: float) -> bytes:
        """The smallest message bringing the controller to ``frame`` (b"" if it has it)."""
        old = self.device_frame
        if old is None or len(old) != len(frame) or now - self.last_full >= self.full_every:
            return self.full(frame, now)
        if old == frame:
            return b""
        payload = protocol.delta_payload(changed_runs(old, frame))
        if len(payload) >= len(frame):
            return self.full(frame, now)
        self.device_frame = frame
        return self._encode(protocol.DELTA, payload)

    def brightness(self, level: int, budget_ma: int = 0, led_ma: int = 60) -> bytes:
        """A BRIGHTNESS message."""
        return self._encode(
            protocol.BRIGHTNESS, protocol.brightness_payload(level, budget_ma, led_ma)
        )

    def ping(self, token: int) -> bytes:
        """A PING (heartbeat) message."""
        return self._encode(protocol.PING, protocol.ping_payload(token))

    def tone(self, level: int, steps: list[tuple[int, int]]) -> bytes:
        """A TONE message for the controller's buzzer."""
        return self._encode(protocol.TONE, protocol.tone_payload(level, steps))
