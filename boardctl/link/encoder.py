"""Host side of the protocol: which message carries each new frame (a DELTA, a FULL or its
chunks: docs/link.md, "What the serial link does"); pure bookkeeping of what the controller has."""

from __future__ import annotations

from boardctl import __version__
from boardctl.board.frame import changed_runs
from boardctl.link import protocol

CHUNK_WAIT = 3.0  # s: how long a FULL in chunks waits for the controller's CHUNKS (3 PINGs)


_MAJOR, _MINOR, _PATCH = (int(part) for part in __version__.split(".")[:3])
BOARDCTL_VERSION = (_MAJOR, _MINOR, _PATCH)  # what our HELLO says we are ("1.2.3": (1, 2, 3))


class FrameEncoder:
    """Wire bytes for each message the host sends, with its own sequence numbers."""

    def __init__(self, *, full_every: float = 10.0, chunk_leds: int = 0) -> None:
        self.full_every = full_every
        self.chunk_leds = chunk_leds  # 0: FULL frames whole
        self.frame_id = 0
        self.chunk_set: tuple[int, list[bytes]] | None = None  # the last FULL sent in chunks
        self.chunk_sent = float("-inf")
        self.chunk_heard = False
        self.chunk_token: int | None = None  # the first PING's after it
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

    def hello(self, led_count: int) -> bytes:
        """Our HELLO: protocol version, boardctl version, the LED count of our frames."""
        payload = protocol.hello_payload(
            protocol.PROTOCOL_VERSION, BOARDCTL_VERSION, led_count, "RGB"
        )
        return self._encode(protocol.HELLO, payload)

    def full(self, frame: bytes, now: float) -> bytes:
        """A FULL message for ``frame`` (or its FULL_CHUNK messages)."""
        self.device_frame = frame
        self.last_full = now
        if self.chunk_leds <= 0 or not frame:
            self.chunk_set = None
            return self._encode(protocol.FULL, frame)
        self.frame_id = (self.frame_id + 1) & 0xFF
        payloads = protocol.full_chunks(self.frame_id, frame, self.chunk_leds)
        self.chunk_set = (self.frame_id, payloads)
        self.chunk_sent = now
        self.chunk_heard = False  # a CHUNKS about it came back
        self.chunk_token = None
        return b"".join(self._encode(protocol.FULL_CHUNK, payload) for payload in payloads)

    def chunks_pending(self, now: float) -> bool:
        """A FULL in chunks, not known complete, went out (or was asked about) under
        CHUNK_WAIT ago: the controller's CHUNKS will say what it missed."""
        return self.chunk_set is not None and now - self.chunk_sent < CHUNK_WAIT

    def resend_chunks(self, frame_id: int, missing: list[int], now: float) -> bytes:
        """The chunks of the last chunked FULL the controller missed (b"" when a DELTA or another
        frame followed it: only a FULL helps); the controller waits another CHUNK_WAIT."""
        if self.chunk_set is None or self.chunk_set[0] != frame_id:
            return b""
        self.chunk_sent = now
        self.chunk_heard = True
        payloads = self.chunk_set[1]
        return b"".join(
            self._encode(protocol.FULL_CHUNK, payloads[i]) for i in missing if i < len(payloads)
        )

    def chunks_done(self, frame_id: int) -> None:
        """The controller has every chunk of ``frame_id`` (CHUNKS with none missing)."""
        if self.chunk_set is not None and self.chunk_set[0] == frame_id:
            self.chunk_set = None

    def unheard(self, token: int) -> bool:
        """A PONG to the first PING after a chunked FULL, without a CHUNKS before it: the controller
        got none of the chunks, so only a FULL again helps."""
        return self.chunk_set is not None and self.chunk_token == token and not self.chunk_heard

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
        self.chunk_set = None  # (a resent chunk would now restart that frame: no more)
        return self._encode(protocol.DELTA, payload)

    def brightness(self, level: int, budget_ma: int, led_ma: int) -> bytes:
        return self._encode(
            protocol.BRIGHTNESS, protocol.brightness_payload(level, budget_ma, led_ma)
        )

    def ping(self, token: int) -> bytes:
        if self.chunk_set is not None and self.chunk_token is None:
            self.chunk_token = token  # its PONG tells whether chunks came (:meth:`unheard`)
        return self._encode(protocol.PING, protocol.ping_payload(token))

    def goodbye(self) -> bytes:
        """A GOODBYE message: the host stops cleanly, the controller goes dark."""
        return self._encode(protocol.GOODBYE, b"")

    def tone(self, level: int, steps: list[tuple[int, int]]) -> bytes:
        return self._encode(protocol.TONE, protocol.tone_payload(level, steps))
