"""Host link back-ends: null, recording, the frame encoder, Adalight, the serial link."""

from __future__ import annotations

import logging
import os
import threading
import time
import tty
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from boardctl.config import link_options, parse_vid_pid
from boardctl.errors import ConfigError
from boardctl.link import KINDS, LINK_KINDS, Link, NullLink, RecordingLink, open_link
from boardctl.link import protocol as p
from boardctl.link.adalight import adalight_header, adalight_packet, scale_frame
from boardctl.link.encoder import FrameEncoder
from boardctl.link.serial_link import AdalightLink, PicoLink, find_port
from tests.test_protocol import parse_runs


def open_pico(**options: Any) -> PicoLink:
    """``open_link("serial", ...)``, as the PicoLink it is."""
    link = open_link("serial", **options)
    assert isinstance(link, PicoLink)
    return link


def open_adalight(**options: Any) -> AdalightLink:
    """``open_link("adalight", ...)``, as the AdalightLink it is."""
    link = open_link("adalight", **options)
    assert isinstance(link, AdalightLink)
    return link


def test_open_link_kinds_and_errors() -> None:
    assert KINDS == ("serial", "adalight", "null", "recording", "ddp")
    null = open_link("null", device="/dev/ttyACM0", baudrate=115200)
    assert isinstance(null, NullLink) and isinstance(null, Link)
    assert isinstance(open_link("recording"), RecordingLink)
    with pytest.raises(ConfigError, match="unknown LED link 'wled': choose one of serial"):
        open_link("wled")
    with pytest.raises(ConfigError, match="bad option for the null LED link"):
        open_link("null", colour="red")
    with pytest.raises(ConfigError, match="VID:PID in hex"):
        open_link("serial", vid_pid="pico")
    with pytest.raises(ConfigError, match="power budget must be 0"):
        open_link("serial", path="/nonexistent", budget_ma=-5)
    with pytest.raises(ConfigError, match="mA per LED must be 1-255"):
        open_link("serial", path="/nonexistent", led_ma=0)
    huge = open_pico(path="/nonexistent", budget_ma=100000.0)
    assert huge.budget_ma == 0xFFFF
    huge.close()


def test_every_registered_kind_opens_a_link_of_its_own_class_from_the_config() -> None:
    from boardctl.config import LinkConfig, parse_config

    assert tuple(LINK_KINDS) == KINDS and LinkConfig().kind in KINDS
    for kind, entry in LINK_KINDS.items():
        device = "127.0.0.1" if kind == "ddp" else "/nonexistent/tty"
        config = parse_config({"link": {"kind": kind, "device": device, "baudrate": 9600}})
        link = open_link(kind, **link_options(config))
        try:
            assert f"{type(link).__module__}:{type(link).__name__}" == entry.factory
            assert isinstance(link, Link)
        finally:
            link.close()


def test_null_and_recording_links() -> None:
    with NullLink() as null:
        null.show(b"\x01\x02\x03")
        null.set_brightness(10)
        assert null.frame == b"\x01\x02\x03" and null.brightness == 10 and null.connected
    assert not null.connected
    rec = RecordingLink()
    rec.show(bytearray(b"\x00\x00\x01"))
    rec.show(b"\x00\x00\x02")
    rec.set_brightness(99.6)
    assert rec.frames == [b"\x00\x00\x01", b"\x00\x00\x02"]
    assert rec.frame == b"\x00\x00\x02"
    assert rec.brightness_levels == [100]
    assert rec.wait_for_frames(2, timeout=0.01)
    assert not rec.wait_for_frames(3, timeout=0.01)
    with pytest.raises(ValueError, match="brightness must be a number 0-255"):
        rec.set_brightness(256)
    rec.close()
    assert rec.closed and not rec.connected


def decode_all(wire: bytes) -> list[p.Message]:
    decoder = p.Decoder()
    messages = decoder.feed(wire)
    assert decoder.bad == 0
    return messages


def test_encoder_sends_full_first_then_small_deltas_and_periodic_full() -> None:
    encoder = FrameEncoder(full_every=10.0)
    frame = bytearray(3 * 260)
    (first,) = decode_all(encoder.frame(bytes(frame), now=0.0))
    assert first.kind == p.FULL and first.payload == bytes(frame)
    assert encoder.frame(bytes(frame), now=1.0) == b""  # nothing changed
    frame[3 * 10 : 3 * 10 + 3] = b"\x10\x00\x00"
    frame[3 * 20 : 3 * 20 + 3] = b"\x00\x10\x00"
    wire = encoder.frame(bytes(frame), now=2.0)
    (delta,) = decode_all(wire)
    assert delta.kind == p.DELTA and len(wire) <= 24
    assert parse_runs(delta.payload) == [(10, b"\x10\x00\x00"), (20, b"\x00\x10\x00")]
    assert delta.seq == (first.seq + 1) & 0xFF
    frame = bytearray(b"\x05" * len(frame))  # everything changed: FULL is smaller
    (full,) = decode_all(encoder.frame(bytes(frame), now=3.0))
    assert full.kind == p.FULL
    frame[0] = 9
    assert decode_all(encoder.frame(bytes(frame), now=13.5))[0].kind == p.FULL  # due
    frame[0] = 10
    assert decode_all(encoder.frame(bytes(frame), now=14.0))[0].kind == p.DELTA
    encoder.invalidate()
    assert decode_all(encoder.frame(bytes(frame), now=14.1))[0].kind == p.FULL


def test_adalight_packets() -> None:
    assert adalight_header(256) == b"Ada\x00\xff\xaa"
    assert adalight_header(1) == b"Ada\x00\x00\x55"
    assert adalight_header(300) == bytes([0x41, 0x64, 0x61, 0x01, 0x2B, 0x01 ^ 0x2B ^ 0x55])
    assert adalight_packet(b"\x10\x20\x30" * 2) == b"Ada\x00\x01\x54" + b"\x10\x20\x30" * 2
    assert scale_frame(b"\xff\x80\x00", 128) == bytes([128, 64, 0])
    with pytest.raises(ValueError, match="RGB per LED"):
        adalight_packet(b"\x01\x02")


def test_find_port_by_usb_id(monkeypatch: pytest.MonkeyPatch) -> None:
    from serial.tools import list_ports

    ports = [
        SimpleNamespace(device="/dev/ttyUSB0", vid=0x0403, pid=0x6001),
        SimpleNamespace(device="/dev/ttyACM1", vid=0x2E8A, pid=0x0005),
        SimpleNamespace(device="/dev/ttyS0", vid=None, pid=None),
    ]
    monkeypatch.setattr(list_ports, "comports", lambda: ports)
    assert find_port("2E8A:0005") == "/dev/ttyACM1"
    assert find_port("2e8a:000a") is None
    assert parse_vid_pid("2E8A:0005") == (0x2E8A, 0x0005)


class FakeDevice:
    """The far end of a pty: collects what the host sends, can answer."""

    def __init__(self) -> None:
        self.controller_fd, self.port_fd = os.openpty()
        tty.setraw(self.port_fd)
        self.path = os.ttyname(self.port_fd)
        self.received = bytearray()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        import select

        while not self._stop.is_set():
            ready, _, _ = select.select([self.controller_fd], [], [], 0.02)
            if ready:
                try:
                    self.received.extend(os.read(self.controller_fd, 65536))
                except OSError:
                    time.sleep(0.01)

    def send(self, data: bytes) -> None:
        os.write(self.controller_fd, data)

    def messages(self) -> list[p.Message]:
        return p.Decoder().feed(bytes(self.received))

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 2.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.01)
        return False

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        os.close(self.controller_fd)
        os.close(self.port_fd)


@pytest.fixture
def device() -> object:
    fake = FakeDevice()
    yield fake
    fake.close()


def kinds(device: FakeDevice) -> list[int]:
    return [m.kind for m in device.messages()]


class ManualClock:
    """Seconds that pass only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakePort:
    """A serial port in memory: ``inbox`` is what the device says, ``sent`` what the host wrote.
    ``read`` never waits (a read timeout is the test advancing the clock)."""

    def __init__(self) -> None:
        self.timeout = 0.0
        self.inbox = bytearray()
        self.sent = bytearray()

    @property
    def in_waiting(self) -> int:
        return len(self.inbox)

    def read(self, size: int = 1) -> bytes:
        data = bytes(self.inbox[:size])
        del self.inbox[:size]
        return data

    def write(self, data: bytes) -> int:
        self.sent.extend(data)
        return len(data)

    def messages(self) -> list[p.Message]:
        return p.Decoder().feed(bytes(self.sent))


def manual_link(**options: Any) -> tuple[PicoLink, FakePort, ManualClock]:
    """A PicoLink without its thread, on a manual clock, attached to a FakePort."""
    clock = ManualClock()
    link = PicoLink(path="/dev/fake", clock=clock, start=False, **options)
    port = FakePort()
    link.attach(port)
    return link, port, clock


def test_serial_link_greets_resends_on_nak_and_pings_every_heartbeat() -> None:
    link, port, clock = manual_link(heartbeat=1.0, budget_ma=1500)
    assert [m.kind for m in port.messages()] == [p.HELLO, p.BRIGHTNESS]
    bright = port.messages()[1]
    assert p.parse_brightness(bright.payload) == (255, 1500, 60)
    assert link.connected
    frame = bytes(range(30))
    link.show(frame)
    assert port.messages()[-1].kind == p.FULL
    link.poll(port)
    assert port.messages()[-1].kind == p.PING  # the first heartbeat
    port.inbox += p.encode(p.NAK, 0, p.nak_payload(3, p.NAK_NEED_FULL))
    clock.now += 0.2
    link.poll(port)
    assert port.messages()[-1].payload == frame  # the whole frame again
    count = len(port.sent)
    link.poll(port)
    assert len(port.sent) == count  # nothing new before the heartbeat is due
    clock.now += 1.0
    link.show(bytes(30))  # frames flowing do not hold the heartbeat back
    link.poll(port)
    assert port.messages()[-1].kind == p.PING
    link.set_brightness(40)
    assert port.messages()[-1].kind == p.BRIGHTNESS and port.messages()[-1].payload[0] == 40
    clock.now += 10.0  # full_every: the whole frame, then the PING
    link.poll(port)
    # (with a HELLO before the PING: this device never answered ours, so it is asked again)
    assert [m.kind for m in port.messages()[-3:]] == [p.FULL, p.HELLO, p.PING]
    seqs = [m.seq for m in port.messages()]
    assert seqs == list(range(len(seqs)))  # no gaps
    link.close()
    assert not link.connected


def test_a_link_that_delivers_nothing_is_not_connected_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="boardctl.link")
    link, port, clock = manual_link(heartbeat=1.0)
    link.show(bytes(30))
    nak = p.encode(p.NAK, 0, p.nak_payload(0, p.NAK_CORRUPT))
    for _ in range(40):  # 4 s of NAKs, never a PONG
        port.inbox += nak
        link.poll(port)
        clock.now += 0.1
    assert link.state == "silent" and not link.connected
    silent = [r for r in caplog.records if "silent" in r.getMessage()]
    assert len(silent) == 1 and "no answer from the controller" in silent[0].getMessage()
    pings = [m for m in port.messages() if m.kind == p.PING]
    assert len(pings) >= 4  # still trying, once a second
    port.inbox += p.encode(p.PONG, 0, p.pong_payload(pings[-1].seq, 1, 40))
    link.poll(port)
    assert link.connected and link.state == "connected"


def test_a_nak_storm_does_not_become_a_resend_loop() -> None:
    link, port, clock = manual_link(heartbeat=5.0)
    frame = bytes(range(60))
    link.show(frame)

    def fulls() -> list[p.Message]:
        return [m for m in port.messages() if m.kind == p.FULL]

    assert len(fulls()) == 1
    clock.now += 0.15
    nak = p.encode(p.NAK, 0, p.nak_payload(0, p.NAK_CORRUPT))
    sent_at = []
    for _ in range(50):  # 50 NAKs over 0.2 s
        port.inbox += nak
        count = len(fulls())
        link.poll(port)
        if len(fulls()) > count:
            sent_at.append(clock.now)
        clock.now += 0.004
    assert link.naks == 50
    assert len(sent_at) == 2  # 0.2 s of NAKs: a resend now, one more 0.1 s later
    assert sent_at[1] - sent_at[0] >= 0.1
    assert port.timeout < 0.1  # the reader wakes when the deferred resend is due
    clock.now += 0.1
    link.poll(port)
    assert len(fulls()) == 4  # the last request was honoured
    assert fulls()[-1].payload == frame
    link.poll(port)
    assert len(fulls()) == 4 and port.timeout == 5.0  # and no more


def test_serial_link_refuses_a_controller_of_another_protocol_version(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="boardctl.link")
    link, port, _clock = manual_link()
    port.inbox += p.encode(p.HELLO, 0, p.hello_payload(3, (3, 0, 0), 256, "GRB"))
    link.poll(port)
    assert link.state == "incompatible" and not link.connected
    assert "speaks link protocol 3" in str(link.error)
    assert "boardctl firmware install" in caplog.text
    before = len(port.sent)
    link.show(bytes(30))  # not sent, and no exception
    assert p.FULL not in [m.kind for m in p.Decoder().feed(bytes(port.sent[before:]))]
    link.close()


def test_serial_link_without_a_device_never_raises_and_logs_once(
    tmp_path: object, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="boardctl.link")
    missing = f"{tmp_path}/no-such-tty"
    waits: list[float] = []
    tried = threading.Event()

    def wait(seconds: float) -> bool:  # the backoff, recorded instead of slept
        waits.append(seconds)
        if len(waits) >= 8:
            tried.set()
            return True  # as if closed meanwhile
        return False

    link = open_pico(path=missing, backoff_min=0.01, backoff_max=0.04, wait=wait)
    started = time.monotonic()
    for _ in range(100):
        link.show(bytes(30))
    assert time.monotonic() - started < 0.1  # show() does not wait for the device
    assert tried.wait(5)
    link.close()
    assert not link.connected
    assert waits == [0.01, 0.02, 0.04, 0.04, 0.04, 0.04, 0.04, 0.04]  # doubling, then capped
    assert link.attempts == 8  # one open per wait: backs off instead of spinning
    waiting = [r for r in caplog.records if "waiting" in r.getMessage()]
    assert len(waiting) == 1 and missing in waiting[0].getMessage()
    assert "closed" in caplog.records[-1].getMessage()


def test_adalight_link_sends_packets_and_refreshes(device: FakeDevice) -> None:
    link = open_adalight(path=device.path, refresh=0.1)
    try:
        assert device.wait_for(lambda: link.connected)
        assert link.baud == 115_200  # WLED's and the Adalight sketches' speed, not the Pico's
        frame = b"\x10\x20\x30" * 4
        link.show(frame)
        packet = adalight_packet(frame)
        assert device.wait_for(lambda: bytes(device.received).count(packet) >= 3)
        link.set_brightness(128)
        dimmed = adalight_packet(frame, 128)
        assert device.wait_for(lambda: dimmed in bytes(device.received))
    finally:
        link.close()


def test_the_pico_is_found_by_usb_id(device: FakeDevice, monkeypatch: pytest.MonkeyPatch) -> None:
    from serial.tools import list_ports

    monkeypatch.setattr(
        list_ports,
        "comports",
        lambda: [SimpleNamespace(device=device.path, vid=0x2E8A, pid=0x0005)],
    )
    link = open_pico()  # no path: by USB id 2E8A:0005
    try:
        assert device.wait_for(lambda: p.HELLO in kinds(device))
        assert link.port_name == device.path and link.connected
    finally:
        link.close()


def test_show_survives_a_port_that_fails_mid_write(device: FakeDevice) -> None:
    link = open_pico(path=device.path)
    try:
        assert device.wait_for(lambda: link.connected)
        link.show(bytes(30))
        real_port = link._port

        class Broken:
            def write(self, data: bytes) -> int:
                raise OSError(5, "Input/output error")

        link._port = Broken()
        link.show(bytes([1]) * 30)  # no exception
        link._port = real_port
        assert link.encoder.device_frame is None  # the next frame goes out in full
        link.show(bytes([2]) * 30)
        wanted = p.Message(p.FULL, 0, bytes([2]) * 30)
        assert device.wait_for(
            lambda: any(
                (m.kind, m.payload) == (wanted.kind, wanted.payload) for m in device.messages()
            )
        )
    finally:
        link.close()


def test_a_second_link_waits_for_the_port(device: FakeDevice) -> None:
    first = open_pico(path=device.path)
    try:
        assert device.wait_for(lambda: first.connected)
        second = open_pico(path=device.path, backoff_min=0.05, backoff_max=0.1)
        assert device.wait_for(lambda: second.attempts >= 2)  # refused, and tried again
        assert not second.connected and second.state == "waiting"
        first.close()
        assert device.wait_for(lambda: second.connected)
        second.close()
    finally:
        first.close()


def test_an_unexpected_error_in_the_reader_reopens_the_port(
    device: FakeDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    from boardctl.link.serial_link import PicoLink

    calls = []

    def flaky(self: PicoLink, data: bytes) -> None:
        calls.append(data)
        if len(calls) == 1:
            raise RuntimeError("a bug")

    monkeypatch.setattr(PicoLink, "_on_data", flaky)
    link = open_pico(path=device.path, backoff_min=0.05, backoff_max=0.1)
    try:
        assert device.wait_for(lambda: link.connected)
        device.send(p.encode(p.PING, 0, p.ping_payload(1)))
        assert device.wait_for(lambda: link.connects == 2 and link.connected)
    finally:
        link.close()


def test_an_old_firmware_speaking_protocol_1_is_refused_clearly() -> None:
    link, port, _clock = manual_link()
    hello = p.hello_payload(p.LEGACY_VERSION, (1, 0, 0), 256, "GRB")
    port.inbox += p.encode_legacy(p.HELLO, 0, hello)
    link.poll(port)
    assert link.state == "incompatible" and not link.connected
    assert "speaks link protocol 1 (an older firmware)" in str(link.error)
    assert "boardctl firmware install" in str(link.error)
    link.close()


def test_adalight_sends_zeros_before_the_first_frame_after_any_open() -> None:
    clock = ManualClock()
    link = AdalightLink(path="/dev/fake", clock=clock, start=False)
    port = FakePort()
    link.attach(port)
    frame = b"\xb0\xb1\xb2" * 4  # WLED's baud-rate command bytes, inside a packet
    packet = adalight_packet(frame)
    link.show(frame)
    assert not port.sent  # handed over: the link's writer sends it
    assert link.send_pending()
    assert bytes(port.sent) == bytes(len(packet)) + packet  # a torn packet is finished first
    link.show(frame)
    clock.now += 1
    assert link.send_pending()
    assert bytes(port.sent) == bytes(len(packet)) + packet * 2  # not again while open
    again = FakePort()
    link.attach(again)  # reopened: the frame goes out again, zeros first
    assert link.send_pending()
    assert bytes(again.sent) == bytes(len(packet)) + packet
    link.close()


def test_adalight_never_starts_a_packet_before_the_line_has_carried_the_last() -> None:
    clock = ManualClock()
    link = AdalightLink(path="/dev/fake", clock=clock, start=False, baud=115_200)
    port = FakePort()
    link.attach(port)
    frames = [bytes([n]) * 768 for n in range(1, 6)]  # 256 LEDs: 774-byte packets
    link.show(frames[0])
    assert link.send_pending()  # zeros, then the packet: 1,548 bytes = 134.4 ms
    first = len(port.sent)
    assert first == 2 * 774
    for frame in frames[1:]:
        link.show(frame)  # handed over at once, each replacing the one waiting
    assert link.superseded == 3
    clock.now += 0.134
    assert not link.send_pending() and len(port.sent) == first  # the line is still busy
    clock.now += 0.001
    assert link.send_pending()  # only the newest frame goes
    assert bytes(port.sent[first:]) == adalight_packet(frames[-1])
    assert link.line_free_in(clock.now) == pytest.approx(774 * 10 / 115_200)
    assert not link.send_pending()  # nothing waiting
    assert link.packets == 2 and link.write_failures == 0
    link.close()


def test_adalight_opens_without_raising_dtr_and_rts_the_pico_link_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import serial

    opened: list[tuple[object, object]] = []

    class Port:
        def __init__(self, port: object, baud: int, **options: object) -> None:
            assert port is None  # not opened before the lines are set
            self.dtr: object = None
            self.rts: object = None

        def open(self) -> None:
            opened.append((self.dtr, self.rts))

    monkeypatch.setattr(serial, "Serial", Port)
    AdalightLink(path="/dev/fake", start=False)._open()
    PicoLink(path="/dev/fake", start=False)._open()
    assert opened == [(False, False), (None, None)]  # (None: pyserial raises them on open)


def test_the_encoder_sends_a_full_frame_in_chunks_and_resends_only_those_missed() -> None:
    encoder = FrameEncoder(chunk_leds=64)
    frame = bytes(range(256)) * 3  # 256 LEDs: four chunks
    messages = p.Decoder().feed(encoder.frame(frame, 0.0))
    assert [m.kind for m in messages] == [p.FULL_CHUNK] * 4
    frame_id = p.parse_chunk(messages[0].payload)[0]
    assert encoder.chunks_pending(0.5) and not encoder.chunks_pending(3.0)  # CHUNK_WAIT
    resent = p.Decoder().feed(encoder.resend_chunks(frame_id, [2], 0.9))
    assert encoder.chunks_pending(3.5)  # the controller is putting it together: waits on
    assert [m.payload for m in resent] == [messages[2].payload]  # that chunk, a new seq
    assert resent[0].seq == (messages[3].seq + 1) & 0xFF
    assert encoder.resend_chunks((frame_id + 1) & 0xFF, [2], 0.9) == b""  # not the last one
    encoder.chunks_done(frame_id)
    assert not encoder.chunks_pending(0.5) and encoder.resend_chunks(frame_id, [2], 1) == b""
    encoder.frame(frame, 1.0)  # (a new chunked FULL)
    changed = frame[:3] + b"\x09" + frame[4:]
    assert [m.kind for m in p.Decoder().feed(encoder.frame(changed, 1.1))] == [p.DELTA]
    assert not encoder.chunks_pending(1.1)  # after a DELTA, only a FULL would help
    whole = FrameEncoder()  # chunk_leds 0: whole FULL frames
    assert [m.kind for m in p.Decoder().feed(whole.frame(frame, 0.0))] == [p.FULL]


def test_full_frames_go_in_chunks_on_a_uart_and_whole_over_usb_by_default() -> None:
    assert PicoLink(path="/dev/fake", start=False).chunk_leds == 0  # USB CDC
    assert PicoLink(path="/dev/fake", baud=1_000_000, start=False).chunk_leds == p.CHUNK_LEDS
    assert PicoLink(path="/dev/fake", chunk_leds=16, start=False).chunk_leds == 16
    with pytest.raises(ConfigError):
        PicoLink(path="/dev/fake", chunk_leds=-1, start=False)


def test_our_hello_says_the_boardctl_version_it_is() -> None:
    from boardctl import __version__

    (message,) = p.Decoder().feed(FrameEncoder().hello(120))
    assert message.kind == p.HELLO
    protocol_version, version, led_count, order = p.parse_hello(message.payload)
    assert protocol_version == p.PROTOCOL_VERSION and led_count == 120 and order == "RGB"
    assert ".".join(map(str, version)) == __version__


def test_nothing_follows_the_goodbye_not_even_the_heartbeat() -> None:
    # Any message after GOODBYE tells the controller the host is back (firmware/ledctl.py):
    # a PING sent by the link's thread between the goodbye and the close would bring the
    # link-lost sign back a moment later, on a board that was shut down cleanly.
    link, port, clock = manual_link(heartbeat=1.0)
    port.inbox += p.encode(p.HELLO, 0, p.hello_payload(2, p.GOODBYE_FIRMWARE, 10, "GRB"))
    link.poll(port)
    link.show(bytes(range(30)))
    link.goodbye()
    assert [m.kind for m in port.messages()[-2:]] == [p.FULL, p.GOODBYE]
    assert not any(port.messages()[-2].payload)  # dark
    sent = len(port.sent)
    port.inbox += p.encode(p.NAK, 0, p.nak_payload(3, p.NAK_NEED_FULL))
    clock.now += 20.0  # a heartbeat and a periodic full frame are due
    link.poll(port)
    link.show(bytes(range(30)))
    link.set_brightness(10)
    assert len(port.sent) == sent
    link.close()
