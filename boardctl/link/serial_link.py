"""Serial back-ends: the Pico controller (framed protocol) and Adalight devices.

One thread per link opens the port (a path, or the first device with the VID:PID), reads, sends
heartbeats and reopens it with backoff; ``show`` never raises for a missing device.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from boardctl.config import parse_vid_pid
from boardctl.errors import ConfigError, LinkError, ProtocolError
from boardctl.link import protocol
from boardctl.link.adalight import adalight_packet
from boardctl.link.base import Closing, check_level, dark
from boardctl.link.encoder import FrameEncoder

log = logging.getLogger("boardctl.link")

PICO_MICROPYTHON = "2E8A:0005"  # Raspberry Pi Pico running MicroPython (USB CDC)
MIN_FULL_GAP = 0.1  # seconds between full frames resent on the controller's request


def find_port(vid_pid: str) -> str | None:
    """The device path of the first serial port with this USB VID:PID, or None."""
    from serial.tools import list_ports

    wanted = parse_vid_pid(vid_pid)
    ports = sorted(list_ports.comports(), key=lambda p: str(p.device))
    return next((str(p.device) for p in ports if (p.vid, p.pid) == wanted), None)


class SerialBackend(Closing):
    """Connection management shared by the serial back-ends (see the module docstring)."""

    kind = "serial"
    quiet_lines = False  # keep DTR/RTS low when opening (the Pico's CDC wants DTR: it is up)

    def __init__(
        self,
        *,
        path: str | None = None,
        vid_pid: str = PICO_MICROPYTHON,
        baud: int = 1_000_000,
        heartbeat: float = 1.0,
        backoff_min: float = 0.25,
        backoff_max: float = 5.0,
        write_timeout: float = 0.2,
        brightness: int = 255,
        clock: Callable[[], float] = time.monotonic,
        wait: Callable[[float], bool] | None = None,
        start: bool = True,
    ) -> None:
        if path is None:
            parse_vid_pid(vid_pid)  # a bad id is a configuration error, found now
        if baud <= 0:
            raise ConfigError(f"baud rate must be positive, not {baud}")
        if not 0 < backoff_min <= backoff_max:
            raise ConfigError("reconnect backoff needs 0 < backoff_min <= backoff_max")
        self.path = path
        self.vid_pid = vid_pid
        self.baud = baud
        self.heartbeat = heartbeat
        self.backoff_min = backoff_min
        self.backoff_max = backoff_max
        self.write_timeout = write_timeout
        self.brightness = check_level(brightness)
        self.clock = clock  # seconds, monotonic: every time the link reads goes through it
        self.state = "starting"
        self.port_name: str | None = None
        self.connects = 0
        self.attempts = 0  # opening tries, successful or not
        self._frame: bytes | None = None
        self._port: Any = None
        self._lock = threading.RLock()  # guards _port, _frame and every write
        self._closed = threading.Event()
        # between reconnects; True: closed meanwhile (a test's returns at once: no sleeping)
        self._wait = wait or self._closed.wait
        self._last_tx = 0.0
        self._parted = False  # the goodbye is sent: nothing more is
        self._thread = threading.Thread(target=self._run, name=f"link-{self.kind}", daemon=True)
        if start:  # (tests may drive it by hand instead: attach() a port, then poll())
            self._thread.start()

    @property
    def connected(self) -> bool:
        return self._port is not None and self.state == "connected"

    def goodbye(self) -> None:
        with self._lock:
            frame = dark(self._frame)
            if frame is None:
                return
            self._frame = frame
            if self._writable():
                self._write(self._goodbye_bytes(frame, self.clock()))
            # Nothing after it: any message (the thread's next PING) tells the controller
            # the host is back, and its link-lost sign would follow the clean stop.
            self._parted = True

    def close(self) -> None:
        self._closed.set()
        port = self._port
        if port is not None:
            with contextlib.suppress(AttributeError, OSError):
                port.cancel_read()
        if self._thread.is_alive():
            self._thread.join(5)
        self._set_state("closed", "")

    # --- hooks for the back-ends -----------------------------------------------
    def _writable(self) -> bool:
        """Whether frames should be written now."""
        return self.connected

    def _frame_bytes(self, frame: bytes, now: float) -> bytes:
        raise NotImplementedError

    def _goodbye_bytes(self, frame: bytes, now: float) -> bytes:
        """Bytes that turn the LEDs dark for good (``frame``: the dark frame)."""
        return self._frame_bytes(frame, now)

    def _on_attach(self) -> None:
        """Called (under the lock) once the port is open: greet the device, send the frame."""

    def _on_data(self, data: bytes) -> None:
        """Bytes the device sent."""

    def _tick(self, now: float) -> None:
        """Called (under the lock) after every read, or read timeout."""

    def _read_timeout(self, now: float) -> float:
        """How long the next read may wait for the device."""
        return self.heartbeat

    def _set_state(self, state: str, detail: str, level: int = logging.INFO) -> None:
        if state != self.state:
            self.state = state
            log.log(level, "LED link (%s): %s%s", self.kind, state, f": {detail}" if detail else "")

    def _write(self, data: bytes) -> None:
        """Write under the lock; a failure is logged by the reader, never raised."""
        port = self._port
        if not data or port is None or self._parted:
            return
        try:
            port.write(data)
            self._last_tx = self.clock()
        except OSError as exc:  # includes serial.SerialException and its timeout
            self._on_write_failed(exc)

    def _on_write_failed(self, exc: OSError) -> None:
        """The write did not complete: part of a message may be on the wire."""

    def _open(self) -> Any:
        import serial

        path = self.path or find_port(self.vid_pid)
        if path is None:
            raise LinkError(f"no USB serial device {self.vid_pid} found")
        port = serial.Serial(
            None,  # opened below, once the modem lines are set
            self.baud,
            timeout=self.heartbeat,
            write_timeout=self.write_timeout,
            exclusive=True,  # a second boardctl gets "waiting", not interleaved frames
        )
        port.port = path
        if self.quiet_lines:  # open without raising DTR/RTS (an ESP32 dev board resets on it)
            port.dtr = False
            port.rts = False
        port.open()
        self.port_name = path
        return port

    def _run(self) -> None:
        backoff = self.backoff_min
        while not self._closed.is_set():
            self.attempts += 1
            try:
                port = self._open()
            except (OSError, ValueError) as exc:
                where = self.path or f"USB {self.vid_pid}"
                self._set_state("waiting", f"{where}: {exc}; retrying", logging.WARNING)
                if self._wait(backoff):
                    break
                backoff = min(backoff * 2, self.backoff_max)
                continue
            backoff = self.backoff_min
            try:
                self.attach(port)
                while not self._closed.is_set():
                    self.poll(port)
            except OSError as exc:
                if not self._closed.is_set():
                    self._set_state("lost", f"{self.port_name}: {exc}", logging.WARNING)
            except Exception:  # a bug here must not leave the LEDs without a link
                log.exception("LED link (%s): unexpected error, reopening the port", self.kind)
                self.state = "lost"
                self._closed.wait(self.backoff_max)
            finally:
                with self._lock:
                    self._port = None
                    with contextlib.suppress(OSError):
                        port.close()

    def attach(self, port: Any) -> None:
        """Start talking to an open ``port``: greet the device, send the frame."""
        with self._lock:
            self._port = port
            self.connects += 1
            self._set_state("connected", str(self.port_name))
            self._on_attach()

    def poll(self, port: Any) -> None:
        """One read (waiting at most the read timeout), then the timers."""
        timeout = self._read_timeout(self.clock())
        if port.timeout != timeout:
            port.timeout = timeout
        data = port.read(1)
        if data:
            waiting = port.in_waiting
            if waiting:
                data += port.read(waiting)
            self._on_data(bytes(data))
        with self._lock:
            self._tick(self.clock())


class PicoLink(SerialBackend):
    """The boardctl LED controller (firmware/) over USB CDC or a UART (options: docs/link.md)."""

    def __init__(
        self,
        *,
        full_every: float = 10.0,
        chunk_leds: int | None = None,
        budget_ma: float = 0,
        led_ma: int = 60,
        **options: Any,
    ) -> None:
        if budget_ma < 0:
            raise ConfigError(f"power budget must be 0 (none) or more mA, not {budget_ma}")
        if not 1 <= led_ma <= 255:
            raise ConfigError(f"mA per LED must be 1-255, not {led_ma}")
        self.budget_ma = min(round(budget_ma), 0xFFFF)  # above 65 A: the controller's limit rules
        self.led_ma = led_ma
        if chunk_leds is None:  # chunks on a UART (bit errors); USB checks and retries itself
            uart = "baud" in options or "baudrate" in options
            chunk_leds = protocol.CHUNK_LEDS if uart else 0
        if not 0 <= chunk_leds <= protocol.MAX_LEDS:
            raise ConfigError(f"LEDs per FULL chunk must be 0 (whole) to 4096, not {chunk_leds}")
        self.chunk_leds = chunk_leds  # once the controller says it takes chunks
        self.encoder = FrameEncoder(full_every=full_every)
        self.decoder = protocol.Decoder()
        self.device: tuple[tuple[int, int, int], int, str] | None = None
        self.error: str | None = None
        self.naks = 0
        self.hellos = 0
        self.legacy = 0  # frames in protocol 1's form (an old firmware)
        self.silence = 3 * options.get("heartbeat", 1.0) + 0.5  # no PONG this long: silent
        self._ping_token = 0
        self._count_warned = False
        self._full_wanted = False
        self._last_ping = float("-inf")
        self._last_answer = 0.0  # when the controller last proved it gets our frames
        self._tone_warned = False
        super().__init__(**options)

    def show(self, frame: bytes) -> None:
        frame = bytes(frame)
        with self._lock:
            self._frame = frame
            if self._writable():
                self._write(self._frame_bytes(frame, self.clock()))

    def set_brightness(self, level: float) -> None:
        level = check_level(level)
        with self._lock:
            self.brightness = level
            if self._writable():
                self._write(self._brightness_bytes())

    def play_tones(self, level: int, steps: list[tuple[int, int]]) -> bool:
        """Send one TONE to the controller's buzzer (``[(Hz, ms), ...]``, 0 Hz a rest;
        level 0-255). False, and nothing sent, while no controller has said HELLO or
        its firmware predates TONE: a cue is never sent late. Bad steps: ProtocolError."""
        protocol.tone_payload(level, steps)  # bad steps raise here, before the lock
        with self._lock:
            if not self._writable() or self.device is None:
                return False
            firmware = self.device[0]
            if firmware < protocol.TONE_FIRMWARE:
                if not self._tone_warned:
                    self._tone_warned = True
                    log.warning(
                        "LED controller firmware %d.%d.%d has no buzzer (TONE needs %d.%d.%d): "
                        "update it with `boardctl firmware install`",
                        *firmware,
                        *protocol.TONE_FIRMWARE,
                    )
                return False
            self._write(self.encoder.tone(level, steps))
            return True

    def _frame_bytes(self, frame: bytes, now: float) -> bytes:
        if self.device is not None and not self._count_warned and len(frame) // 3 != self.device[1]:
            self._count_warned = True
            log.warning(
                "LED link: frames have %d LEDs but the controller drives %d; "
                "set LED_COUNT in the controller's config.py to match the layout",
                len(frame) // 3,
                self.device[1],
            )
        return self.encoder.frame(frame, now)

    def _brightness_bytes(self) -> bytes:
        return self.encoder.brightness(self.brightness, self.budget_ma, self.led_ma)

    def _goodbye_bytes(self, frame: bytes, now: float) -> bytes:
        # The dark frame (any firmware), then GOODBYE: dark it stays, with no link-lost sign.
        data = self._frame_bytes(frame, now)
        if self.device is not None and self.device[0] >= protocol.GOODBYE_FIRMWARE:
            data += self.encoder.goodbye()
        return data

    def _writable(self) -> bool:
        # Silent: the port is open but nothing comes back; keep sending, to recover.
        return self._port is not None and self.state in ("connected", "silent")

    def _on_attach(self) -> None:
        self._last_answer = self.clock()
        self.decoder = protocol.Decoder()
        self.encoder.invalidate()
        self._write(self.encoder.hello(len(self._frame or b"") // 3) + self._brightness_bytes())
        if self._frame is not None:
            self._write(self._frame_bytes(self._frame, self.clock()))

    def _on_write_failed(self, exc: OSError) -> None:
        self.encoder.invalidate()

    def _resend_full(self) -> None:
        """Send the whole frame again, at most every MIN_FULL_GAP seconds (a noisy line
        NAKing every frame must not turn into a resend loop)."""
        now = self.clock()
        with self._lock:
            self.encoder.invalidate()
            if now - self.encoder.last_full < MIN_FULL_GAP:
                self._full_wanted = True  # sent by _tick when the gap has passed
            elif self._frame is not None and self._writable():
                self._write(self._frame_bytes(self._frame, now))

    def _tick(self, now: float) -> None:
        if self.encoder.device_frame is not None:  # a FULL went out meanwhile (show)
            self._full_wanted = False
        due = self._full_wanted and now - self.encoder.last_full >= MIN_FULL_GAP
        if due and self._frame is not None and self._writable():
            self._full_wanted = False
            self._write(self._frame_bytes(self._frame, now))
        # A PING every heartbeat even while frames flow: its PONG is the proof that the
        # controller gets what we send (NAKs alone are not).
        if now - self._last_ping >= self.heartbeat:
            self._heartbeat(now)
        if now - self._last_answer > self.silence and self.state == "connected":
            self._set_state(
                "silent",
                f"no answer from the controller for {self.silence:.1f} s "
                f"({self.naks} NAKs so far): frames may not arrive",
                logging.WARNING,
            )

    def _answered(self) -> None:
        """The controller proved it gets our frames: out of "silent" at once."""
        self._last_answer = self.clock()
        if self.state == "silent":
            self._set_state("connected", str(self.port_name))

    def _read_timeout(self, now: float) -> float:
        if self._full_wanted:
            return max(0.01, MIN_FULL_GAP - (now - self.encoder.last_full))
        return self.heartbeat

    def _on_data(self, data: bytes) -> None:
        for message in self.decoder.feed(data):
            try:
                self._handle(message)
            except ProtocolError as exc:
                log.warning("LED link: ignored a malformed %r: %s", message, exc)

    def _incompatible(self, text: str) -> None:
        self.error = text
        self._set_state("incompatible", text, logging.ERROR)

    def _handle(self, message: protocol.Message) -> None:
        kind = message.kind
        if message.version != protocol.PROTOCOL_VERSION:
            # An old firmware (or, rarely, noise that passed protocol 1's CRC-16: so a HELLO,
            # or three frames, decide).
            self.legacy += 1
            if kind == protocol.HELLO or self.legacy >= 3:
                old = f"{protocol.LEGACY_VERSION} (an older firmware)"
                self._incompatible("the LED controller " + protocol.speaks(old))
            return
        if kind == protocol.HELLO:
            version, firmware, count, order = protocol.parse_hello(message.payload)
            self.hellos += 1
            try:
                protocol.check_version(version, firmware)
            except ProtocolError as exc:
                self._incompatible(str(exc))
                return
            self.error = None
            device = (firmware, count, order)
            if device != self.device:
                log.info(
                    "LED controller: firmware %d.%d.%d, %d LEDs, colour order %s",
                    *firmware,
                    count,
                    order,
                )
            self.device = device
            self.encoder.chunk_leds = self.chunk_leds if firmware >= protocol.CHUNKS_SINCE else 0
            self._count_warned = False
            self._answered()
            with self._lock:
                self._set_state("connected", str(self.port_name))
                self._write(self._brightness_bytes())
            self._resend_full()
        elif kind == protocol.NAK:
            self._on_nak(message)
        elif kind == protocol.CHUNKS:
            self._on_chunks(message)
        elif kind == protocol.PONG:
            token = protocol.parse_pong(message.payload)[0]
            self._answered()
            if self.encoder.unheard(token):
                self._resend_full()
        elif kind == protocol.ERROR:
            code, text = protocol.parse_error(message.payload)
            if code == protocol.ERR_VERSION:
                self._incompatible(text)
            else:
                log.warning("LED controller reports: %s", text)

    def _on_nak(self, message: protocol.Message) -> None:
        self.naks += 1
        _expected, reason = protocol.parse_nak(message.payload)
        now = self.clock()
        if reason != protocol.NAK_NEED_FULL and self.encoder.chunks_pending(now):
            # A chunk was hit: the controller's CHUNKS will say which; a PING now (at most
            # every MIN_FULL_GAP) asks for it at once, in case the last chunk was the one.
            if now - self._last_ping >= MIN_FULL_GAP:
                with self._lock:
                    if self._writable():
                        self._ping(now)
            return
        self._resend_full()

    def _on_chunks(self, message: protocol.Message) -> None:
        frame_id, missing = protocol.parse_chunks(message.payload)
        self._answered()
        if not missing:
            self.encoder.chunks_done(frame_id)
            return
        with self._lock:
            resend = self.encoder.resend_chunks(frame_id, missing, self.clock())
            if resend and self._writable():
                self._write(resend)
        if not resend:  # it is putting an older frame together: send today's
            self._resend_full()

    def _heartbeat(self, now: float) -> None:
        if not self._writable():
            return
        frame = self._frame
        if frame is not None and now - self.encoder.last_full >= self.encoder.full_every:
            self._write(self.encoder.full(frame, now))
        if self.device is None:  # its HELLO has not come (lost on a noisy line): ask again
            self._write(self.encoder.hello(len(frame or b"") // 3))
        self._ping(now)

    def _ping(self, now: float) -> None:
        self._ping_token = (self._ping_token + 1) & 0xFFFF
        self._last_ping = now
        self._write(self.encoder.ping(self._ping_token))


class AdalightLink(SerialBackend):
    """A WLED device or an Adalight Arduino sketch: full frames, resent every ``refresh``
    seconds. ``show`` only hands the frame over: the link's writer thread sends it, paced to
    the line, the newest winning (docs/link.md; tests call ``send_pending()``)."""

    kind = "adalight"
    quiet_lines = True

    def __init__(self, *, refresh: float = 1.0, **options: Any) -> None:
        options.setdefault("heartbeat", refresh)
        options.setdefault("baud", 115_200)
        self._flush = True
        self._pending = False  # a frame handed over that the writer has not sent
        self._wanted = threading.Condition()  # guards _pending (never held while writing)
        self._line_free = float("-inf")  # when the line has carried what was written
        self.superseded = 0  # frames replaced by a newer one before they went out
        self.packets = 0  # packets written
        self.write_failures = 0
        start = options.pop("start", True)
        super().__init__(start=False, **options)
        self._writer = threading.Thread(
            target=self._write_loop, name="link-adalight-writer", daemon=True
        )
        if start:
            self._thread.start()
            self._writer.start()

    # --- the caller's side: hand over, never wait --------------------------------
    def show(self, frame: bytes) -> None:
        frame = bytes(frame)
        with self._wanted:
            if self._pending and frame != self._frame:
                self.superseded += 1
            self._frame = frame
            self._pending = True
            self._wanted.notify()

    def set_brightness(self, level: float) -> None:
        self.brightness = check_level(level)
        self._hand_over(self._frame is not None)

    def close(self) -> None:
        with self._wanted:
            self._closed.set()
            self._wanted.notify()
        if self._writer.is_alive():
            self._writer.join(5)
        super().close()

    def _hand_over(self, pending: bool) -> None:
        with self._wanted:
            self._pending = pending
            self._wanted.notify()

    def line_free_in(self, now: float) -> float:
        """Seconds until the line has carried everything written (0: free now)."""
        return max(0.0, self._line_free - now)

    def send_pending(self) -> bool:
        """Write the waiting frame if any, the port is open and the line free; True if it went."""
        with self._wanted:
            if not self._pending or self._frame is None or not self.connected:
                return False
            if self.line_free_in(self.clock()) > 0:
                return False
            frame = self._frame
            self._pending = False
        with self._lock:
            data = self._frame_bytes(frame, self.clock())
            self._write(data)
            self._line_free = max(self.clock(), self._line_free) + len(data) * 10 / self.baud
            self.packets += 1
        return True

    def _write_loop(self) -> None:
        while not self._closed.is_set():
            if self.send_pending():
                continue
            with self._wanted:
                if self._closed.is_set():
                    break
                delay = self.heartbeat  # (at most: a clock that stands still cannot stop it)
                if self._pending and self.connected:
                    delay = min(self.line_free_in(self.clock()), delay)
                self._wanted.wait(max(delay, 0.001))

    def _on_attach(self) -> None:
        self._flush = True  # a (re)open: the device may hold a torn packet of ours
        self._line_free = float("-inf")
        self._hand_over(self._frame is not None)

    def _on_write_failed(self, exc: OSError) -> None:
        self._flush = True  # part of a packet may be on the wire
        self.write_failures += 1

    def _frame_bytes(self, frame: bytes, now: float) -> bytes:
        if not frame:
            return b""
        packet = adalight_packet(frame, self.brightness)
        if self._flush:
            # Zeros finish any partial packet (its header said this many bytes) and are
            # ignored between packets; WLED would take 0xB0-0xB7 there as baud commands.
            self._flush = False
            return bytes(len(packet)) + packet
        return packet

    def _tick(self, now: float) -> None:
        if self._frame and now - self._last_tx >= self.heartbeat:  # the refresh: sent again
            self._hand_over(True)
