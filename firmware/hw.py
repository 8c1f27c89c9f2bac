"""The Pico's hardware behind the small interfaces ``ledctl.Controller`` expects.

Every ``machine``, ``neopixel``, ``select`` and ``sys.stdin`` call of the firmware is in
this file (and in ``ws2812.py``, the strip by PIO and DMA), so ``ledctl`` imports and runs
on CPython. The tests run this file too, under
a real MicroPython with fake ``machine`` and ``neopixel`` modules.
"""

import sys
import time

import machine
import neopixel

try:
    import fast as fast  # the hot loops, compiled to machine code by viper: on the Pico only
except Exception:  # (no viper emitter: SyntaxError, ValueError, ImportError, by interpreter)
    fast = None  # (the plain functions run instead)


def reorder(dst: bytearray, src: bytearray, size: int, r: int, g: int, b: int) -> None:
    """``dst`` = ``src`` (RGB) in the strip's byte order (R at ``r``, G at ``g``, B at ``b``)."""
    for i in range(0, size, 3):
        dst[i + r] = src[i]
        dst[i + g] = src[i + 1]
        dst[i + b] = src[i + 2]


if fast is not None:
    reorder = fast.reorder


def speed_up(protocol: "object") -> None:
    """On the Pico, let the protocol module use the compiled COBS decoding, 0x00 search
    and frame length guess (``framing.FrameTracker`` takes them from there)."""
    if fast is not None:
        protocol.cobs_into = fast.cobs_into  # type: ignore[attr-defined]
        protocol.find_zero = fast.find_zero  # type: ignore[attr-defined]
        protocol.frame_size_at_least = fast.frame_size_at_least  # type: ignore[attr-defined]


TIDY_FREE = 96 * 1024  # collect garbage, when the link is quiet, below this much free heap


def tidy() -> None:
    """Collect garbage if the heap is half used, at a quiet moment (a collection of the
    Pico's heap takes ~9 ms; left to itself it would run in the middle of some frame)."""
    import gc

    if gc.mem_free() < TIDY_FREE:
        gc.collect()


def order_offsets(color_order: str) -> "tuple[int, int, int]":
    """Where R, G and B go within one LED's bytes, e.g. GRB -> (1, 0, 2)."""
    order = color_order.upper()
    if len(order) != 3 or sorted(order) != ["B", "G", "R"]:
        raise ValueError("colour order " + repr(color_order) + " is not a mix of R, G and B")
    return (order.index("R"), order.index("G"), order.index("B"))


class NeoStrip:
    """A WS2812 strip on one GPIO, fed RGB frames and writing them in its own byte order.

    MicroPython's ``neopixel`` (``machine.bitstream``): the CPU times the bits with the
    interrupts off for the whole refresh (``config.STRIP_DRIVER = "bitstream"``; the PIO
    and DMA driver is ``ws2812.PioStrip``).
    """

    def __init__(self, pin: int, led_count: int, color_order: str = "GRB") -> None:
        self.pixels = neopixel.NeoPixel(machine.Pin(pin), led_count)
        self.led_count = led_count
        self.offsets = order_offsets(color_order)

    def show(self, rgb: bytearray) -> None:
        r, g, b = self.offsets
        reorder(self.pixels.buf, rgb, 3 * self.led_count, r, g, b)
        self.pixels.write()  # (machine.bitstream: returns when the refresh is out)

    def wait(self) -> None:
        """Nothing to wait for: ``show()`` returns once the refresh has gone out."""


class UsbStream:
    """The USB CDC serial port, binary-safe: Ctrl-C no longer interrupts the firmware.

    MicroPython's ``sys.stdin`` says only *whether* a byte waits, never how many, and a
    longer read blocks until it has them all; one byte at a time costs a ``poll`` and a
    call each (~50 us on the chip). So the stream reads frames as the protocol lays them
    out (``framing.FrameTracker``): byte by byte between frames, then, once a frame's
    opening 0x00 and header are in, as many bytes in one call as the frame is sure to have
    still, then byte by byte to its closing 0x00. A frame is written whole by the host, so
    those bytes are on their way; only a host stopping in the middle of a frame (a USB
    cable pulled then) would keep the read waiting, until the host sends again or the
    watchdog resets.
    """

    def __init__(self, limit: int = 1024) -> None:
        import select

        import framing
        import micropython

        micropython.kbd_intr(-1)
        self.tracker = framing.FrameTracker()
        self.limit = limit
        self.buffer = bytearray(limit)  # preallocated: no allocation per frame
        self.view = memoryview(self.buffer)
        self.input = sys.stdin.buffer
        self.output = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self) -> "memoryview | None":
        view = self.view
        tracker = self.tracker
        readinto = self.input.readinto  # type: ignore[union-attr]
        poll = self.poller.poll
        n = 0
        limit = self.limit
        while n < limit:
            want = tracker.committed()
            if want == 0:  # between frames: only what poll says is there
                if not poll(0):
                    break
                want = 1
            got = readinto(view[n : n + min(want, limit - n)])
            if not got:
                break  # (a stand-in stream at its end)
            tracker.scan(self.buffer, n, n + got)
            n += got
        return view[:n] if n else None

    def write(self, data: bytes) -> None:
        self.output.write(data)

    def wait(self, ms: int) -> None:
        self.poller.poll(ms)


class UartStream:
    """A hardware UART, for a Pi wired to the Pico's RX/TX pins."""

    def __init__(self, uart_id: int, baud: int, tx: int, rx: int, limit: int = 1024) -> None:
        import select

        self.uart = machine.UART(
            uart_id, baudrate=baud, tx=machine.Pin(tx), rx=machine.Pin(rx), rxbuf=4096
        )
        self.buffer = bytearray(limit)  # preallocated: no allocation per read
        self.view = memoryview(self.buffer)
        self.limit = limit
        # The views of the buffer's first n bytes, each made the first time it is needed:
        # a read hands one out without allocating (a garbage collection costs ~10 ms).
        self.views: list[memoryview | None] = [None] * (limit + 1)
        self.poller = select.poll()
        self.poller.register(self.uart, select.POLLIN)

    def read(self) -> "memoryview | None":
        # What has arrived, and no more: a longer readinto() would wait out the UART's
        # inter-character timeout (at least 1 ms) after the last byte.
        n = self.uart.any()
        if not n:
            return None
        n = self.uart.readinto(self.buffer, min(n, self.limit)) or 0
        if not n:
            return None
        view = self.views[n]
        if view is None:
            view = self.views[n] = self.view[:n]
        return view

    def write(self, data: bytes) -> None:
        self.uart.write(data)

    def wait(self, ms: int) -> None:
        self.poller.poll(ms)


class Clock:
    """MicroPython's wrapping millisecond ticks."""

    def ticks_ms(self) -> int:
        return time.ticks_ms()  # type: ignore[return-value]  # (ticks as plain ints)

    def ticks_diff(self, a: int, b: int) -> int:
        return time.ticks_diff(a, b)


class StatusLed:
    """The Pico's own LED (``"LED"`` works on the Pico and the Pico W)."""

    def __init__(self, pin: "int | str" = "LED") -> None:
        self.pin = machine.Pin(pin, machine.Pin.OUT)

    def value(self, on: int) -> None:
        self.pin.value(on)


_feeder: "list[object]" = []  # the timer that feeds the watchdog in update mode


def keep_fed(dog: "machine.WDT", timeout_ms: int, window_ms: int) -> None:
    """Feed the watchdog from a timer, four times a timeout, for ``window_ms`` from now
    (update mode, safe mode); then the timer stops and the watchdog resets the Pico."""
    dog.feed()
    period = max(10, timeout_ms // 4)
    start = time.ticks_ms()

    def feed(timer: "machine.Timer") -> None:
        if time.ticks_diff(time.ticks_ms(), start) < window_ms:
            dog.feed()
        else:
            timer.deinit()  # the window is over: the watchdog resets the Pico

    timer = machine.Timer(-1, mode=machine.Timer.PERIODIC, period=period, callback=feed)
    _feeder.append(timer)


def ctrl_c(enabled: bool) -> None:
    """Let a 0x03 byte on the USB port interrupt the running script, or not."""
    import micropython

    micropython.kbd_intr(3 if enabled else -1)


def watchdog(timeout_ms: int) -> "machine.WDT":
    """The hardware watchdog: the Pico resets unless fed within ``timeout_ms``."""
    return machine.WDT(timeout=timeout_ms)


def safe_mode() -> bool:
    """True while the BOOTSEL button is held: start to the REPL, not the controller."""
    try:
        import rp2

        return bool(rp2.bootsel_button())
    except (ImportError, AttributeError):
        return False
