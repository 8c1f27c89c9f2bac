"""The firmware's own USB CDC port (``firmware/usb.py``) on the emulated RP2040: what the
host sees of it (the builtin device's descriptors and strings, a re-enumeration once
after boot, after a watchdog reset, for UPDATE), and frames through it in every shape a
host writes them, each check on the colours decoded from the LED pin.

The rig's USB host (``tests/rp2040/usbhost.mjs``) sends each write as one transfer of
64-byte packets with no zero-length packet after a multiple of 64 (as Linux's cdc-acm
does), and a packet only when the device has armed its buffer.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.config import parse_config
from boardctl.link import protocol as p
from boardctl.link.serial_link import SerialBackend
from tests.rp2040.chip import Chip, PtyPort
from tests.test_e2e import FAST, ManualClock, Rig
from tests.test_firmware_rp2040 import LEDS, Booted, pattern

pytestmark = pytest.mark.rp2040

BUILTIN = {"vid": 0x2E8A, "pid": 0x0005}
STRINGS = {"manufacturer": "MicroPython", "product": "Board in FS mode"}
LINE_CODING = [0x00, 0xC2, 0x01, 0x00, 0x00, 0x00, 0x08]  # 115200 8N1, as the rig set it


def usb_events(chip: Chip, after: int, count: int) -> list[str]:
    """The kinds of the USB events from index ``after``, once there are ``count`` of them
    (the events and the link's bytes come on separate pipes: a message may be first)."""
    chip.wait(lambda: len(chip.usb) >= after + count, emu_s=1)
    return [str(e["event"]) for e in chip.usb[after:]]


def connections(chip: Chip) -> list[dict[str, object]]:
    return [e for e in chip.usb if e["event"] == "usb-connected"]


def same_device(a: dict[str, object], b: dict[str, object]) -> bool:
    keys = ("vid", "pid", "strings", "descriptors", "comm", "data", "epIn", "epOut")
    return all(a[k] == b[k] for k in keys)


def applied(booted: Booted, token: int) -> int:
    """Frames the controller applied since boot (its PONG)."""
    mark = len(booted.chip.messages)
    booted.host.send(p.PING, p.ping_payload(token))
    return p.parse_pong(booted.chip.message(p.PONG, after=mark).payload)[1]


def delta_of_length(base: bytes, seq: int, length: int) -> tuple[bytes, bytes]:
    """A DELTA (its wire bytes at ``seq``) exactly ``length`` bytes long, and the
    frame it makes of ``base``."""
    for first, second in itertools.product(range(1, 180), range(3)):
        runs = [(10, b"\x05\x03\x00" * first)] + [(200, b"\x00\x04\x01" * second)] * bool(second)
        wire = p.encode(p.DELTA, seq, p.delta_payload(runs))
        if len(wire) == length:
            frame = bytearray(base)
            for start, run in runs:
                frame[3 * start : 3 * start + len(run)] = run
            return wire, bytes(frame)
    raise AssertionError("no such DELTA")


@pytest.fixture(scope="module")
def usb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Booted]:
    with Chip(tmp_path_factory.mktemp("usbcdc"), config={"WATCHDOG_MS": 1000}) as chip:
        yield Booted(chip)


def test_the_host_sees_the_builtin_device_again_after_one_re_enumeration(usb: Booted) -> None:
    chip = usb.chip
    # The builtin port at boot, gone when the controller starts, then the firmware's own.
    assert usb_events(chip, 0, 3) == ["usb-connected", "usb-disconnected", "usb-connected"]
    boot, own = connections(chip)
    assert chip.usb[1]["t_ns"] > 1e9  # after the boot pattern (BOOTSEL could be held)
    for port in (boot, own):
        assert {k: port[k] for k in BUILTIN} == BUILTIN
        strings = port["strings"]
        assert isinstance(strings, dict)
        assert {k: strings[k] for k in STRINGS} == STRINGS
        assert (port["comm"], port["data"]) == (0, 1)  # .../by-id/...-if00 as before
    assert same_device(boot, own)  # the same descriptors, byte for byte
    assert own["lineCoding"] == LINE_CODING  # SET_LINE_CODING kept, GET_LINE_CODING answered


def test_full_and_delta_frames(usb: Booted) -> None:
    rgb = pattern(11)
    usb.show(rgb)
    runs = [(3, b"\x01\x02\x03"), (250, b"\x00\x03\x00" * 5)]
    want = bytearray(rgb)
    for start, run in runs:
        want[3 * start : 3 * start + len(run)] = run
    mark = len(usb.chip.frames)
    usb.host.send(p.DELTA, p.delta_payload(runs))
    usb.chip.frame_showing(bytes(want), emu_s=2, after=mark)


@pytest.mark.parametrize("multiple", [192, 384])  # 3 and 6 packets
def test_a_frame_of_an_exact_multiple_of_64_bytes_is_drawn_without_more_bytes(
    usb: Booted, multiple: int
) -> None:
    chip = usb.chip
    base = pattern(12)
    usb.show(base)
    wire, want = delta_of_length(base, usb.host.seq, multiple)
    usb.host.seq = (usb.host.seq + 1) & 0xFF
    mark, first = len(chip.frames), chip.written
    chip.send(wire)  # a transfer of whole packets: no short packet ends it
    frame = chip.frame_showing(want, emu_s=1, after=mark)
    written = chip.write_seen_at(first)
    assert written < frame.end_ns < written + 30e6


def test_two_frames_in_one_write_are_both_applied(usb: Booted) -> None:
    chip = usb.chip
    before = applied(usb, 1)
    first, second = pattern(13), pattern(14)
    wire = p.encode(p.FULL, usb.host.seq, first)
    wire += p.encode(p.FULL, (usb.host.seq + 1) & 0xFF, second)
    usb.host.seq = (usb.host.seq + 2) & 0xFF
    mark = len(chip.frames)
    chip.send(wire)
    chip.frame_showing(second, emu_s=2, after=mark)
    assert applied(usb, 2) == before + 2  # the first applied too (drawn or superseded)


def test_a_frame_split_over_writes_with_a_pause_is_drawn_once_whole(usb: Booted) -> None:
    chip = usb.chip
    old, new = pattern(15), pattern(16)
    usb.show(old)
    wire = p.encode(p.FULL, usb.host.seq, new)
    usb.host.seq = (usb.host.seq + 1) & 0xFF
    mark = len(chip.frames)
    chip.send(wire[:300])  # 4 whole packets and a short one, then nothing for 200 ms
    chip.run_for(0.2)
    assert all(f.rgb != new for f in chip.frames[mark:])
    chip.send(wire[300:])
    chip.frame_showing(new, emu_s=2, after=mark)


def test_ctrl_c_bytes_are_plain_data(usb: Booted) -> None:
    chip = usb.chip
    rgb = bytes([3]) * (3 * LEDS)  # every byte 0x03 (Ctrl-C)
    usb.show(rgb)
    mark = len(chip.frames)
    chip.send(b"\x03" * 200)  # a burst of bare Ctrl-C between frames: garbage, dropped
    usb.show(pattern(17))
    assert all(f.rgb == rgb or f.rgb == pattern(17) for f in chip.frames[mark:])
    assert not chip.resets


def test_a_burst_larger_than_the_buffer_loses_nothing(usb: Booted) -> None:
    # 12 FULL frames (9.4 kB) in one write: more than the 4 kB receive buffer, so the
    # host is held back (NAK) while the controller catches up; every frame is applied.
    chip = usb.chip
    before = applied(usb, 3)
    burst = [pattern(20 + k) for k in range(12)]
    wire = b""
    for frame in burst:
        wire += p.encode(p.FULL, usb.host.seq, frame)
        usb.host.seq = (usb.host.seq + 1) & 0xFF
    mark = len(chip.frames)
    chip.send(wire)
    chip.frame_showing(burst[-1], emu_s=3, after=mark)
    assert applied(usb, 4) == before + 12
    shown = [burst.index(f.rgb) for f in chip.frames[mark:] if f.rgb in burst]
    assert shown == sorted(shown)  # in order (the ones not shown were superseded)


def test_a_watchdog_reset_re_enumerates_and_the_frame_comes_back(usb: Booted) -> None:
    chip = usb.chip
    rgb = pattern(30)
    usb.show(rgb)
    own = connections(chip)[-1]
    seen = len(chip.usb)
    chip.command("hang")
    assert chip.wait(lambda: chip.resets, emu_s=3)
    hello = chip.message(p.HELLO, after=len(chip.messages), emu_s=5)
    after = usb_events(chip, seen, 4)
    # gone at the reset; the builtin port at boot; gone; the firmware's own again
    assert after == ["usb-disconnected", "usb-connected", "usb-disconnected", "usb-connected"]
    assert chip.usb[seen]["t_ns"] == chip.resets[-1]
    assert all(same_device(own, port) for port in connections(chip)[-2:])
    recovered = Booted.__new__(Booted)
    recovered.chip, recovered.hello, recovered.host = chip, hello, usb.host
    usb.host.hello()
    recovered.show(rgb)


def test_update_gives_the_repl_back_on_the_builtin_port(usb: Booted) -> None:
    chip = usb.chip
    seen, mark = len(chip.usb), len(chip.output)
    usb.host.send(p.UPDATE, p.UPDATE_KEY)
    assert chip.wait(lambda: b"update mode, REPL left free" in chip.output[mark:], emu_s=3)
    assert usb_events(chip, seen, 2) == ["usb-disconnected", "usb-connected"]
    assert same_device(connections(chip)[-1], connections(chip)[0])
    assert chip.repl(b"print(6 * 7)", b"42")  # the REPL, for mpremote


def test_safe_mode_keeps_the_builtin_port_and_its_repl(tmp_path: Path) -> None:
    with Chip(tmp_path, bootsel=True) as chip:
        assert chip.printed(b"safe mode", emu_s=4)
        chip.run_for(0.5)
        assert usb_events(chip, 0, 1) == ["usb-connected"]  # never re-enumerated
        assert chip.repl(b"print(6 * 7)", b"42")


def test_the_service_reopens_the_port_after_the_re_enumeration_and_the_score_shows(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    """``boardctl run`` (mock buttons) -> its serial link -> a pty that goes and comes back
    with the USB port, as a device node does -> the chip: the link opens MicroPython's
    port at boot, loses it when the controller takes over, reopens it on its own, and
    the score reaches the pin; again after a watchdog reset."""
    port = PtyPort(tmp_path / "leds")
    firmware: dict[str, object] = {"WATCHDOG_MS": 1000}
    with Chip(tmp_path, on_output=port.write, on_usb=port.usb_event, config=firmware) as chip:
        port.attach(chip)
        link = {"kind": "serial", "device": str(port.path)}
        settings = parse_config({**FAST, "game": {"mode": "free"}, "link": link})
        rig = Rig(tmp_path, mock_factory, settings, link=None, clock=ManualClock())
        try:
            chip.message(p.HELLO, emu_s=6)
            usb_events(chip, 0, 3)
            assert port.plugs == 1  # gone once and back, after the boot pattern
            sent = None
            for track, points in [(1, 5), (2, 3)]:
                rig.enter(track, points)
                rig.wait_for(lambda: rig.status()["tracks"][track - 1]["front"] == points)  # noqa: B023
                sent = rig.loop.frame
                assert sent is not None
                chip.frame_showing(bytes(sent), emu_s=5)
            link_object = rig.loop.link
            assert isinstance(link_object, SerialBackend)
            connects = link_object.connects
            assert connects >= 2  # opened at boot, reopened after the re-enumeration
            chip.command("hang")
            assert chip.wait(lambda: chip.resets, emu_s=3)
            mark = len(chip.frames)
            assert sent is not None
            frame = chip.frame_showing(bytes(sent), emu_s=8, after=mark)
            assert frame.start_ns > chip.resets[0]
            usb_events(chip, 0, 7)
            assert port.plugs == 3  # the reset, then the controller's port again
            assert link_object.connects > connects
        finally:
            rig.close()
            port.close()
