"""The controller firmware's logic on CPython: frames, power budget, link loss, boot, NAKs."""

from __future__ import annotations

import importlib
import json
import sys
import types
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.link import protocol as p
from tests.conftest import DATA, REPO
from tests.test_foundation import apply_runs

sys.path.insert(0, str(REPO / "firmware"))
emulator = importlib.import_module("emulator")  # (first: it provides `import protocol`)
ledctl = importlib.import_module("ledctl")
if TYPE_CHECKING:
    from emulator import ManualClock, MemoryStream, RecordingStrip
    from ledctl import Controller

VECTORS = json.loads((DATA / "protocol_vectors.json").read_text())


def make(
    led_count: int = 8, **options: Any
) -> tuple[Controller, MemoryStream, RecordingStrip, ManualClock]:
    stream = emulator.MemoryStream()
    strip = emulator.RecordingStrip(led_count)
    clock = emulator.ManualClock()
    options.setdefault("boot_ms", 0)
    controller = ledctl.Controller(stream, strip, clock, led_count=led_count, **options)
    return controller, stream, strip, clock


def sent(stream: MemoryStream) -> list[p.Message]:
    messages = p.Decoder().feed(bytes(stream.sent))
    stream.sent.clear()
    return messages


def test_firmware_vectors_on_cpython() -> None:
    for vector in VECTORS["firmware"]:
        controller, _stream, strip, _clock = make(
            vector["led_count"], budget_ma=vector["budget_ma"]
        )
        pixels = emulator.pump(controller, bytes.fromhex(vector["stream"]))
        assert pixels == bytes.fromhex(vector["pixels"]), vector["name"]
        assert strip.rgb == pixels
        assert controller.bad == vector["bad"], vector["name"]
        assert controller.applied == vector["applied"], vector["name"]
        assert controller.refused == vector["refused"], vector["name"]


def test_the_firmware_imports_the_package_protocol() -> None:
    assert importlib.import_module("protocol") is p
    assert ledctl.protocol is p


@settings(deadline=None, max_examples=200)
@given(
    st.integers(1, 300),
    st.integers(0, 255),
    st.integers(0, 5000),
    st.integers(1, 255),
    st.data(),
)
def test_power_limit_keeps_the_estimate_within_budget(
    led_count: int, level: int, budget: int, led_ma: int, data: st.DataObject
) -> None:
    frame = data.draw(st.binary(min_size=3 * led_count, max_size=3 * led_count))
    controller, _stream, _strip, _clock = make(led_count, budget_ma=budget, led_ma=led_ma)
    emulator.pump(controller, p.encode(p.BRIGHTNESS, 0, p.brightness_payload(level, 0, led_ma)))
    pixels = emulator.pump(controller, p.encode(p.FULL, 1, frame))
    estimate = ledctl.estimate_ma(sum(pixels), led_count, led_ma)
    if budget > led_count:  # the LEDs' idle draw alone fits
        assert estimate <= budget
    for shown, asked in zip(pixels, frame, strict=True):
        assert shown <= asked * level // 255 + 1


def test_full_white_is_clamped_even_when_the_host_asks_for_more() -> None:
    controller, _stream, _strip, _clock = make(256, budget_ma=2000)
    emulator.pump(controller, p.encode(p.BRIGHTNESS, 0, p.brightness_payload(255, 60000, 55)))
    pixels = emulator.pump(controller, p.encode(p.FULL, 1, b"\xff" * 768))
    assert controller.budget() == 2000
    estimate = ledctl.estimate_ma(sum(pixels), 256, 55)
    assert 1800 < estimate <= 2000
    # A lower host budget is honoured.
    pixels = emulator.pump(controller, p.encode(p.BRIGHTNESS, 2, p.brightness_payload(255, 900)))
    assert ledctl.estimate_ma(sum(pixels), 256, 55) <= 900


@settings(deadline=None, max_examples=200)
@given(st.integers(1, 255), st.integers(0, 0xFFFF), st.integers(1, 300), st.integers(1, 5000))
def test_a_host_can_only_tighten_the_firmwares_power_limit(
    host_ma: int, host_budget: int, led_count: int, own_budget: int
) -> None:
    controller, _stream, _strip, _clock = make(led_count, budget_ma=own_budget, led_ma=60)
    brightness = p.brightness_payload(255, host_budget, host_ma)
    emulator.pump(controller, p.encode(p.BRIGHTNESS, 0, brightness))
    pixels = emulator.pump(controller, p.encode(p.FULL, 1, b"\xff" * (3 * led_count)))
    assert controller.led_ma == max(60, host_ma)
    if own_budget > led_count:  # the LEDs' idle draw alone fits
        # Judged by the firmware's own figure, whatever mA per LED the host claimed.
        assert ledctl.estimate_ma(sum(pixels), led_count, 60) <= own_budget


def test_full_white_after_a_host_says_one_milliamp_per_led_stays_within_budget() -> None:
    controller, _stream, _strip, _clock = make(256, budget_ma=2000, led_ma=60)
    emulator.pump(controller, p.encode(p.BRIGHTNESS, 0, p.brightness_payload(255, 0, 1)))
    pixels = emulator.pump(controller, p.encode(p.FULL, 1, b"\xff" * 768))
    assert 0.9 * 2000 < ledctl.estimate_ma(sum(pixels), 256, 60) <= 2000
    assert max(pixels) < 255  # scaled, not sent as asked (about 15.6 A unscaled)


@settings(deadline=None, max_examples=100)
@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.binary(min_size=3, max_size=30)),
        min_size=1,
        max_size=6,
    )
)
def test_delta_runs_match_the_host_model_and_stay_on_the_strip(
    runs: list[tuple[int, bytes]],
) -> None:
    runs = [(start, rgb[: len(rgb) // 3 * 3]) for start, rgb in runs if len(rgb) >= 3]
    if not runs:
        return
    base = bytes(range(60)) + bytes(30)
    controller, _stream, _strip, _clock = make(30, budget_ma=0)
    emulator.pump(controller, p.encode(p.FULL, 0, base))
    pixels = emulator.pump(controller, p.encode(p.DELTA, 1, p.delta_payload(runs)))
    wide = apply_runs(base + bytes(3 * 60), runs)  # the same runs on a long strip
    assert pixels == wide[:90]
    assert len(controller.frame) == 90


def test_hello_ping_nak_gap_and_version_error() -> None:
    controller, stream, _strip, _clock = make(8, color_order="GRB")
    (hello,) = sent(stream)
    assert hello.kind == p.HELLO
    assert p.parse_hello(hello.payload) == (p.PROTOCOL_VERSION, ledctl.FIRMWARE_VERSION, 8, "GRB")
    controller.feed(p.encode(p.HELLO, 0, p.hello_payload(p.PROTOCOL_VERSION, (0, 1, 0), 8, "RGB")))
    (answer,) = sent(stream)
    assert answer.kind == p.HELLO
    controller.feed(p.encode(p.PING, 1, p.ping_payload(77)))
    (pong,) = sent(stream)
    assert p.parse_pong(pong.payload) == (77, 0, 0)
    controller.feed(p.encode(p.FULL, 9, bytes(24)))  # seq 2 expected
    (nak,) = sent(stream)
    assert p.parse_nak(nak.payload) == (10, p.NAK_GAP)
    assert controller.gaps == 1 and controller.applied == 1  # applied anyway, host resends
    controller.feed(p.encode(p.DELTA, 10, b"\x00\x01"))  # malformed payload
    (nak,) = sent(stream)
    assert p.parse_nak(nak.payload)[1] == p.NAK_BAD_PAYLOAD
    assert controller.bad == 1
    controller.feed(p.encode(p.HELLO, 11, p.hello_payload(7, (9, 0, 0), 8, "RGB")))
    (error,) = sent(stream)
    code, text = p.parse_error(error.payload)
    assert code == p.ERR_VERSION and "protocol 2" in text and "7" in text


def test_deltas_are_refused_after_boot_and_after_a_gap_until_a_full_arrives() -> None:
    controller, stream, _strip, _clock = make(4)
    sent(stream)
    delta = p.delta_payload([(1, b"\x05\x05\x05")])
    assert emulator.pump(controller, p.encode(p.DELTA, 0, delta)) == bytes(12)  # not drawn
    (nak,) = sent(stream)
    assert p.parse_nak(nak.payload) == (1, p.NAK_NEED_FULL) and controller.refused == 1
    base = bytes(range(1, 13))
    assert emulator.pump(controller, p.encode(p.FULL, 1, base)) == base
    want = base[:3] + b"\x05\x05\x05" + base[6:]
    assert emulator.pump(controller, p.encode(p.DELTA, 2, delta)) == want
    sent(stream)
    other = p.delta_payload([(3, b"\x07\x07\x07")])
    assert emulator.pump(controller, p.encode(p.DELTA, 4, other)) == want  # seq 3 was lost
    reasons = [p.parse_nak(m.payload)[1] for m in sent(stream)]
    assert reasons == [p.NAK_GAP, p.NAK_NEED_FULL] and controller.refused == 2
    assert emulator.pump(controller, p.encode(p.FULL, 5, base)) == base  # a FULL: in sync


def test_an_old_host_gets_an_error_it_can_read() -> None:
    controller, stream, _strip, _clock = make(4)
    sent(stream)
    hello = p.hello_payload(p.LEGACY_VERSION, (0, 1, 0), 4, "RGB")
    emulator.pump(controller, p.encode_legacy(p.HELLO, 0, hello))
    emulator.pump(controller, p.encode_legacy(p.FULL, 1, bytes([9]) * 12))
    assert controller.applied == 0 and controller.pixels() == bytes(12)
    (error,) = sent(stream)
    assert error.version == p.LEGACY_VERSION and error.kind == p.ERROR  # in protocol 1's form
    code, text = p.parse_error(error.payload)
    assert code == p.ERR_VERSION and "firmware speaks protocol 2, host speaks 1" in text


def test_link_lost_keeps_the_frame_and_blinks_the_status() -> None:
    status = emulator.RecordingStatus()
    controller, _stream, _strip, clock = make(8, status=status, status_pixel=0)
    frame = bytes(range(10, 34))
    assert emulator.pump(controller, p.encode(p.FULL, 0, frame)) == frame
    assert status.on == 1
    clock.advance(ledctl.LINK_LOST_MS)
    controller.step()
    assert not controller.lost  # exactly 3 s is not yet "over 3 s"
    seen = set()
    for _ in range(40):
        clock.advance(50)
        controller.step()
        seen.add((status.on, controller.pixels()[:3]))
        assert controller.pixels()[3:] == frame[3:]  # the score stays
    assert controller.lost
    assert (1, bytes(ledctl.LOST_SIGN)) in seen and (0, frame[:3]) in seen
    emulator.pump(controller, p.encode(p.PING, 1, p.ping_payload(0)))
    assert not controller.lost and controller.pixels() == frame and status.on == 1


def test_goodbye_turns_the_strip_dark_and_the_silence_after_it_shows_no_sign() -> None:
    status = emulator.RecordingStatus()
    controller, _stream, _strip, clock = make(8, status=status, status_pixel=0)
    frame = bytes(range(10, 34))
    assert emulator.pump(controller, p.encode(p.FULL, 0, frame)) == frame
    assert emulator.pump(controller, p.encode(p.GOODBYE, 1)) == bytes(24)  # a clean stop
    for _ in range(80):  # 4 s of silence: the link is lost, and the strip stays dark
        clock.advance(50)
        controller.step()
        assert controller.pixels() == bytes(24)
    assert controller.lost
    # The host is back (a restarted service): HELLO, FULL; a later silence (a crash, a
    # pulled cable) keeps the score and shows the sign again.
    emulator.pump(controller, p.encode(p.HELLO, 2, p.hello_payload(2, (0, 1, 0), 8, "GRB")))
    assert emulator.pump(controller, p.encode(p.FULL, 3, frame)) == frame
    seen = set()
    for _ in range(80):
        clock.advance(50)
        controller.step()
        seen.add(controller.pixels()[:3])
        assert controller.pixels()[3:] == frame[3:]
    assert bytes(ledctl.LOST_SIGN) in seen


def test_boot_pattern_runs_then_yields_to_the_first_frame() -> None:
    controller, _stream, strip, clock = make(20, boot_ms=1000)
    dots = []
    for _ in range(10):
        controller.step()
        lit = [i for i in range(20) if strip.rgb[3 * i : 3 * i + 3] != b"\0\0\0"]
        dots.append(lit)
        clock.advance(100)
    assert all(len(lit) == 1 for lit in dots)
    assert [lit[0] for lit in dots] == sorted({lit[0] for lit in dots})  # it runs along
    frame = bytes([5]) * 60
    assert emulator.pump(controller, p.encode(p.FULL, 0, frame)) == frame


def test_hw_shim_drives_neopixel_in_the_strip_colour_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fakes = REPO / "tests" / "micropython" / "fakes"
    for name in ("machine", "neopixel"):
        module = types.ModuleType(name)
        exec((fakes / f"{name}.py").read_text(), module.__dict__)
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setitem(sys.modules, "micropython", types.ModuleType("micropython"))
    monkeypatch.delitem(sys.modules, "hw", raising=False)
    hw = importlib.import_module("hw")
    assert hw.order_offsets("GRB") == (1, 0, 2)
    with pytest.raises(ValueError, match="not a mix of R, G and B"):
        hw.order_offsets("RGX")
    strip = hw.NeoStrip(0, 2, "GRB")
    strip.show(bytearray(b"\x01\x02\x03\x04\x05\x06"))
    assert strip.pixels.shown == b"\x02\x01\x03\x05\x04\x06"
    assert strip.pixels.writes == 1
    monkeypatch.delitem(sys.modules, "hw")


def test_usb_stream_turns_off_ctrl_c_before_reading_and_reads_binary_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """hw.UsbStream: ``micropython.kbd_intr(-1)`` first, so 0x03 in a frame is data."""
    import io

    calls: list[tuple[str, object]] = []
    fakes = REPO / "tests" / "micropython" / "fakes"
    for name in ("machine", "neopixel"):
        module = types.ModuleType(name)
        exec((fakes / f"{name}.py").read_text(), module.__dict__)
        monkeypatch.setitem(sys.modules, name, module)
    micropython = types.ModuleType("micropython")
    micropython.kbd_intr = lambda char: calls.append(("kbd_intr", char))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "micropython", micropython)
    frames = [
        p.encode(p.FULL, 3, bytes([3, 0, 3]) * 200),  # Ctrl-C bytes inside the frame
        p.encode(p.PING, 4, p.ping_payload(0x0303)),
    ]
    wire = io.BytesIO(b"\x03junk" + b"".join(frames))  # garbage before the first frame
    reads: list[int] = []

    class Raw:  # sys.stdin.buffer: no read-ahead, so Poll below sees what is left
        def readinto(self, buffer: Any) -> int:
            reads.append(len(buffer))
            data = wire.read(len(buffer))
            buffer[: len(data)] = data
            return len(data)

    class Stdin:
        buffer = Raw()

    class Poll:
        def register(self, stream: object, mask: int) -> None:
            calls.append(("register", mask))

        def poll(self, ms: int) -> list[int]:
            return [1] if wire.tell() < len(wire.getvalue()) else []

    select = types.ModuleType("select")
    select.POLLIN = 1  # type: ignore[attr-defined]
    select.poll = Poll  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "select", select)
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdin", Stdin())
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out))
    monkeypatch.delitem(sys.modules, "hw", raising=False)
    hw = importlib.import_module("hw")
    stream = hw.UsbStream(limit=1024)
    assert calls[0] == ("kbd_intr", -1)
    got = stream.read()
    assert got is not None and bytes(got) == wire.getvalue()  # every byte, 0x03 as data
    # Between frames byte by byte (polling first); within a frame the header, then what
    # the frame is sure to hold, in one call each: not one call per byte.
    assert reads[:5] == [1] * 5  # the garbage
    assert len(reads) <= 5 + 2 * 4, reads
    assert max(reads) >= len(frames[0]) - 14
    assert stream.read() is None  # nothing waiting: no blocking
    small = hw.UsbStream(limit=16)  # at most ``limit`` bytes a call, frames cut anywhere
    wire.seek(0)
    pieces = []
    while (piece := small.read()) is not None:
        assert len(piece) <= 16
        pieces.append(bytes(piece))
    assert b"".join(pieces) == wire.getvalue()
    stream.write(b"\x00\x01")
    assert out.getvalue() == b"\x00\x01"
    monkeypatch.delitem(sys.modules, "hw")


@settings(deadline=None, max_examples=100)
@given(st.integers(1, 40), st.integers(1, 9), st.randoms(use_true_random=False), st.data())
def test_a_full_frame_in_chunks_is_applied_whole_in_any_order(
    led_count: int, per_chunk: int, rng: Any, data: st.DataObject
) -> None:
    """FULL_CHUNK: nothing of the new frame shows until every chunk is in, whatever their
    order; then all of it (never a mix of old and new: a stale frame, not a wrong one)."""
    controller, stream, _strip, _clock = make(led_count)
    old = data.draw(st.binary(min_size=3 * led_count, max_size=3 * led_count))
    new = data.draw(st.binary(min_size=3 * led_count, max_size=3 * led_count))
    assert emulator.pump(controller, p.encode(p.FULL, 0, old)) == old
    chunks = p.full_chunks(7, new, per_chunk)
    order = list(range(len(chunks)))
    rng.shuffle(order)
    sent(stream)
    for n, index in enumerate(order):
        shown = emulator.pump(controller, p.encode(p.FULL_CHUNK, n + 1, chunks[index]))
        assert shown == (new if n == len(order) - 1 else old)
    assert controller.synced and controller.applied == 2
    done = [m for m in sent(stream) if m.kind == p.CHUNKS]
    assert p.parse_chunks(done[-1].payload) == (7, [])  # complete


def test_a_damaged_chunk_costs_only_that_chunk() -> None:
    controller, stream, _strip, _clock = make(8)
    old = bytes(range(24))
    new = bytes(range(100, 124))
    emulator.pump(controller, p.encode(p.FULL, 0, old))
    sent(stream)
    chunks = [p.encode(p.FULL_CHUNK, 1 + i, c) for i, c in enumerate(p.full_chunks(3, new, 2))]
    damaged = bytearray(chunks[1])
    damaged[8] ^= 0x40  # one bad bit
    assert damaged[8] != 0  # (not a delimiter: one bad frame)
    delta = p.encode(p.DELTA, 5, p.delta_payload([(0, b"\x01\x02\x03")]))
    stream_bytes = chunks[0] + bytes(damaged) + chunks[2] + chunks[3]
    assert emulator.pump(controller, stream_bytes) == old  # stale, never part new
    said = sent(stream)
    missing = [p.parse_chunks(m.payload) for m in said if m.kind == p.CHUNKS]
    assert missing == [(3, [1])]  # after the last chunk: which one to resend
    assert controller.bad == 1 and not controller.synced
    # A PING while the frame is incomplete asks again (its last chunk may be the lost one).
    emulator.pump(controller, p.encode(p.PING, 5, p.ping_payload(1)))
    kinds = [m.kind for m in sent(stream)]
    assert kinds == [p.CHUNKS, p.PONG]
    assert emulator.pump(controller, p.encode(p.FULL_CHUNK, 6, p.full_chunks(3, new, 2)[1])) == new
    assert p.parse_chunks(next(m for m in sent(stream) if m.kind == p.CHUNKS).payload) == (3, [])
    # A DELTA while chunks are missing is refused and abandons them: a chunk resent late
    # starts that frame again instead of completing it on top of the DELTA.
    emulator.pump(controller, chunks[0])
    assert emulator.pump(controller, delta) == new and controller.refused == 1
    emulator.pump(controller, chunks[1] + chunks[2] + chunks[3])
    assert controller.pixels() == new and not controller.synced


def test_bad_chunks_are_rejected_and_change_nothing() -> None:
    controller, stream, _strip, _clock = make(4)
    base = bytes(range(12))
    emulator.pump(controller, p.encode(p.FULL, 0, base))
    for seq, payload in enumerate(
        [b"\x01\x02\x02\x00\x00\x01\x02\x03", b"\x01\x00\x01\x00\x00\x01\x02", b"\x01\x00"], 1
    ):
        assert emulator.pump(controller, p.encode(p.FULL_CHUNK, seq, payload)) == base
    assert controller.bad == 3 and controller.chunk_id == -1
    reasons = [p.parse_nak(m.payload)[1] for m in sent(stream) if m.kind == p.NAK]
    assert reasons == [p.NAK_BAD_PAYLOAD] * 3


framing = importlib.import_module("framing")


@settings(deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from([p.FULL, p.DELTA, p.PING]), st.binary(max_size=700))),
    st.binary(max_size=20).map(lambda junk: junk.replace(b"\0", b"\1")),  # (no frame start)
    st.lists(st.integers(1, 300), max_size=30),
)
def test_the_frame_tracker_never_counts_on_a_byte_the_host_need_not_send(
    messages: list[tuple[int, bytes]], junk: bytes, cuts: list[int]
) -> None:
    frames = [p.encode(kind, seq & 0xFF, payload) for seq, (kind, payload) in enumerate(messages)]
    wire = junk + b"".join(frames)
    ends = {len(junk) + sum(len(f) for f in frames[: k + 1]) for k in range(len(frames))}
    tracker = framing.FrameTracker()
    i = 0
    for cut in [*cuts, len(wire)]:
        end = min(len(wire), i + cut)
        tracker.scan(wire, i, end)
        i = end
        following = min([e for e in ends if e >= i], default=i)
        assert tracker.committed() <= following - i  # never past the frame it is in
        if i == len(wire):
            break
    assert tracker.committed() == 0  # all read: between frames
