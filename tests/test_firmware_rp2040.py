"""The firmware on an emulated RP2040: the stock MicroPython v1.28.0 image on rp2040js,
the firmware's files in its flash, every check made on the colours decoded from the
WS2812 pin (``tests/rp2040/``). Select these alone with ``pytest -m rp2040``.

One chip per link kind is booted for the module and shared by the tests in file order
(each test sends the frame it checks); safe mode, the watchdog and the whole chain get
their own chips. Times are the chip's emulated time.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.board.layout import builtin_layout
from boardctl.board.render import Renderer
from boardctl.config import parse_config
from boardctl.link import protocol as p
from tests.conftest import REPO
from tests.rp2040.chip import Chip, Host, PinFrame, PtyPort
from tests.test_e2e import FAST, ManualClock, Rig

pytestmark = pytest.mark.rp2040

sys.path.insert(0, str(REPO / "firmware"))
importlib.import_module("emulator")  # (provides the firmware's `import protocol`)
ledctl = importlib.import_module("ledctl")

LEDS = 256
BOOT = bytes(ledctl.BOOT_COLOUR)
LOST = bytes(ledctl.LOST_SIGN)


def lit(frame: PinFrame) -> list[int]:
    """The LEDs that are not dark."""
    rgb = frame.rgb
    return [i for i in range(LEDS) if rgb[3 * i : 3 * i + 3] != b"\0\0\0"]


def pattern(seed: int) -> bytes:
    """A frame well inside the power budget, with 0x00 (COBS must escape), 0x03 (Ctrl-C),
    0x04 (Ctrl-D), 0x01/0x02 (raw REPL) bytes and non-zero runs longer than 254 bytes."""
    out = bytearray()
    for i in range(LEDS):
        if 40 <= i < 140:
            out += bytes(((i + seed) % 6 + 1, 3, 4))  # 300 bytes without a zero
        else:
            out += bytes(((i * seed) % 7, (i + seed) % 3, 3 if i % 2 else 0))
    return bytes(out)


class Booted:
    """A chip that has said HELLO, and the host that talks to it."""

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        self.hello = chip.message(p.HELLO, emu_s=5)
        self.host = Host(chip)
        self.host.hello()
        chip.message(p.HELLO, after=chip.messages.index(self.hello) + 1)

    def show(self, rgb: bytes) -> PinFrame:
        mark = len(self.chip.frames)
        self.host.send(p.FULL, rgb)
        return self.chip.frame_showing(rgb, emu_s=3, after=mark)


@pytest.fixture(scope="module")
def usb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Booted]:
    # A 1 s watchdog (config.py's WATCHDOG_MS), so that a hang resets the chip sooner, and
    # a 4 s update window.
    config: dict[str, object] = {"WATCHDOG_MS": 1000, "UPDATE_WINDOW_MS": 4000}
    with Chip(tmp_path_factory.mktemp("usb"), config=config) as chip:
        yield Booted(chip)


@pytest.fixture(scope="module")
def uart(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Booted]:
    with Chip(tmp_path_factory.mktemp("uart"), link="uart") as chip:
        yield Booted(chip)


def test_boot_pattern_runs_a_blue_dot_along_the_strip(usb: Booted) -> None:
    chip = usb.chip
    boot = [f for f in chip.frames if f.end_ns < chip.frames[-1].end_ns and lit(f)]
    assert len(boot) >= 20  # a refresh every ~20 ms for a second
    positions = [lit(f) for f in boot]
    assert all(len(leds) == 1 for leds in positions), positions
    assert all(
        f.rgb[3 * leds[0] : 3 * leds[0] + 3] == BOOT
        for f, leds in zip(boot, positions, strict=True)
    )
    dots = [leds[0] for leds in positions]
    assert dots == sorted(dots) and dots[0] < 16 and dots[-1] > LEDS - 32
    frame = boot[0]
    assert 300 <= frame.t0h_ns[0] <= frame.t0h_ns[1] <= 500  # WS2812B: T0H 0.4 us +- 0.15
    assert 650 <= frame.t1h_ns[0] <= frame.t1h_ns[1] <= 950  # T1H 0.8 us +- 0.15


def test_hello_names_protocol_firmware_and_strip(usb: Booted) -> None:
    assert p.parse_hello(usb.hello.payload) == (
        p.PROTOCOL_VERSION,
        ledctl.FIRMWARE_VERSION,
        LEDS,
        "GRB",
    )
    chip = usb.chip
    mark = len(chip.messages)
    other = p.hello_payload(p.PROTOCOL_VERSION + 1, (9, 0, 0), LEDS, "RGB")
    usb.host.send(p.HELLO, other)
    error = chip.message(p.ERROR, after=mark)
    code, text = p.parse_error(error.payload)
    assert code == p.ERR_VERSION and "protocol" in text


def test_full_and_delta_frames_with_bytes_cobs_must_escape(usb: Booted) -> None:
    rgb = pattern(1)
    wire = p.encode(p.FULL, 0, rgb)
    assert wire.count(0) == 2 and rgb.count(0) > 100  # escaped, and a 300-byte run
    frame = usb.show(rgb)
    assert frame.grb[0::3] == rgb[1::3] and frame.grb[1::3] == rgb[0::3]  # GRB on the wire
    runs = [(0, b"\0\x03\0"), (100, b"\x05\0\x01" * 3), (255, b"\x03\x03\x03")]
    want = bytearray(rgb)
    for start, run in runs:
        want[3 * start : 3 * start + len(run)] = run
    mark = len(usb.chip.frames)
    usb.host.send(p.DELTA, p.delta_payload(runs))
    usb.chip.frame_showing(bytes(want), emu_s=3, after=mark)


def test_ctrl_c_and_other_repl_bytes_in_frames_do_not_interrupt_the_firmware(
    usb: Booted,
) -> None:
    chip = usb.chip
    text = len(chip.output)
    for byte in (0x03, 0x04, 0x01, 0x02):  # Ctrl-C, Ctrl-D, raw REPL on / off
        usb.show(bytes([byte]) * (3 * LEDS))
    mark = len(chip.messages)
    usb.host.send(p.PING, p.ping_payload(0xC3))
    pong = chip.message(p.PONG, after=mark)
    assert p.parse_pong(pong.payload)[0] == 0xC3
    said = bytes(chip.output[text:])
    assert b"Traceback" not in said and b">>>" not in said and b"raw REPL" not in said


def test_brightness_scales_every_byte(usb: Booted) -> None:
    rgb = pattern(2)
    usb.show(rgb)
    mark = len(usb.chip.frames)
    usb.host.send(p.BRIGHTNESS, p.brightness_payload(100, 0, 55))
    want = bytes(value * 100 * 256 // 65280 for value in rgb)  # level x 256 / (255 x 256)
    assert want != rgb
    usb.chip.frame_showing(want, emu_s=3, after=mark)
    mark = len(usb.chip.frames)
    usb.host.send(p.BRIGHTNESS, p.brightness_payload(255, 0, 55))
    usb.chip.frame_showing(rgb, emu_s=3, after=mark)


def test_the_firmware_keeps_its_own_power_limit_whatever_the_host_asks(usb: Booted) -> None:
    mark = len(usb.chip.frames)
    usb.host.send(p.BRIGHTNESS, p.brightness_payload(255, 0, 55))  # no limit from the host
    usb.host.send(p.FULL, b"\xff" * (3 * LEDS))
    assert usb.chip.wait(
        lambda: any(f.rgb.count(f.rgb[0]) == 3 * LEDS for f in usb.chip.frames[mark:] if f.rgb[0])
    )
    frame = next(f for f in usb.chip.frames[mark:] if f.rgb[0])
    estimate = ledctl.estimate_ma(sum(frame.rgb), LEDS, 55)
    assert 0.9 * 2000 < estimate <= 2000  # config.py's BUDGET_MA
    assert frame.rgb == bytes([frame.rgb[0]]) * (3 * LEDS)  # scaled evenly, still white


def test_a_host_claiming_one_milliamp_per_led_cannot_lift_the_firmwares_power_limit(
    usb: Booted,
) -> None:
    usb.show(pattern(3))  # (a frame to tell the next ones from)
    mark = len(usb.chip.frames)
    usb.host.send(p.BRIGHTNESS, p.brightness_payload(255, 0, 1))  # would be ~15.6 A unscaled
    usb.host.send(p.FULL, b"\xff" * (3 * LEDS))
    assert usb.chip.wait(
        lambda: any(f.rgb.count(f.rgb[0]) == 3 * LEDS for f in usb.chip.frames[mark:] if f.rgb[0])
    )
    pong_mark = len(usb.chip.messages)
    usb.host.send(p.PING, p.ping_payload(0x25))
    usb.chip.message(p.PONG, after=pong_mark)  # (every frame after it has been drawn)
    shown = usb.chip.frames[mark:]
    # Judged by the firmware's own 60 mA per LED (config.py's LED_MA): never over its budget.
    assert max(ledctl.estimate_ma(sum(f.rgb), LEDS, 60) for f in shown) <= 2000
    white = next(f for f in shown if f.rgb[0])
    assert ledctl.estimate_ma(sum(white.rgb), LEDS, 60) > 0.9 * 2000
    assert white.rgb == bytes([white.rgb[0]]) * (3 * LEDS)  # scaled evenly, still white


def test_a_full_frame_in_chunks_shows_only_whole_and_a_damaged_chunk_is_resent_alone(
    usb: Booted,
) -> None:
    chip = usb.chip
    old = pattern(7)
    usb.show(old)
    new = pattern(8)
    chunks = p.full_chunks(9, new, 64)  # four chunks of 64 LEDs
    mark = len(chip.frames)
    said = len(chip.messages)
    for index, payload in enumerate(chunks):
        wire = bytearray(p.encode(p.FULL_CHUNK, usb.host.seq, payload))
        usb.host.seq = (usb.host.seq + 1) & 0xFF
        if index == 1:
            wire[40] = wire[40] ^ 0x40 or 0x41  # one damaged byte (never a 0x00)
        chip.send(bytes(wire))
    reply = chip.message(p.CHUNKS, after=said)
    assert p.parse_chunks(reply.payload) == (9, [1])  # just the damaged one is missing
    chip.run_for(0.05)
    assert all(f.rgb == old for f in chip.frames[mark:])  # the old frame, never a mix
    usb.host.send(p.FULL_CHUNK, chunks[1])  # the one chunk again
    chip.frame_showing(new, emu_s=3, after=mark)
    done = chip.message(p.CHUNKS, after=chip.messages.index(reply) + 1)
    assert p.parse_chunks(done.payload) == (9, [])


def test_link_lost_after_silence_keeps_the_score_and_shows_the_sign(usb: Booted) -> None:
    chip = usb.chip
    rgb = pattern(3)
    usb.show(rgb)
    silent_from = chip.arrived_at()
    mark = len(chip.frames)
    sign = bytes(rgb[: 3 * 255]) + LOST
    frame = chip.frame_showing(sign, emu_s=5, after=mark)
    assert ledctl.LINK_LOST_MS * 1e6 <= frame.end_ns - silent_from <= 3.2e9
    # The Pico's own LED blinks: dark for 900 ms of every second.
    assert chip.wait(lambda: any(t > frame.end_ns and not on for t, on in chip.status_led), 1)
    mark = len(chip.frames)
    usb.host.send(p.PING, p.ping_payload(1))
    chip.frame_showing(rgb, emu_s=2, after=mark)  # the host is back: the sign goes


def test_a_hung_firmware_is_reset_by_its_watchdog_and_shows_the_frame_resent(
    usb: Booted,
) -> None:
    chip = usb.chip
    rgb = pattern(6)
    usb.show(rgb)
    hung = chip.done_at("hang")  # the main loop stops: nothing feeds the watchdog
    assert chip.wait(lambda: chip.resets, emu_s=3)
    assert 0.9e9 <= chip.resets[0] - hung <= 1.2e9
    mark = len(chip.frames)
    hello = chip.message(p.HELLO, after=len(chip.messages), emu_s=5)
    assert p.parse_hello(hello.payload)[2] == LEDS
    assert all(f.start_ns > chip.resets[0] for f in chip.frames[mark:])
    assert any(len(lit(f)) == 1 for f in chip.frames[mark:])  # the boot pattern, not the frame
    recovered = Booted.__new__(Booted)  # the host answers the new HELLO and resends
    recovered.chip, recovered.hello, recovered.host = chip, hello, usb.host
    usb.host.hello()
    frame = recovered.show(rgb)
    assert frame.end_ns - chip.resets[0] < 3e9


def test_goodbye_darkens_the_pin_and_the_silence_after_it_lights_no_sign(usb: Booted) -> None:
    chip = usb.chip
    usb.show(pattern(6))
    mark = len(chip.frames)
    usb.host.send(p.GOODBYE)
    dark = chip.frame_showing(bytes(3 * LEDS), emu_s=3, after=mark)
    chip.run_for(ledctl.LINK_LOST_MS / 1000 + 1.5)  # the link is lost meanwhile
    assert chip.status_led[-1][0] > dark.end_ns  # (the Pico's own LED blinks: lost)
    # No red sign after GOODBYE's dark frame (before it, a test thread stalled for longer
    # than LINK_LOST_MS of the free-running chip's time may rightly have seen one).
    after = next(i for i, f in enumerate(chip.frames) if f is dark)
    assert all(f.grb == bytes(3 * LEDS) for f in chip.frames[after:])
    usb.show(pattern(7))  # the host is back


def test_update_frees_the_repl_for_its_window_then_the_watchdog_restarts_the_controller(
    usb: Booted,
) -> None:
    chip = usb.chip
    resets = len(chip.resets)
    mark = len(chip.output)
    usb.host.send(p.UPDATE, b"not the key")  # a frame that is not the request: ignored
    usb.host.send(p.PING, p.ping_payload(5))
    chip.message(p.PONG, after=len(chip.messages))
    usb.host.send(p.UPDATE, p.UPDATE_KEY)
    asked = chip.arrived_at()  # (the request's last byte reached the chip)
    assert chip.wait(lambda: b"update mode, REPL left free for 4 s" in chip.output[mark:], emu_s=2)
    # The REPL answers within the window (Chip.repl may need a few emulated seconds of it).
    assert chip.repl(b"print(6 * 7)", b"42", emu_s=(asked + 3.6e9 - chip.now_ns) / 1e9)
    assert len(chip.resets) == resets
    chip.run_for(max(0.0, (asked + 1.5e9 - chip.now_ns) / 1e9))
    assert len(chip.resets) == resets  # over the rig's 1 s watchdog: a timer feeds it now
    # No copy comes (a failed install): at the end of the 4 s window the watchdog resets
    # the Pico, and the controller is back, saying HELLO.
    hellos = len(chip.messages)
    assert chip.wait(lambda: len(chip.resets) > resets, emu_s=6)
    window = chip.resets[resets] - asked
    assert 4.0e9 <= window <= 4.0e9 + 0.25e9 + 1.0e9 + 0.1e9  # + a feeding period + the watchdog
    chip.message(p.HELLO, after=hellos, emu_s=5)


@pytest.mark.parametrize(
    "broken",
    [{"STRIP_DRIVER": "sparkles"}, {"LINK": "uart", "UART_ID": 7}],
    ids=["strip", "uart"],
)
def test_a_strip_or_uart_that_does_not_open_ends_in_a_watchdog_reset_not_a_repl_for_ever(
    tmp_path: Path, broken: dict[str, object]
) -> None:
    with Chip(tmp_path, config={"WATCHDOG_MS": 1000, **broken}) as chip:
        faulted = chip.printed_at(b"fault, the watchdog resets the Pico", emu_s=4)
        assert chip.wait(lambda: chip.resets, emu_s=3)
        assert chip.resets[0] - faulted <= 1.5e9  # the configured watchdog (1 s), not a REPL
        assert chip.wait(lambda: len(chip.resets) >= 2, emu_s=5)  # and again: never stuck
        assert not chip.messages  # no controller: no HELLO


class SyntaxErrorValue:
    """A config.py value that makes the file fail to import (its repr is no Python)."""

    def __repr__(self) -> str:
        return "256 +"


def test_a_config_py_that_does_not_import_leaves_the_repl_free_for_the_update_window(
    tmp_path: Path,
) -> None:
    with Chip(tmp_path, config={"LED_COUNT": SyntaxErrorValue()}) as chip:
        assert chip.wait(lambda: b"fault at import: SyntaxError" in chip.output, emu_s=4)
        chip.run_for(9)  # past the 8 s watchdog armed before the imports: a timer feeds it
        assert not chip.resets and not chip.messages
        assert chip.repl(b"print(6 * 7)", b"42")  # to fix config.py with mpremote


def test_the_uart_link_carries_frames_too(uart: Booted) -> None:
    assert p.parse_hello(uart.hello.payload)[2:] == (LEDS, "GRB")
    rgb = pattern(4)
    uart.show(rgb)
    runs = [(7, b"\x09\x08\x07"), (200, b"\0\0\x03" * 4)]
    want = bytearray(rgb)
    for start, run in runs:
        want[3 * start : 3 * start + len(run)] = run
    mark = len(uart.chip.frames)
    uart.host.send(p.DELTA, p.delta_payload(runs))
    uart.chip.frame_showing(bytes(want), emu_s=3, after=mark)
    mark = len(uart.chip.messages)
    uart.host.send(p.PING, p.ping_payload(77))
    token, applied, bad = p.parse_pong(uart.chip.message(p.PONG, after=mark).payload)
    assert (token, applied, bad) == (77, 2, 0)


def test_safe_mode_with_bootsel_then_a_watchdog_reset_boots_the_controller(
    tmp_path: Path,
) -> None:
    with Chip(tmp_path, bootsel=True) as chip:
        assert chip.printed(b"safe mode", emu_s=4)
        chip.run_for(0.2)
        assert chip.frames and chip.frames[-1].grb == bytes(3 * LEDS)  # the strip is cleared
        assert chip.status_led and chip.status_led[-1][1] == 1  # the Pico's LED is on
        assert not chip.messages  # no controller: no HELLO
        assert chip.repl(b"print(6 * 7)", b"42")  # the REPL is free (for mpremote)
        # Release BOOTSEL, then let an unfed watchdog reset the chip: it comes back up
        # as the controller and says HELLO.
        chip.command("bootsel", pressed=False)
        line = b"import machine; dog = machine.WDT(timeout=500)"
        mark = len(chip.output)
        assert chip.repl(line, line)  # its echo: the REPL has read it (and runs it at once)
        armed = chip.printed_at(line, after=mark)
        assert chip.wait(lambda: chip.resets, emu_s=3)
        assert 0.45e9 <= chip.resets[0] - armed <= 1.5e9
        booted = Booted(chip)
        assert p.parse_hello(booted.hello.payload)[2] == LEDS
        booted.show(pattern(5))


@pytest.fixture
def board_on_chip(tmp_path: Path, mock_factory: MockFactory) -> Iterator[tuple[Rig, Chip]]:
    """``boardctl run`` (the service, mock buttons) -> serial link over a pty -> the chip."""
    with service_on_chip(
        tmp_path, mock_factory, {"board": {"brightness": 255}}, {"WATCHDOG_MS": 1000}
    ) as pair:
        yield pair


@contextlib.contextmanager
def service_on_chip(
    tmp_path: Path,
    mock_factory: MockFactory,
    settings: dict[str, object],
    chip_config: dict[str, object] | None = None,
) -> Iterator[tuple[Rig, Chip]]:
    """The service in free mode with ``settings`` (config sections), its serial link over a
    pty to an emulated chip with ``chip_config`` (the firmware's config.py values)."""
    port = PtyPort(tmp_path / "leds")
    with Chip(tmp_path, on_output=port.write, config=chip_config) as chip:
        port.attach(chip)
        link = {"kind": "serial", "device": str(port.path)}
        config = parse_config({**FAST, "game": {"mode": "free"}, "link": link, **settings})
        rig = Rig(tmp_path, mock_factory, config, link=None, clock=ManualClock())
        try:
            yield rig, chip
        finally:
            rig.close()
            port.close()


def test_a_scripted_game_from_the_buttons_reaches_the_pin(
    board_on_chip: tuple[Rig, Chip],
) -> None:
    rig, chip = board_on_chip
    chip.message(p.HELLO, emu_s=5)
    script = [(1, 5), (2, 3), (1, 2), (2, 6), (1, 4)]
    for number, (track, points) in enumerate(script):
        rig.enter(track, points)
        total = sum(pts for t, pts in script[: number + 1] if t == track)
        rig.wait_for(lambda: rig.status()["tracks"][track - 1]["front"] == total)  # noqa: B023
        sent = rig.loop.frame
        assert sent is not None
        # The renderer's frame, after its power limiter, exactly as the strip shows it.
        chip.frame_showing(bytes(sent), emu_s=5)
    assert rig.loop.link.connected
    # The firmware hangs: its watchdog resets the chip, the link hears the new HELLO and
    # resends the whole frame, and the pin shows the score again.
    final = rig.loop.frame
    assert final is not None
    shown = bytes(final)
    hellos = sum(1 for m in chip.messages if m.kind == p.HELLO)
    chip.command("hang")
    assert chip.wait(lambda: chip.resets, emu_s=3)
    mark = len(chip.frames)
    assert chip.wait(lambda: sum(m.kind == p.HELLO for m in chip.messages) > hellos, emu_s=5)
    frame = chip.frame_showing(shown, emu_s=5, after=mark)
    assert frame.start_ns > chip.resets[0]


def test_a_quarter_brightness_reaches_the_pin_on_the_perceptual_curve(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    settings: dict[str, object] = {"board": {"brightness": 64}}
    with service_on_chip(tmp_path, mock_factory, settings, {"WATCHDOG_MS": 1000}) as (rig, chip):
        chip.message(p.HELLO, emu_s=5)
        rig.enter(1, 7)
        rig.wait_for(lambda: rig.status()["tracks"][0]["front"] == 7)
        loop = rig.loop
        full = Renderer(builtin_layout("two-121")).render(loop.view(), loop.clock())
        # Every channel on the pin is its full-brightness value on the curve, once: no
        # second scaling by the link or the firmware (which apply none of their own).
        want = bytes(v and max(1, round(v * (64 / 255) ** 2.2)) for v in full)
        shown = chip.frame_showing(want, emu_s=5).rgb
        assert 0 < max(shown) < max(full) // 4  # (a linear 25 % would be a quarter of full)
