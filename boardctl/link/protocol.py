"""The wire protocol between boardctl and the LED controller (a Pico running MicroPython).

This one file runs on CPython and on MicroPython: it is the Pico's ``protocol.py`` too,
deployed from here by ``firmware/package.json`` (no copy is kept). So it uses only what
MicroPython 1.27 has: no ``__future__``, no ``typing``, no dataclasses; annotations
appear only in signatures and simple assignments, which MicroPython parses and ignores.

A frame is ``0x00 COBS(type | seq | length u16 | payload) check 0x00``, ``check`` the CRC-32 of
the COBS bytes in five bytes of 4, 7, 7, 7 and 7 bits with the top bit set. The frame, every
message kind's payload and why it is so: docs/link.md, "Wire protocol". A frame in protocol 1's
form (CRC-16) is decoded as a ``Message`` of ``version`` 1, only to say that the peer is old.
"""

import struct

PROTOCOL_VERSION = 2
LEGACY_VERSION = 1  # CRC-16 checks; recognised only to say it is not spoken

# Message kinds.
HELLO = 0x01
FULL = 0x02
DELTA = 0x03
BRIGHTNESS = 0x04
PING = 0x05
PONG = 0x06
NAK = 0x07
ERROR = 0x08
UPDATE = 0x09
UPDATE_KEY = b"boardctl firmware install"  # (no stray frame can mean it)
TONE = 0x0A
GOODBYE = 0x0B
GOODBYE_FIRMWARE = (2, 2, 0)  # the first firmware version that knows GOODBYE
# A FULL frame in chunks, each with its own check, so one damaged byte costs one chunk.
# (0x0C-0x0F are left free for other messages.)
FULL_CHUNK = 0x10
CHUNKS = 0x11
CHUNK_LEDS = 32  # LEDs per chunk the host sends by default
CHUNKS_SINCE = (2, 1, 0)  # the firmware version from which a controller takes FULL_CHUNK

_KINDS = "HELLO FULL DELTA BRIGHTNESS PING PONG NAK ERROR UPDATE TONE GOODBYE FULL_CHUNK CHUNKS"
KIND_NAMES = {globals()[name]: name for name in _KINDS.split()}

# NAK reasons.
NAK_CORRUPT = 1  # COBS or CRC check failed
NAK_GAP = 2  # a sequence number was skipped: some frame was lost
NAK_TOO_LONG = 3  # no delimiter within the longest legal frame
NAK_BAD_PAYLOAD = 4  # the payload does not fit its message kind
NAK_UNKNOWN = 5  # unknown message kind
NAK_NEED_FULL = 6  # DELTA refused: no base frame since boot or a gap; send a FULL

# ERROR codes.
ERR_VERSION = 1  # protocol versions differ
ERR_NO_BUZZER = 3  # a TONE, but the controller has no buzzer pin set

DELIMITER = b"\x00"
HEADER_LEN = 4  # type, seq, length
CHECK_LEN = 5  # the CRC-32 in five bytes of 4, 7, 7, 7 and 7 bits, each with its top bit set
LEGACY_CHECK_LEN = 3  # protocol 1: a CRC-16 in three bytes of 2, 7 and 7 bits
MAX_RUN = 255  # LEDs per DELTA run
MAX_LEDS = 4096  # largest strip the protocol describes
MAX_TONE_STEPS = 16  # steps in one TONE (the longest cue has 8)
MIN_TONE_HZ = 20
MAX_TONE_HZ = 20000
MAX_STEP_MS = 10000  # one step lasts at most 10 s
TONE_FIRMWARE = (2, 1, 0)  # the first firmware version that plays TONE


try:  # on the host, the package's class: ``except ProtocolError`` works across boardctl
    from boardctl.errors import ProtocolError as ProtocolError
except ImportError:  # on the controller

    class ProtocolError(ValueError):  # type: ignore[no-redef]
        """A corrupt, truncated or unsupported protocol frame."""


# mypy reads this block (it is true to it); MicroPython and CPython skip it, and the
# annotation naming Handler is a string, never evaluated.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Buffer = bytes | bytearray | memoryview
    Handler = Callable[[int, int, Buffer, int], None]


def crc16_pure(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) in plain Python."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = (crc << 1) ^ 0x1021 if crc & 0x8000 else crc << 1
        crc &= 0xFFFF  # (bits above 15 never reach bit 15 again)
    return crc


try:
    import binascii

    # CPython's crc_hqx is the same polynomial, computed in C (MicroPython has none).
    _CRC_HQX = getattr(binascii, "crc_hqx", None)
    _CRC32 = getattr(binascii, "crc32", None)  # CPython and MicroPython: C code
except ImportError:
    _CRC_HQX = _CRC32 = None


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (protocol 1's check; ``b"123456789"`` gives 0x29B1)."""
    return crc16_pure(data) if _CRC_HQX is None else int(_CRC_HQX(data, 0xFFFF))


def crc32_pure(data: "Buffer") -> int:
    """CRC-32 (IEEE 802.3) in plain Python, for an interpreter without ``binascii.crc32``."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def crc32(data: "Buffer") -> int:
    """CRC-32 (IEEE 802.3) of ``data``; the check value of ``b"123456789"`` is 0xCBF43926."""
    return crc32_pure(data) if _CRC32 is None else int(_CRC32(data)) & 0xFFFFFFFF


def _check_bytes(crc: int, size: int = CHECK_LEN) -> bytes:
    """``crc`` in ``size`` bytes of 7 bits (the first: what is left), each with its top bit set."""
    return bytes(0x80 | ((crc >> (7 * i)) & 0x7F) for i in range(size - 1, -1, -1))


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: ``data`` with every 0x00 removed."""
    out = bytearray()
    start = 0
    end = len(data)
    while True:
        limit = min(end, start + 254)
        zero = data.find(b"\x00", start, limit)
        stop = limit if zero < 0 else zero
        out.append(stop - start + 1)  # (a block of 254 bytes: 0xFF, no 0x00 implied)
        out.extend(data[start:stop])
        if zero >= 0:
            start = zero + 1
        elif stop - start == 254 and stop < end:
            start = stop
        else:
            return bytes(out)


def cobs_into(src: "Buffer", n: int, dst: bytearray) -> int:
    """COBS-decode ``src[:n]`` into ``dst`` (at least ``n`` bytes long, no allocation): the
    decoded length, or -1 for a block holding 0x00, -2 for a block running past the end.
    (The firmware swaps in a compiled copy, ``fast.cobs_into``.)"""
    index = 0
    out = 0
    while index < n:
        code = src[index]
        if code == 0:
            return -1
        stop = index + code
        if stop > n:
            return -2
        size = code - 1
        dst[out : out + size] = src[index + 1 : stop]
        out += size
        index = stop
        if code != 0xFF and index < n:
            dst[out] = 0
            out += 1
    return out


def cobs_decode(data: bytes) -> bytes:
    """Undo :func:`cobs_encode`; raises ProtocolError on a malformed block."""
    out = bytearray(len(data))
    return bytes(out[: _cobs_size(cobs_into(data, len(data), out))])


def _cobs_size(size: int) -> int:
    """:func:`cobs_into`'s answer: the size, or a ProtocolError saying what is wrong."""
    if size == -1:
        raise ProtocolError("COBS block holds a 0x00 byte")
    if size < 0:
        raise ProtocolError("COBS block runs past the end of the frame")
    return size


def find_zero(buf: "Buffer", start: int, end: int) -> int:
    """The index of the first 0x00 in ``buf[start:end]``, or -1. (The firmware swaps in a
    compiled copy, ``fast.find_zero``: MicroPython's ``find`` is slow and has no memoryview.)"""
    try:
        return int(buf.find(DELIMITER, start, end))  # type: ignore[union-attr]
    except AttributeError:  # a memoryview (CPython), or a bytearray without find (MicroPython)
        for index in range(start, end):
            if buf[index] == 0:
                return index
        return -1


def frame_size_at_least(prefix: "Buffer", end: int) -> int:
    """From a frame's first bytes after its opening delimiter (``prefix[:end]``): the fewest
    bytes the whole frame can have (COBS adds at least one code byte; exactly this long when
    no run reaches 254 bytes), once the length field is in; 0 before. The firmware reads that
    many at once (a compiled copy: ``fast.frame_size_at_least``)."""
    header = bytearray(HEADER_LEN)
    got = 0
    index = 0
    while index < end and got < HEADER_LEN:
        code = prefix[index]
        if code == 0:
            return 0
        stop = index + code
        index += 1
        while index < stop and index < end and got < HEADER_LEN:
            header[got] = prefix[index]
            got += 1
            index += 1
        if got < HEADER_LEN and index == stop and code != 0xFF:
            got += 1  # the block's implied 0x00 (header was zero-filled)
    if got < HEADER_LEN:
        return 0
    return HEADER_LEN + ((header[2] << 8) | header[3]) + 1 + CHECK_LEN + 1


def _body(kind: int, seq: int, payload: bytes) -> bytes:
    size = len(payload)
    if size > 0xFFFF:
        raise ProtocolError(f"payload of {size} bytes is over 65535")
    return bytes((kind & 0xFF, seq & 0xFF, size >> 8, size & 0xFF)) + bytes(payload)


def encode(kind: int, seq: int, payload: bytes = b"") -> bytes:
    """One message as wire bytes, delimiters included."""
    encoded = cobs_encode(_body(kind, seq, payload))
    return DELIMITER + encoded + _check_bytes(crc32(encoded)) + DELIMITER


def encode_legacy(kind: int, seq: int, payload: bytes = b"") -> bytes:
    """One message in protocol 1's form (CRC-16): only to tell an old peer why not."""
    encoded = cobs_encode(_body(kind, seq, payload))
    return DELIMITER + encoded + _check_bytes(crc16(encoded), LEGACY_CHECK_LEN) + DELIMITER


class Message:
    """A verified message: its ``kind``, sequence number ``seq`` and raw ``payload``."""

    def __init__(
        self, kind: int, seq: int, payload: bytes, version: int = PROTOCOL_VERSION
    ) -> None:
        self.kind = kind
        self.seq = seq
        self.payload = payload
        self.version = version  # LEGACY_VERSION: a frame in protocol 1's form

    def _fields(self) -> "tuple[int, int, bytes, int]":
        return (self.kind, self.seq, self.payload, self.version)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and self._fields() == other._fields()

    def __repr__(self) -> str:
        name = KIND_NAMES.get(self.kind, str(self.kind))
        return f"Message({name}, seq={self.seq}, {len(self.payload)} bytes)"


def _check_header(body: "Buffer", size: int) -> None:
    if size < HEADER_LEN:
        raise ProtocolError(f"frame body of {size} bytes is too short")
    if (body[2] << 8) | body[3] != size - HEADER_LEN:
        raise ProtocolError("frame length field does not match its size")


def verify_into(frame: "Buffer", n: int, body: bytearray) -> int:
    """Check the frame ``frame[:n]`` (without its delimiters) and decode its body
    ``type | seq | length | payload`` into ``body`` (at least ``n`` bytes; nothing is
    allocated but small views): the body's length. Raises ProtocolError if a check fails."""
    if n < HEADER_LEN + 1 + CHECK_LEN:
        raise ProtocolError(f"frame of {n} bytes is too short")
    c0 = frame[n - 5]
    if (c0 & 0xF0) != 0x80 or not (
        frame[n - 4] & frame[n - 3] & frame[n - 2] & frame[n - 1]
    ) & 0x80:
        raise ProtocolError("frame check bytes are malformed")
    crc = (
        ((c0 & 0x0F) << 28)
        | ((frame[n - 4] & 0x7F) << 21)
        | ((frame[n - 3] & 0x7F) << 14)
        | ((frame[n - 2] & 0x7F) << 7)
        | (frame[n - 1] & 0x7F)
    )
    encoded = memoryview(frame)[: n - 5]
    if crc32(encoded) != crc:
        raise ProtocolError("frame fails its CRC check")
    size = _cobs_size(cobs_into(encoded, n - 5, body))
    _check_header(body, size)
    return size


def verify_legacy(frame: bytes) -> bytes:
    """The checked body of a frame in protocol 1's form (CRC-16 in three bytes)."""
    if len(frame) < HEADER_LEN + 1 + LEGACY_CHECK_LEN:
        raise ProtocolError(f"frame of {len(frame)} bytes is too short")
    c0 = frame[-3]
    if (c0 & 0xFC) != 0x80 or not (frame[-2] & frame[-1] & 0x80):
        raise ProtocolError("frame check bytes are malformed")
    crc = ((c0 & 0x03) << 14) | ((frame[-2] & 0x7F) << 7) | (frame[-1] & 0x7F)
    if crc16(frame[:-3]) != crc:
        raise ProtocolError("frame fails its CRC check")
    body = cobs_decode(frame[:-3])
    _check_header(body, len(body))
    return body


class Decoder:
    """Splits a byte stream into verified messages, resyncing at every 0x00: ``feed`` returns
    them; ``each`` calls ``handler(kind, seq, payload, version)`` with ``payload`` a view of a
    buffer the next frame reuses (the firmware's way: no allocation). A bad frame is counted
    in ``bad`` (its NAK reason in ``errors`` until the next feed)."""

    def __init__(self, max_payload: int = 3 * MAX_LEDS) -> None:
        raw = HEADER_LEN + max_payload
        self.max_len = raw + raw // 254 + 1 + CHECK_LEN  # the longest frame it can make
        self.buffer = bytearray(self.max_len)  # a frame cut across reads, so far
        self.size = 0
        self.body = bytearray(self.max_len)  # the decoded body of the frame in hand
        self.overflow = False
        self.bad = 0
        self.errors: list[int] = []

    def _reject(self, reason: int) -> None:
        self.bad += 1
        self.errors.append(reason)

    def feed(self, data: bytes) -> "list[Message]":
        messages: list[Message] = []
        self.each(data, lambda k, s, p, v: messages.append(Message(k, s, bytes(p), v)))
        return messages

    def each(self, data: "Buffer", handler: "Handler") -> None:
        self.errors = []
        end = len(data)
        view = memoryview(data)
        start = 0
        while start < end:
            zero = find_zero(data, start, end)
            if zero < 0:
                self._keep(view, start, end)
                break
            if self.overflow:
                self.overflow = False
                self.size = 0
            elif self.size:
                if self._keep(view, start, zero):
                    self._frame(self.buffer, self.size, handler)
                self.size = 0
            elif zero > start:
                self._frame(view[start:zero], zero - start, handler)
            start = zero + 1

    def _keep(self, view: memoryview, start: int, stop: int) -> bool:
        """Add ``view[start:stop]`` to the frame in hand; False if that makes it too long."""
        if self.overflow:
            return False
        size = self.size + stop - start
        if size > self.max_len:
            self.overflow = True
            self.size = 0
            self._reject(NAK_TOO_LONG)
            return False
        self.buffer[self.size : size] = view[start:stop]
        self.size = size
        return True

    def _frame(self, frame: "Buffer", n: int, handler: "Handler") -> None:
        if n > self.max_len:
            self._reject(NAK_TOO_LONG)
            return
        version = PROTOCOL_VERSION
        body = self.body
        try:
            size = verify_into(frame, n, body)
        except ProtocolError:
            try:  # an old peer? (rare: only when the CRC-32 failed)
                body = bytearray(verify_legacy(bytes(frame[:n])))
                size = len(body)
                version = LEGACY_VERSION
            except ProtocolError:
                self._reject(NAK_CORRUPT)
                return
        kind = body[0]
        if kind not in KIND_NAMES:
            self._reject(NAK_UNKNOWN)
            return
        handler(kind, body[1], memoryview(body)[HEADER_LEN:size], version)


# --- payloads ----------------------------------------------------------------
def _need(payload: "Buffer", size: int, what: str) -> None:
    if len(payload) != size:
        raise ProtocolError(f"{what} payload must be {size} bytes, got {len(payload)}")


def hello_payload(
    protocol: int, firmware: "tuple[int, int, int]", led_count: int, color_order: str
) -> bytes:
    """HELLO: protocol version, firmware version, LED count, colour order (e.g. GRB)."""
    if not 0 <= led_count <= 0xFFFF:
        raise ProtocolError(f"LED count {led_count} is out of range 0-65535")
    order = color_order.encode()
    if not 1 <= len(order) <= 8:
        raise ProtocolError(f"colour order {color_order!r} must be 1-8 letters")
    major, minor, patch = firmware
    fields = (protocol & 0xFF, major & 0xFF, minor & 0xFF, patch & 0xFF, led_count)
    return struct.pack(">4BH", *fields) + order


def parse_hello(payload: "Buffer") -> "tuple[int, tuple[int, int, int], int, str]":
    """``(protocol, (major, minor, patch), led_count, color_order)`` of a HELLO."""
    if not 7 <= len(payload) <= 14:
        raise ProtocolError(f"HELLO payload must be 7-14 bytes, got {len(payload)}")
    order = bytes(payload[6:])
    if not all(0x21 <= byte <= 0x7E for byte in order):
        raise ProtocolError("HELLO colour order is not printable ASCII")
    protocol, major, minor, patch, led_count = struct.unpack_from(">4BH", payload)
    return (protocol, (major, minor, patch), led_count, order.decode())


def check_version(protocol: int, firmware: "tuple[int, int, int]") -> None:
    """Raise a ProtocolError that says what to do if the controller speaks another version."""
    if protocol != PROTOCOL_VERSION:
        version = f"{firmware[0]}.{firmware[1]}.{firmware[2]}"
        raise ProtocolError(f"LED controller firmware {version} " + speaks(str(protocol)))


def speaks(protocol: str) -> str:
    """Why a controller speaking ``protocol`` (a number, and a note) cannot be used; what to do."""
    return (
        f"speaks link protocol {protocol}, but this boardctl speaks protocol {PROTOCOL_VERSION}:"
        " install the firmware with `boardctl firmware install` (see firmware/README.md)"
    )


def delta_payload(runs: "list[tuple[int, bytes]]") -> bytes:
    """DELTA: ``[(start_led, rgb_bytes), ...]``; runs over 255 LEDs are split."""
    out = bytearray()
    for start, rgb in runs:
        if len(rgb) % 3:
            raise ProtocolError(f"run at LED {start} is not whole RGB triples")
        count = len(rgb) // 3
        for offset in range(0, count, MAX_RUN):
            size = min(MAX_RUN, count - offset)
            first = start + offset
            if not 0 <= first <= 0xFFFF:
                raise ProtocolError(f"run start {first} is out of range 0-65535")
            out.extend(struct.pack(">HB", first, size))
            out.extend(rgb[3 * offset : 3 * (offset + size)])
    return bytes(out)


def check_runs(payload: "Buffer") -> None:
    """Raise ProtocolError unless a DELTA payload is exactly whole runs (checked without
    building the runs: the firmware applies them from the payload)."""
    index = 0
    end = len(payload)
    if end == 0:
        raise ProtocolError("DELTA payload is empty")
    while index < end:
        if index + 3 > end:
            raise ProtocolError("DELTA run header cut short")
        count = payload[index + 2]
        if count == 0:
            raise ProtocolError("DELTA run of zero LEDs")
        if index + 3 + 3 * count > end:
            start = (payload[index] << 8) | payload[index + 1]
            raise ProtocolError(f"DELTA run at LED {start} cut short")
        index += 3 + 3 * count


def chunk_payload(frame_id: int, index: int, count: int, first: int, rgb: bytes) -> bytes:
    """FULL_CHUNK: chunk ``index`` of ``count`` of frame ``frame_id``, from LED ``first``."""
    if not 0 <= index < count <= 255:
        raise ProtocolError(f"chunk {index} of {count} is out of range (count 1-255)")
    if not rgb or len(rgb) % 3:
        raise ProtocolError(f"chunk of {len(rgb)} bytes is not whole RGB triples")
    if not 0 <= first <= 0xFFFF:
        raise ProtocolError(f"chunk start {first} is out of range 0-65535")
    return struct.pack(">3BH", frame_id & 0xFF, index, count, first) + bytes(rgb)


def parse_chunk(payload: "Buffer") -> "tuple[int, int, int, int, Buffer]":
    """``(frame_id, index, count, first_led, rgb)`` of a FULL_CHUNK payload (``rgb`` a
    slice of it: a view if it is one)."""
    size = len(payload)
    if size < 8 or (size - 5) % 3:
        raise ProtocolError(f"FULL_CHUNK payload of {size} bytes is not a header and RGB triples")
    index = payload[1]
    count = payload[2]
    if index >= count:
        raise ProtocolError(f"chunk {index} of {count} is out of range")
    return (payload[0], index, count, (payload[3] << 8) | payload[4], payload[5:])


def full_chunks(frame_id: int, rgb: bytes, leds: int = CHUNK_LEDS) -> "list[bytes]":
    """The FULL_CHUNK payloads of one frame, ``leds`` LEDs each (the last one shorter)."""
    step = 3 * max(1, leds)
    count = max(1, (len(rgb) + step - 1) // step)
    if count > 255:
        raise ProtocolError(f"a frame of {len(rgb) // 3} LEDs needs {count} chunks (at most 255)")
    if not rgb:
        raise ProtocolError("a frame of no LEDs has no chunks")
    return [
        chunk_payload(frame_id, index, count, start // 3, rgb[start : start + step])
        for index, start in enumerate(range(0, len(rgb), step))
    ]


def chunks_payload(frame_id: int, missing: "list[int]") -> bytes:
    """CHUNKS: the chunks of ``frame_id`` still missing (none: complete)."""
    return bytes((frame_id & 0xFF,)) + bytes(missing)


def parse_chunks(payload: "Buffer") -> "tuple[int, list[int]]":
    """``(frame_id, missing)`` of a CHUNKS payload."""
    if len(payload) < 1:
        raise ProtocolError("CHUNKS payload is empty")
    return (payload[0], list(payload[1:]))


def parse_full(payload: "Buffer") -> bytes:
    """The RGB bytes of a FULL payload (whole RGB triples)."""
    if len(payload) % 3:
        raise ProtocolError(f"FULL payload of {len(payload)} bytes is not whole RGB triples")
    return bytes(payload)


def brightness_payload(level: int, budget_ma: int = 0, led_ma: int = 60) -> bytes:
    """BRIGHTNESS: level 0-255, power budget in mA (0 = none from the host), mA per LED."""
    if not 0 <= level <= 255:
        raise ProtocolError(f"brightness {level} is out of range 0-255")
    if not 0 <= budget_ma <= 0xFFFF:
        raise ProtocolError(f"power budget {budget_ma} mA is out of range 0-65535")
    if not 1 <= led_ma <= 255:
        raise ProtocolError(f"{led_ma} mA per LED is out of range 1-255")
    return struct.pack(">BHB", level, budget_ma, led_ma)


def parse_brightness(payload: "Buffer") -> "tuple[int, int, int]":
    """``(level, budget_ma, led_ma)`` of a BRIGHTNESS payload."""
    _need(payload, 4, "BRIGHTNESS")
    if payload[3] == 0:
        raise ProtocolError("BRIGHTNESS mA per LED must not be 0")
    return (payload[0], (payload[1] << 8) | payload[2], payload[3])


def ping_payload(token: int) -> bytes:
    """PING: a token the PONG echoes."""
    return struct.pack(">H", token & 0xFFFF)


def parse_ping(payload: "Buffer") -> int:
    _need(payload, 2, "PING")
    return (payload[0] << 8) | payload[1]


def pong_payload(token: int, applied: int, bad: int, drawn: int = -1) -> bytes:
    """PONG: the PING's token, frames applied and bad (wrapping), and optionally ``drawn``: the
    frames the strip has shown (the rest were superseded)."""
    out = struct.pack(">3H", token & 0xFFFF, applied & 0xFFFF, bad & 0xFFFF)
    return out + struct.pack(">H", drawn & 0xFFFF) if drawn >= 0 else out


def parse_pong(payload: "Buffer") -> "tuple[int, int, int]":
    """``(token, applied, bad)`` of a PONG payload."""
    if len(payload) != 8:
        _need(payload, 6, "PONG")
    return struct.unpack_from(">3H", payload)


def nak_payload(expected_seq: int, reason: int) -> bytes:
    """NAK: the sequence number the sender expected next and why (``NAK_*``)."""
    return bytes((expected_seq & 0xFF, reason & 0xFF))


def parse_nak(payload: "Buffer") -> "tuple[int, int]":
    """``(expected_seq, reason)`` of a NAK payload."""
    _need(payload, 2, "NAK")
    return (payload[0], payload[1])


def error_payload(code: int, text: str) -> bytes:
    """ERROR: a code (``ERR_*``) and a short ASCII explanation."""
    return bytes((code & 0xFF,)) + text.encode()[:200]


def parse_error(payload: "Buffer") -> "tuple[int, str]":
    """``(code, text)`` of an ERROR payload."""
    if len(payload) < 1:
        raise ProtocolError("ERROR payload is empty")
    return (payload[0], bytes(payload[1:]).decode())


def tone_payload(level: int, steps: "list[tuple[int, int]]") -> bytes:
    """TONE: ``level`` 0-255 (255 = 50 % duty) and ``[(hz, ms), ...]``; ``hz`` 0 is a rest."""
    if not 0 <= level <= 255:
        raise ProtocolError(f"tone level {level} is out of range 0-255")
    if len(steps) > MAX_TONE_STEPS:
        raise ProtocolError(f"{len(steps)} tone steps are more than {MAX_TONE_STEPS}")
    out = bytearray((level,))
    for hz, ms in steps:
        _check_step(hz, ms)
        out.extend(struct.pack(">2H", hz, ms))
    return bytes(out)


def _check_step(hz: int, ms: int) -> None:
    if hz != 0 and not MIN_TONE_HZ <= hz <= MAX_TONE_HZ:
        raise ProtocolError(
            f"tone of {hz} Hz is out of range {MIN_TONE_HZ}-{MAX_TONE_HZ} (0 = a rest)"
        )
    if not 1 <= ms <= MAX_STEP_MS:
        raise ProtocolError(f"tone step of {ms} ms is out of range 1-{MAX_STEP_MS}")


def parse_tone(payload: "Buffer") -> "tuple[int, list[tuple[int, int]]]":
    """``(level, [(hz, ms), ...])`` of a TONE payload."""
    size = len(payload)
    if size < 1 or (size - 1) % 4 or (size - 1) // 4 > MAX_TONE_STEPS:
        raise ProtocolError(f"TONE payload must be 1 + 4 x (0-{MAX_TONE_STEPS}) bytes, got {size}")
    steps = []
    for index in range(1, size, 4):
        hz, ms = struct.unpack_from(">2H", payload, index)
        _check_step(hz, ms)
        steps.append((hz, ms))
    return (payload[0], steps)
