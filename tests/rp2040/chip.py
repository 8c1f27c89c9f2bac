"""The emulated Pico from Python: its flash, its link, its LED pin, in emulated time.

``Chip`` builds a littlefs image of the firmware (the files ``firmware/manifest.py``
names, with the protocol module from ``boardctl/link/``), boots the stock MicroPython
RP2040 image on rp2040js (``bridge.mjs``), and collects what comes back: the link's
bytes and messages, every frame decoded from the WS2812 pin, every tone decoded from the
buzzer pin (``BUZZER_PIN``), status LED changes, watchdog resets and bytes lost at UART0's
full RX FIFO (``uart_lost``), each stamped with the chip's emulated time::

    with Chip(tmp_path, link="usb") as chip:
        chip.wait(lambda: chip.messages, emu_s=3)     # the controller's HELLO
        chip.send(protocol.encode(protocol.FULL, 0, rgb))
        assert chip.wait(lambda: chip.frames and chip.frames[-1].rgb == rgb)

``wait`` gives up after ``emu_s`` seconds of *emulated* time (the emulator runs at
about 0.4x real time here, so that is roughly 2.5 ``emu_s`` of wall time).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import subprocess
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from boardctl.link import protocol
from boardctl.link.firmware import firmware_files
from tools.hardware.pico import firmware_settings

RIG = Path(__file__).resolve().parent
IMAGE = RIG / "image" / "micropython-v1.28.0-RPI_PICO.bin"
BRIDGE = RIG / "bridge.mjs"
STALL_S = 60.0  # wall seconds without a "time" event (every 20 emulated ms): the emulator stalled
RP2040JS = RIG / "node_modules" / "rp2040js"
# MicroPython's RPI_PICO littlefs2 file system: 352 blocks of 4 KiB at flash 0xA0000.
FS_GEOMETRY: dict[str, Any] = {  # keyword arguments of littlefs.LittleFS
    "block_size": 4096,
    "block_count": 352,
    "read_size": 32,
    "prog_size": 32,
    "lookahead_size": 32,
    "name_max": 255,
    "disk_version": 0x00020001,
}


def configured(text: str, overrides: dict[str, object]) -> str:
    """``config.py`` with ``NAME = value`` lines replaced (``repr`` of each value)."""
    for name, value in overrides.items():
        text, count = re.subn(rf"^{name} = .*$", f"{name} = {value!r}", text, flags=re.M)
        if count != 1:
            raise KeyError(f"config.py has no line {name} = ...")
    return text


def flash_image(out: Path, overrides: dict[str, object] | None = None) -> Path:
    """A littlefs image holding the firmware's files, as ``mpremote cp`` leaves them."""
    import littlefs

    fs = littlefs.LittleFS(**FS_GEOMETRY)
    for source, name in firmware_files():
        text = source.read_text()
        if name == "config.py":
            text = configured(text, overrides or {})
        with fs.open(name, "w") as fh:
            fh.write(text)
    out.write_bytes(bytes(fs.context.buffer))
    return out


def grb_to_rgb(grb: bytes) -> bytes:
    """The RGB bytes of a GRB strip buffer."""
    out = bytearray(len(grb))
    out[0::3] = grb[1::3]
    out[1::3] = grb[0::3]
    out[2::3] = grb[2::3]
    return bytes(out)


@dataclass(frozen=True)
class PinFrame:
    """One refresh decoded from the LED pin: its bytes in the strip's (GRB) order."""

    start_ns: int
    end_ns: int  # the last bit's falling edge
    grb: bytes
    t0h_ns: tuple[int, int]  # shortest and longest high time of a 0 bit
    t1h_ns: tuple[int, int]

    @property
    def rgb(self) -> bytes:
        return grb_to_rgb(self.grb)


@dataclass(frozen=True)
class PinTone:
    """One tone decoded from the buzzer pin: a run of PWM cycles of one period."""

    start_ns: int  # its first rising edge
    end_ns: int  # the end of its last cycle
    period_ns: float  # mean period
    high_ns: float  # median high time
    cycles: int

    @property
    def hz(self) -> float:
        return 1e9 / self.period_ns

    @property
    def duty(self) -> float:
        return self.high_ns / self.period_ns

    @property
    def ms(self) -> float:
        return (self.end_ns - self.start_ns) / 1e6


class Chip:
    """One emulated Pico running the firmware (see the module docstring)."""

    def __init__(
        self,
        workdir: Path,
        *,
        link: str = "usb",
        bootsel: bool = False,
        config: dict[str, object] | None = None,
        on_output: Callable[[bytes], None] | None = None,
        on_usb: Callable[[dict[str, Any]], None] | None = None,
        on_frame: Callable[[PinFrame], None] | None = None,
        real_time: bool = False,
        catch_up: bool = True,
    ) -> None:
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("node is needed for the emulated Pico (see .ci/run)")
        if not RP2040JS.is_dir():
            raise RuntimeError("run: npm ci --prefix tests/rp2040")
        overrides = dict(config or {})
        if link == "uart":
            overrides.setdefault("LINK", "uart")
        self.link = link
        self.on_output = on_output  # called with every chunk the device sends
        self.on_usb = on_usb  # called with every usb-connected / usb-disconnected event
        self.on_frame = on_frame  # called with every frame decoded from the LED pin
        fs = flash_image(workdir / f"fs-{os.getpid()}-{id(self)}.img", overrides)
        self.output = bytearray()  # every byte the device sent on the link
        self.messages: list[protocol.Message] = []
        self.frames: list[PinFrame] = []
        self.tones: list[PinTone] = []  # from the buzzer pin
        self.tone_level = 0  # the buzzer pin's level at the last "time" event
        # Times by the count of bytes written (send()): a count read off a list that the
        # events' reader fills could be behind what the output's reader saw.
        self.written = 0  # bytes sent so far
        self.rx_done: list[tuple[int, int]] = []  # (bytes written, when they had all arrived)
        self.rx_start: list[tuple[int, int]] = []  # (bytes before, when more were written)
        self.status_led: list[tuple[int, int]] = []
        self.resets: list[int] = []
        # (bytes of output so far, when the last of them was written): the emulated time of
        # the output, which ``now_ns`` (read from the other pipe) may lag behind
        self.out_at: list[tuple[int, int]] = []
        self.done: list[tuple[str, int]] = []  # (command, when the rig carried it out)
        self.uart_lost: list[int] = []  # when a byte was lost at UART0's full RX FIFO
        # The host's view of the USB port: every "usb-connected" (what enumeration read:
        # vid, pid, strings, comm/data interfaces, epIn/epOut, lineCoding, descriptors)
        # and "usb-disconnected" event, in order
        self.usb: list[dict[str, Any]] = []
        self.now_ns = 0
        self.ended = False
        self._decoder = protocol.Decoder()
        self._changed = threading.Condition()
        self._send_lock = threading.Lock()
        events_r, events_w = os.pipe()
        control_r, control_w = os.pipe()
        command = [node, str(BRIDGE), "--bin", str(IMAGE), "--fs", str(fs), "--link", link]
        command += ["--events", str(events_w), "--control", str(control_r)]
        tone_pin = overrides.get("BUZZER_PIN", firmware_settings()["BUZZER_PIN"])
        command += ["--tone-pin", str(tone_pin)]
        if bootsel:
            command.append("--bootsel")
        if real_time:  # its clock never ahead of the wall clock (bridge.mjs)
            command.append("--real-time")
            if not catch_up:  # nor making up for lost time in jumps (bridge.mjs)
                command.append("--no-catch-up")
        self._proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            pass_fds=(events_w, control_r),
        )
        os.close(events_w)
        os.close(control_r)
        self._control: IO[bytes] = os.fdopen(control_w, "wb", buffering=0)
        self._threads = [
            threading.Thread(target=self._read_link, daemon=True),
            threading.Thread(target=self._read_events, args=(events_r,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    # --- talking to it ----------------------------------------------------------

    def send(self, data: bytes) -> int:
        """Bytes to the device's link (USB CDC or UART RX); the count written so far."""
        stdin = self._proc.stdin
        assert stdin is not None
        with self._send_lock:
            stdin.write(data)
            stdin.flush()
            self.written += len(data)
            return self.written

    def arrived_at(self, total: int | None = None, emu_s: float = 2.0) -> int:
        """When the first ``total`` bytes written (None: all so far) had reached the device."""
        return self._reached(self.rx_done, self.written if total is None else total, emu_s)

    def _reached(self, counts: list[tuple[int, int]], total: int, emu_s: float) -> int:
        """The time of the first ``(count, time)`` in ``counts`` whose count reaches
        ``total``, once the events have brought one."""
        assert self.wait(lambda: counts and counts[-1][0] >= total, emu_s), total
        return next(t_ns for count, t_ns in counts if count >= total)

    def write_seen_at(self, first: int, emu_s: float = 2.0) -> int:
        """When the rig got a write whose first byte is number ``first`` (counted from 0),
        made after all before it had arrived."""
        assert self.wait(lambda: any(count == first for count, _ in self.rx_start), emu_s)
        return next(t_ns for count, t_ns in self.rx_start if count == first)

    def repl(self, line: bytes, answer: bytes, emu_s: float = 3.0) -> bool:
        """Type ``line`` at MicroPython's REPL; True once ``answer`` is in the output.

        The rig's USB host sometimes holds a write to MicroPython's own port, for about a
        second or until the next write (2 of 12 runs of the safe-mode check; the cause is not
        found, see README.md): a bare Enter, as a person would press it, goes
        once an emulated second until the answer comes.
        """
        mark = len(self.output)
        self.send(b"\r\n" + line + b"\r\n")
        return self.printed(answer, emu_s, after=mark)

    def printed(self, text: bytes, emu_s: float = 3.0, after: int = 0) -> bool:
        """True once ``text`` is in the output from index ``after``, within ``emu_s`` emulated
        seconds; a bare Enter goes once an emulated second meanwhile (see :meth:`repl`)."""
        for _second in range(max(1, int(emu_s))):
            if self.wait(lambda: text in self.output[after:], emu_s=1.0):
                return True
            self.send(b"\r\n")
        return False

    def command(self, cmd: str, **fields: Any) -> None:
        """A command to the rig: ``bootsel`` (``pressed=``), ``hang``, ``stop``."""
        self._control.write(json.dumps({"cmd": cmd, **fields}).encode() + b"\n")

    def done_at(self, cmd: str, **fields: Any) -> int:
        """Carry out ``command(cmd, ...)`` and return the emulated time the rig did it."""
        mark = len(self.done)
        self.command(cmd, **fields)
        assert self.wait(lambda: len(self.done) > mark, emu_s=2), cmd
        return self.done[mark][1]

    def printed_at(self, text: bytes, emu_s: float = 3.0, after: int = 0) -> int:
        """The emulated time ``text`` was written, from output index ``after`` on (to within
        one of the rig's 2 ms slices): a time read off ``now_ns`` when the text is seen may be
        far earlier, as the events' reader can lag behind the output's on a busy machine."""
        assert self.wait(lambda: text in self.output[after:], emu_s), text
        return self._reached(self.out_at, self.output.index(text, after) + len(text), 2.0)

    def wait(self, condition: Callable[[], object], emu_s: float = 5.0) -> bool:
        """Wait until ``condition()`` is true (checked at every event), at most ``emu_s``
        seconds of emulated time; False if it never was."""
        with self._changed:
            end = self.now_ns + int(emu_s * 1e9)
            # Wall time bounds only a stall: emulated time that stops moving for a minute. A
            # busy machine slows the emulator down, it does not make the wait fail.
            seen, moved = self.now_ns, time.monotonic()
            while True:
                if condition():
                    return True
                if self.now_ns >= end or self.ended or time.monotonic() - moved > STALL_S:
                    return False
                self._changed.wait(1.0)
                if self.now_ns != seen:
                    seen, moved = self.now_ns, time.monotonic()

    def run_for(self, emu_s: float) -> None:
        """Let ``emu_s`` seconds of emulated time pass."""
        end = self.now_ns + int(emu_s * 1e9)
        self.wait(lambda: self.now_ns >= end, emu_s + 1)

    def message(self, kind: int, after: int = 0, emu_s: float = 5.0) -> protocol.Message:
        """The first message of ``kind`` from the device at index ``after`` or later."""

        def found() -> protocol.Message | None:
            return next((m for m in self.messages[after:] if m.kind == kind), None)

        if not self.wait(found, emu_s):
            names = [protocol.KIND_NAMES[m.kind] for m in self.messages[after:]]
            raise AssertionError(f"no {protocol.KIND_NAMES[kind]} from the device; got {names}")
        result = found()
        assert result is not None
        return result

    def frame_showing(self, rgb: bytes, emu_s: float = 5.0, after: int = 0) -> PinFrame:
        """The first refresh on the pin (index ``after`` or later) showing ``rgb``."""

        def found() -> PinFrame | None:
            return next((f for f in self.frames[after:] if f.rgb == rgb), None)

        if not self.wait(found, emu_s):
            last = self.frames[-1].rgb.hex() if self.frames else "nothing"
            raise AssertionError(f"the pin never showed the frame; last: {last[:96]}...")
        result = found()
        assert result is not None
        return result

    def close(self) -> None:
        self._control.close()  # (node waits for a pending read of it before it can exit)
        if self._proc.poll() is None:
            try:
                stdin = self._proc.stdin
                assert stdin is not None
                stdin.close()  # end of input: the bridge stops
                self._proc.wait(10)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        for thread in self._threads:
            thread.join(5)

    def __enter__(self) -> Chip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the readers --------------------------------------------------------------

    def _read_link(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        while data := os.read(stdout.fileno(), 65536):
            if self.on_output is not None:
                self.on_output(data)
            with self._changed:
                self.output.extend(data)
                self.messages.extend(self._decoder.feed(data))
                self._changed.notify_all()

    def _read_events(self, fd: int) -> None:
        with os.fdopen(fd, "r") as events:
            for line in events:
                self._event(json.loads(line))
        with self._changed:
            self.ended = True
            self._changed.notify_all()

    def _event(self, event: dict[str, Any]) -> None:
        with self._changed:
            self.now_ns = max(self.now_ns, int(event["t_ns"]))
            kind = event["event"]
            if kind == "ws2812":
                frame = PinFrame(
                    int(event["start_ns"]),
                    int(event["t_ns"]),
                    bytes.fromhex(event["hex"]),
                    tuple(event["t0h"]),
                    tuple(event["t1h"]),
                )
                self.frames.append(frame)
                if self.on_frame is not None:
                    self.on_frame(frame)
            elif kind == "tone":
                self.tones.append(
                    PinTone(
                        int(event["start_ns"]),
                        int(event["t_ns"]),
                        float(event["period_ns"]),
                        float(event["high_ns"]),
                        int(event["cycles"]),
                    )
                )
            elif kind == "time":
                self.tone_level = int(event.get("tone_level", 0))
            elif kind == "rx-start":
                self.rx_start.append((int(event["first"]), int(event["t_ns"])))
            elif kind == "rx-done":
                self.rx_done.append((int(event["total"]), int(event["t_ns"])))
            elif kind == "status-led":
                self.status_led.append((int(event["t_ns"]), int(event["on"])))
            elif kind in ("usb-connected", "usb-disconnected"):
                self.usb.append(event)
                if self.on_usb is not None:
                    self.on_usb(event)
            elif kind == "out":
                self.out_at.append((int(event["total"]), int(event["t_ns"])))
            elif kind == "done":
                self.done.append((str(event["cmd"]), int(event["t_ns"])))
            elif kind == "watchdog-reset":
                self.resets.append(int(event["t_ns"]))
            elif kind == "uart-overrun":
                self.uart_lost.append(int(event["t_ns"]))
            elif kind == "end":
                self.ended = True
            self._changed.notify_all()


class Host:
    """The host's side of the protocol, by hand: numbered messages to a chip."""

    def __init__(self, chip: Chip) -> None:
        self.chip = chip
        self.seq = 0

    def send(self, kind: int, payload: bytes = b"") -> bytes:
        wire = protocol.encode(kind, self.seq, payload)
        self.seq = (self.seq + 1) & 0xFF
        self.chip.send(wire)
        return wire

    def hello(self, led_count: int = 256) -> bytes:
        payload = protocol.hello_payload(protocol.PROTOCOL_VERSION, (0, 1, 0), led_count, "RGB")
        return self.send(protocol.HELLO, payload)


class PtyPort:
    """A pseudo-terminal in front of a chip's link: what a host writes to ``path`` goes to
    the chip, what the chip sends comes out of ``path`` (a USB CDC port, as the host sees it).

    ``usb_event`` (``Chip(on_usb=port.usb_event)``) makes it follow the USB port as a Linux
    host's device node does: gone (pty closed: the host's reads fail, ``path`` removed) when
    the device disconnects, a new one when it is enumerated again.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.master = self.slave = -1
        self.plug()
        self.plugs = 0  # times the port came back after it had gone
        self.chip: Chip | None = None
        self.from_host = bytearray()  # every byte the host wrote
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._forward, daemon=True)

    def plug(self) -> None:
        """The port (a new pty behind ``path``)."""
        master, slave = os.openpty()
        tty.setraw(slave)
        self.path.unlink(missing_ok=True)
        self.path.symlink_to(os.ttyname(slave))
        self.master, self.slave = master, slave

    def unplug(self) -> None:
        """No port: ``path`` removed, the pty closed (the host's reads and writes fail)."""
        self.path.unlink(missing_ok=True)
        master, slave = self.master, self.slave
        self.master = self.slave = -1
        for fd in (master, slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def usb_event(self, event: dict[str, Any]) -> None:
        if event["event"] == "usb-disconnected" and self.master >= 0:
            self.unplug()
        elif event["event"] == "usb-connected" and self.master < 0:
            self.plug()
            self.plugs += 1

    def attach(self, chip: Chip) -> None:
        self.chip = chip
        self._thread.start()

    def write(self, data: bytes) -> None:
        """Bytes from the chip to the host (``Chip(on_output=port.write)``)."""
        with contextlib.suppress(OSError):
            os.write(self.master, data)

    def _forward(self) -> None:
        while not self._stop.is_set():
            master = self.master
            if master < 0:
                time.sleep(0.01)
                continue
            try:
                ready, _, _ = select.select([master], [], [], 0.05)
                data = os.read(master, 65536) if ready else b""
            except (OSError, ValueError):  # unplugged meanwhile
                continue
            if data and self.chip is not None:
                self.from_host.extend(data)
                self.chip.send(data)

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2)
        self.unplug()
