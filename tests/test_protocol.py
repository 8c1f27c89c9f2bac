"""The LED link wire protocol: round trips, resync after garbage, error detection, vectors."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import BoardError, ProtocolError
from boardctl.link import protocol as p
from boardctl.link.encoder import FrameEncoder
from tests.conftest import DATA

VECTORS = json.loads((DATA / "protocol_vectors.json").read_text())

seqs = st.integers(0, 255)
rgb_frames = st.integers(0, 260).flatmap(lambda n: st.binary(min_size=3 * n, max_size=3 * n))
runs_strategy = st.lists(
    st.tuples(
        st.integers(0, 0xFFFF - 600),
        st.integers(1, 300).flatmap(lambda n: st.binary(min_size=3 * n, max_size=3 * n)),
    ),
    min_size=1,
    max_size=6,
)


def parse_runs(payload: bytes) -> list[tuple[int, bytes]]:
    """The runs of a DELTA payload (the reference the firmware's own reading is held to);
    raises ProtocolError unless it is exactly whole runs (``protocol.check_runs``)."""
    p.check_runs(payload)
    runs = []
    index = 0
    while index < len(payload):
        start = (payload[index] << 8) | payload[index + 1]
        stop = index + 3 + 3 * payload[index + 2]
        runs.append((start, bytes(payload[index + 3 : stop])))
        index = stop
    return runs


def parse_pong_drawn(payload: bytes) -> int:
    """The frames drawn that a PONG reports, or -1 if it does not say (the host needs
    only the token: the count is for the tests and benchmarks that measure the strip)."""
    p.parse_pong(payload)
    return (payload[6] << 8) | payload[7] if len(payload) == 8 else -1


def wire_roundtrip(kind: int, seq: int, payload: bytes) -> p.Message:
    """Encode, check the framing, and decode through a Decoder."""
    wire = p.encode(kind, seq, payload)
    assert wire[0] == 0 and wire[-1] == 0
    assert 0 not in wire[1:-1]
    decoder = p.Decoder()
    messages = decoder.feed(wire)
    assert decoder.bad == 0
    assert len(messages) == 1
    assert messages[0] == p.Message(kind, seq, payload)
    return messages[0]


def test_protocol_error_is_the_package_error() -> None:
    assert p.ProtocolError is ProtocolError
    assert issubclass(p.ProtocolError, BoardError)


def test_crc_is_crc16_ccitt_false_and_matches_the_pure_version() -> None:
    assert p.crc16(b"123456789") == 0x29B1
    assert p.crc16_pure(b"123456789") == 0x29B1


@settings(deadline=None)
@given(st.binary(max_size=2000))
def test_crc_c_and_pure_agree(data: bytes) -> None:
    assert p.crc16(data) == p.crc16_pure(data)


@settings(deadline=None)
@given(st.binary(max_size=3000))
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    encoded = p.cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert p.cobs_decode(encoded) == data


@settings(deadline=None)
@given(seqs, st.integers(0, 255), st.tuples(*[st.integers(0, 255)] * 3), st.integers(0, 0xFFFF))
def test_hello_round_trip(seq: int, version: int, firmware: tuple[int, int, int], n: int) -> None:
    order = ["GRB", "RGB", "BRG", "GRBW"][n % 4]
    message = wire_roundtrip(p.HELLO, seq, p.hello_payload(version, firmware, n, order))
    assert p.parse_hello(message.payload) == (version, firmware, n, order)


@settings(deadline=None)
@given(seqs, rgb_frames)
def test_full_round_trip(seq: int, frame: bytes) -> None:
    assert p.parse_full(wire_roundtrip(p.FULL, seq, frame).payload) == frame


@settings(deadline=None)
@given(seqs, runs_strategy)
def test_delta_round_trip(seq: int, runs: list[tuple[int, bytes]]) -> None:
    parsed = parse_runs(wire_roundtrip(p.DELTA, seq, p.delta_payload(runs)).payload)
    # Runs over 255 LEDs come back split; joined they are the same LEDs.
    expected = {}
    for start, rgb in runs:
        for i in range(len(rgb) // 3):
            expected[start + i] = rgb[3 * i : 3 * i + 3]
    got = {}
    for start, rgb in parsed:
        assert 1 <= len(rgb) // 3 <= 255
        for i in range(len(rgb) // 3):
            got[start + i] = rgb[3 * i : 3 * i + 3]
    assert got == expected


@settings(deadline=None)
@given(seqs, st.integers(0, 255), st.integers(0, 0xFFFF), st.integers(1, 255))
def test_brightness_round_trip(seq: int, level: int, budget: int, led_ma: int) -> None:
    payload = p.brightness_payload(level, budget, led_ma)
    assert p.parse_brightness(wire_roundtrip(p.BRIGHTNESS, seq, payload).payload) == (
        level,
        budget,
        led_ma,
    )


@settings(deadline=None)
@given(seqs, st.integers(0, 0xFFFF), st.integers(0, 0xFFFF), st.integers(0, 0xFFFF))
def test_ping_pong_round_trip(seq: int, token: int, applied: int, bad: int) -> None:
    assert p.parse_ping(wire_roundtrip(p.PING, seq, p.ping_payload(token)).payload) == token
    pong = wire_roundtrip(p.PONG, seq, p.pong_payload(token, applied, bad))
    assert p.parse_pong(pong.payload) == (token, applied, bad)


@given(seqs)
def test_goodbye_round_trip_and_the_encoder_sends_it_in_sequence(seq: int) -> None:
    assert wire_roundtrip(p.GOODBYE, seq, b"") == p.Message(p.GOODBYE, seq, b"")
    assert p.KIND_NAMES[p.GOODBYE] == "GOODBYE" and p.GOODBYE_FIRMWARE == (2, 2, 0)
    encoder = FrameEncoder()
    wire = encoder.ping(1) + encoder.goodbye()
    assert [(m.kind, m.seq, m.payload) for m in p.Decoder().feed(wire)] == [
        (p.PING, 0, p.ping_payload(1)),
        (p.GOODBYE, 1, b""),
    ]


@settings(deadline=None)
@given(seqs, st.integers(0, 255), st.integers(0, 255), st.text("abc xyz:0123", max_size=60))
def test_nak_and_error_round_trip(seq: int, expected: int, code: int, text: str) -> None:
    assert p.parse_nak(wire_roundtrip(p.NAK, seq, p.nak_payload(expected, code)).payload) == (
        expected,
        code,
    )
    assert p.parse_error(wire_roundtrip(p.ERROR, seq, p.error_payload(code, text)).payload) == (
        code,
        text,
    )


def test_a_peg_move_costs_at_most_24_bytes() -> None:
    from boardctl.board.frame import changed_runs

    old = bytearray(3 * 260)
    old[3 * 40 : 3 * 40 + 3] = b"\xff\x00\x00"
    new = bytearray(old)
    new[3 * 40 : 3 * 40 + 3] = b"\x30\x00\x00"  # back peg: dim
    new[3 * 45 : 3 * 45 + 3] = b"\xff\x00\x00"  # front peg: bright
    runs = changed_runs(bytes(old), bytes(new))
    wire = p.encode(p.DELTA, 17, p.delta_payload(runs))
    assert len(wire) <= 24


messages_strategy = st.one_of(
    st.builds(lambda s, f: (p.FULL, s, f), seqs, rgb_frames),
    st.builds(lambda s, r: (p.DELTA, s, p.delta_payload(r)), seqs, runs_strategy),
    st.builds(lambda s, t: (p.PING, s, p.ping_payload(t)), seqs, st.integers(0, 0xFFFF)),
    st.builds(
        lambda s, lv: (p.BRIGHTNESS, s, p.brightness_payload(lv, 2000, 55)),
        seqs,
        st.integers(0, 255),
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=40), messages_strategy), min_size=1, max_size=8))
def test_garbage_between_frames_never_yields_a_wrong_frame(
    items: list[tuple[bytes, tuple[int, int, bytes]]],
) -> None:
    sent = [p.Message(*m) for _, m in items]
    stream = b"".join(garbage + p.encode(*m) for garbage, m in items)
    decoder = p.Decoder()
    got: list[p.Message] = []
    # Fed in uneven pieces, as a serial port delivers them.
    for i in range(0, len(stream), 37):
        got.extend(decoder.feed(stream[i : i + 37]))
    # Every genuine frame arrives (each starts with its own delimiter), in order,
    # and nothing else does: garbage never passes for a message.
    assert got == sent


def _single_bit_errors_all_caught(wire: bytes) -> None:
    for index in range(len(wire)):
        for bit in range(8):
            damaged = bytearray(wire)
            damaged[index] ^= 1 << bit
            decoder = p.Decoder()
            got = decoder.feed(bytes(damaged))
            assert got == [], f"bit {bit} of byte {index} flipped, yet {got} decoded"


small_messages = st.one_of(
    st.builds(
        lambda s, f: (p.FULL, s, f),
        seqs,
        st.integers(0, 40).flatmap(lambda n: st.binary(min_size=3 * n, max_size=3 * n)),
    ),
    st.builds(
        lambda s, r: (p.DELTA, s, p.delta_payload(r)),
        seqs,
        st.lists(st.tuples(st.integers(0, 300), st.binary(min_size=3, max_size=12)), min_size=1)
        .map(lambda runs: [(start, rgb[: len(rgb) // 3 * 3]) for start, rgb in runs])
        .filter(lambda runs: all(rgb for _, rgb in runs)),
    ),
    st.builds(lambda s, t: (p.PING, s, p.ping_payload(t)), seqs, st.integers(0, 0xFFFF)),
)


@settings(max_examples=150, deadline=None)
@given(small_messages)
def test_every_single_bit_error_is_caught(message: tuple[int, int, bytes]) -> None:
    _single_bit_errors_all_caught(p.encode(*message))


def test_every_single_bit_error_in_the_vectors_is_caught() -> None:
    for vector in VECTORS["messages"]:
        _single_bit_errors_all_caught(bytes.fromhex(vector["wire"]))


def test_version_mismatch_says_what_to_do() -> None:
    p.check_version(p.PROTOCOL_VERSION, (2, 0, 0))
    with pytest.raises(ProtocolError, match=r"speaks link protocol 3.*boardctl firmware install"):
        p.check_version(3, (3, 4, 0))


def test_crc32_is_the_standard_one_and_matches_the_pure_version() -> None:
    assert p.crc32(b"123456789") == 0xCBF43926  # CRC-32/ISO-HDLC check value
    assert p.crc32_pure(b"123456789") == 0xCBF43926
    assert p.crc32(b"") == 0


@settings(deadline=None)
@given(st.binary(max_size=1000))
def test_crc32_c_and_pure_agree(data: bytes) -> None:
    assert p.crc32(data) == p.crc32_pure(data)


def test_a_protocol_1_frame_is_recognised_as_one_never_as_protocol_2() -> None:
    wire = p.encode_legacy(p.HELLO, 0, p.hello_payload(1, (1, 0, 0), 256, "GRB"))
    (message,) = p.Decoder().feed(wire)
    assert message.version == p.LEGACY_VERSION == 1 and message.kind == p.HELLO
    (current,) = p.Decoder().feed(p.encode(p.HELLO, 0, b"\x02\x02\x00\x00\x01\x00RGB"))
    assert current.version == p.PROTOCOL_VERSION == 2


def test_bad_payloads_are_rejected_with_reasons() -> None:
    with pytest.raises(ProtocolError, match="cut short"):
        p.check_runs(b"\x00\x01\x02\xff\xff\xff")
    with pytest.raises(ProtocolError, match="zero LEDs"):
        p.check_runs(b"\x00\x01\x00")
    with pytest.raises(ProtocolError, match="whole RGB"):
        p.parse_full(b"\x01\x02")
    with pytest.raises(ProtocolError, match="4 bytes"):
        p.parse_brightness(b"\x01")
    with pytest.raises(ProtocolError, match="out of range"):
        p.brightness_payload(300)
    with pytest.raises(ProtocolError, match="7-14 bytes"):
        p.parse_hello(b"\x01")


def test_an_endless_frame_is_dropped_and_the_next_one_decodes() -> None:
    decoder = p.Decoder(max_payload=30)
    good = p.encode(p.PING, 1, p.ping_payload(7))
    assert decoder.feed(b"\x01" * 50) == []
    assert decoder.bad == 1 and decoder.errors == [p.NAK_TOO_LONG]
    assert decoder.feed(b"\x01" * 50) == []
    assert decoder.bad == 1  # one overlong frame, counted once
    assert decoder.feed(good) == [p.Message(p.PING, 1, p.ping_payload(7))]


# --- the shared vectors (tests/micropython/check_vectors.py checks them on MicroPython) ---


def test_vectors_crc() -> None:
    for vector in VECTORS["crc32"]:
        assert p.crc32(bytes.fromhex(vector["data"])) == vector["crc"]
    for vector in VECTORS["crc16"]:
        assert p.crc16(bytes.fromhex(vector["data"])) == vector["crc"]


def test_vectors_cobs() -> None:
    for vector in VECTORS["cobs"]:
        data, encoded = bytes.fromhex(vector["data"]), bytes.fromhex(vector["encoded"])
        assert p.cobs_encode(data) == encoded
        assert p.cobs_decode(encoded) == data


def test_vectors_messages() -> None:
    assert VECTORS["protocol_version"] == p.PROTOCOL_VERSION
    parsers: dict[str, Callable[[bytes], object]] = {
        "hello": lambda b: p.parse_hello(b),
        "brightness": lambda b: p.parse_brightness(b),
        "ping": lambda b: p.parse_ping(b),
        "pong": lambda b: p.parse_pong(b),
        "nak": lambda b: p.parse_nak(b),
        "error": lambda b: p.parse_error(b),
    }
    for vector in VECTORS["messages"]:
        payload = bytes.fromhex(vector["payload"])
        wire = bytes.fromhex(vector["wire"])
        assert p.encode(vector["kind"], vector["seq"], payload) == wire, vector["name"]
        (message,) = p.Decoder().feed(wire)
        assert (message.kind, message.seq, message.payload) == (
            vector["kind"],
            vector["seq"],
            payload,
        )
        fields = vector["fields"]
        name = vector["name"]
        if name in parsers:
            parsed = parsers[name](payload)
            assert list(parsed if isinstance(parsed, tuple) else (parsed,)) == [
                tuple(v) if isinstance(v, list) else v for v in fields.values()
            ], name
        elif name == "delta_peg_move":
            runs = [(s, bytes.fromhex(r)) for s, r in fields["runs"]]
            assert parse_runs(payload) == runs
            assert p.delta_payload(runs) == payload
            assert len(wire) <= 24
        elif name == "full":
            assert p.parse_full(payload) == bytes.fromhex(fields["rgb"])


def test_vectors_streams_and_rejects() -> None:
    for vector in VECTORS["streams"]:
        decoder = p.Decoder()
        got = decoder.feed(bytes.fromhex(vector["stream"]))
        assert [m.kind for m in got] == vector["kinds"], vector["name"]
        assert [m.version for m in got] == vector["versions"], vector["name"]
        assert decoder.bad == vector["bad"], vector["name"]
    for vector in VECTORS["rejects"]:
        decoder = p.Decoder()
        assert decoder.feed(b"\0" + bytes.fromhex(vector["encoded"]) + b"\0") == []
        assert decoder.bad == 1, vector["why"]


def test_multi_bit_damage_never_yields_a_wrong_frame() -> None:
    """A small run of benchmarks/bench_corruption.py's trial (10 M there)."""
    import random

    rng = random.Random(7)
    payload = p.delta_payload([(17, b"\x10\x20\x30"), (140, b"\x00\x00\x00")])
    wire = p.encode(p.DELTA, 9, payload)
    sent = p.Message(p.DELTA, 9, payload)
    for _ in range(20_000):
        damaged = bytearray(wire)
        for _ in range(rng.randint(2, 16)):
            bit = rng.randrange(8 * len(damaged))
            damaged[bit >> 3] ^= 1 << (bit & 7)
        for message in p.Decoder().feed(bytes(damaged)):
            assert message == sent or message.version != p.PROTOCOL_VERSION


@settings(deadline=None)
@given(st.sampled_from(sorted(p.KIND_NAMES)), seqs, st.binary(max_size=1200))
def test_the_frame_length_guess_is_never_more_than_the_frame(
    kind: int, seq: int, payload: bytes
) -> None:
    """``frame_size_at_least``: what the firmware reads in one call after a frame's header
    is never past the frame's end, and is the frame exactly when no run reaches 254 bytes."""
    rest = p.encode(kind, seq, payload)[1:]  # after the opening delimiter
    guesses = [p.frame_size_at_least(rest, k) for k in range(len(rest) + 1)]
    assert all(guess <= len(rest) for guess in guesses)
    assert guesses[1] == 0 and guesses[5] > 0  # known at the latest from 5 bytes
    assert all(guess in (0, guesses[5]) for guess in guesses)
    body = p._body(kind, seq, payload)
    if all(len(run) < 254 for run in body.split(b"\0")):
        assert guesses[5] == len(rest)


def test_the_frame_length_guess_says_nothing_for_garbage() -> None:
    assert p.frame_size_at_least(b"\x05\x02\x00", 3) == 0  # a 0x00 inside: not a frame's start
    assert p.frame_size_at_least(b"\x02", 1) == 0


@settings(deadline=None)
@given(st.binary(max_size=40), st.integers(1, 97))
def test_each_hands_payload_views_as_feed_hands_messages(junk: bytes, cut: int) -> None:
    wire = junk + b"".join(
        p.encode(p.DELTA, seq, p.delta_payload([(seq, bytes([seq, 0, 1]))])) for seq in range(5)
    )
    whole = p.Decoder().feed(wire)
    seen: list[p.Message] = []
    decoder = p.Decoder()
    for start in range(0, len(wire), cut):  # any split, views copied at once
        decoder.each(
            wire[start : start + cut],
            lambda kind, seq, payload, version: seen.append(
                p.Message(kind, seq, bytes(payload), version)
            ),
        )
    assert seen == whole and [m.seq for m in seen][-5:] == [0, 1, 2, 3, 4]


@settings(deadline=None)
@given(st.binary(max_size=60))
def test_check_runs_accepts_exactly_what_parse_runs_does(payload: bytes) -> None:
    try:
        parse_runs(payload)
    except ProtocolError:
        with pytest.raises(ProtocolError):
            p.check_runs(payload)
    else:
        p.check_runs(payload)


@given(
    st.integers(0, 0xFFFF), st.integers(0, 0xFFFF), st.integers(0, 0xFFFF), st.integers(0, 0xFFFF)
)
def test_pong_carries_frames_drawn_when_the_controller_counts_them(
    token: int, applied: int, bad: int, drawn: int
) -> None:
    old = p.pong_payload(token, applied, bad)
    new = p.pong_payload(token, applied, bad, drawn)
    assert len(old) == 6 and new[:6] == old
    assert p.parse_pong(new) == p.parse_pong(old) == (token, applied, bad)
    assert parse_pong_drawn(new) == drawn and parse_pong_drawn(old) == -1
    with pytest.raises(ProtocolError):
        p.parse_pong(new[:7])


@settings(deadline=None)
@given(st.integers(0, 255), st.integers(1, 250), st.integers(1, 80), st.data())
def test_full_chunks_cover_the_frame_once_each_with_its_own_check(
    frame_id: int, leds: int, per_chunk: int, data: st.DataObject
) -> None:
    rgb = data.draw(st.binary(min_size=3 * leds, max_size=3 * leds))
    payloads = p.full_chunks(frame_id, rgb, per_chunk)
    rebuilt = bytearray(len(rgb))
    for n, payload in enumerate(payloads):
        message = wire_roundtrip(p.FULL_CHUNK, n & 0xFF, payload)
        got_id, index, count, first, part = p.parse_chunk(message.payload)
        assert (got_id, index, count) == (frame_id, n, len(payloads))
        assert 1 <= len(part) // 3 <= per_chunk and not any(
            rebuilt[3 * first : 3 * first + len(part)]
        )
        rebuilt[3 * first : 3 * first + len(part)] = part
    assert rebuilt == rgb


@given(st.integers(0, 255), st.lists(st.integers(0, 254), max_size=20))
def test_chunks_messages_round_trip(frame_id: int, missing: list[int]) -> None:
    message = wire_roundtrip(p.CHUNKS, 1, p.chunks_payload(frame_id, missing))
    assert p.parse_chunks(message.payload) == (frame_id, missing)


def test_chunk_payloads_out_of_range_are_errors() -> None:
    with pytest.raises(ProtocolError):
        p.chunk_payload(0, 2, 2, 0, b"\x01\x02\x03")
    with pytest.raises(ProtocolError):
        p.chunk_payload(0, 0, 1, 0, b"\x01\x02")
    with pytest.raises(ProtocolError):
        p.parse_chunk(b"\x00\x03\x02\x00\x00\x01\x02\x03")  # index past the count
    with pytest.raises(ProtocolError):
        p.full_chunks(0, bytes(3 * 300), 1)  # 300 chunks
