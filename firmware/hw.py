"""The Pico's hardware behind the small interfaces ``ledctl.Controller`` expects.

Every ``machine``, ``neopixel``, ``select`` and ``sys.stdin`` call of the firmware is in
this file, so ``ledctl`` imports and runs on CPython. The tests run this file too, under
a real MicroPython with fake ``machine`` and ``neopixel`` modules.
"""

import sys
import time

import machine
import neopixel

# The hot loops, compiled to machine code on the Pico (@micropython.viper / .native, which
# the compiler handles: they are not attributes of the module). Where those emitters are
# missing (the WebAssembly build, CPython with fakes) the same loops run as plain Python;
# exec, since viper's ptr8 annotations are not Python elsewhere.
_FAST = """
@micropython.viper
def reorder(dst: ptr8, src: ptr8, size: int, r: int, g: int, b: int):
    i = 0
    while i < size:
        dst[i + r] = src[i]
        dst[i + g] = src[i + 1]
        dst[i + b] = src[i + 2]
        i += 3


@micropython.viper
def cobs_into(src: ptr8, n: int, dst: ptr8) -> int:
    i = 0
    o = 0
    while i < n:
        code = src[i]
        if code == 0:
            return -1
        stop = i + code
        if stop > n:
            return -2
        i += 1
        while i < stop:
            dst[o] = src[i]
            o += 1
            i += 1
        if code != 0xFF and i < n:
            dst[o] = 0
            o += 1
    return o


@micropython.viper
def scale_bytes(out: ptr8, frame: ptr8, size: int, factor: int):
    i = 0
    while i < size:
        out[i] = frame[i] * factor // 65280
        i += 1


@micropython.native
def fill(buffer, one, limit: int, readinto, poll) -> int:
    size = 0
    while size < limit and poll(0):
        readinto(one)
        buffer[size] = one[0]
        size += 1
    return size
"""


def reorder(dst: bytearray, src: bytearray, size: int, r: int, g: int, b: int) -> None:
    """``dst`` = ``src`` (RGB) in the strip's byte order (R at ``r``, G at ``g``, B at ``b``)."""
    for i in range(0, size, 3):
        dst[i + r] = src[i]
        dst[i + g] = src[i + 1]
        dst[i + b] = src[i + 2]


def fill(buffer: bytearray, one: bytearray, limit: int, readinto: "object", poll: "object") -> int:
    """Move what a stream holds into ``buffer``, one byte at a time, at most ``limit``."""
    size = 0
    while size < limit and poll(0):  # type: ignore[operator]
        readinto(one)  # type: ignore[operator]
        buffer[size] = one[0]
        size += 1
    return size


def cobs_into(src: bytes, n: int, dst: bytearray) -> int:
    """COBS-decode ``src[:n]`` into ``dst``: its length, or -1 / -2 for a 0x00 byte / a block
    running past the end (``protocol.cobs_decode``'s two errors)."""
    raise NotImplementedError  # only the compiled one (in _FAST) is ever used


scale_bytes = None  # the compiled one only (ledctl has the plain one)

try:
    exec(_FAST)  # replaces reorder(), cobs_into(), scale_bytes() and fill() where they compile
    FAST = True
except Exception:  # SyntaxError, ValueError or NameError, by interpreter
    FAST = False


class CobsDecoder:
    """``protocol.cobs_decode`` in compiled code, into one preallocated buffer."""

    def __init__(self, size: int, error: "type[ValueError]") -> None:
        self.out = bytearray(size)
        self.error = error

    def __call__(self, data: bytes) -> bytes:
        if len(data) > len(self.out):
            raise self.error("COBS block runs past the end of the frame")
        size = cobs_into(data, len(data), self.out)
        if size == -1:
            raise self.error("COBS block holds a 0x00 byte")
        if size < 0:
            raise self.error("COBS block runs past the end of the frame")
        return bytes(self.out[:size])


def speed_up(protocol: "object", max_frame: int) -> None:
    """On the Pico, let the protocol module use the compiled COBS decoder."""
    if FAST:
        protocol.cobs_decode = CobsDecoder(max_frame, protocol.ProtocolError)  # type: ignore[attr-defined]


def order_offsets(color_order: str) -> "tuple[int, int, int]":
    """Where R, G and B go within one LED's bytes, e.g. GRB -> (1, 0, 2)."""
    order = color_order.upper()
    if len(order) != 3 or sorted(order) != ["B", "G", "R"]:
        raise ValueError("colour order " + repr(color_order) + " is not a mix of R, G and B")
    return (order.index("R"), order.index("G"), order.index("B"))


class NeoStrip:
    """A WS2812 strip on one GPIO, fed RGB frames and writing them in its own byte order."""

    def __init__(self, pin: int, led_count: int, color_order: str = "GRB") -> None:
        self.pixels = neopixel.NeoPixel(machine.Pin(pin), led_count)
        self.led_count = led_count
        self.offsets = order_offsets(color_order)

    def show(self, rgb: bytearray) -> None:
        r, g, b = self.offsets
        reorder(self.pixels.buf, rgb, 3 * self.led_count, r, g, b)
        self.pixels.write()


class UsbStream:
    """The USB CDC serial port, binary-safe: Ctrl-C no longer interrupts the firmware."""

    def __init__(self, limit: int = 1024) -> None:
        import select

        import micropython

        micropython.kbd_intr(-1)
        self.limit = limit
        self.buffer = bytearray(limit)  # preallocated: no allocation per byte
        self.one = bytearray(1)
        self.input = sys.stdin.buffer
        self.output = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self) -> "bytes | None":
        # stdin says only *whether* a byte waits, not how many, and a longer read would
        # block: so one byte at a time, into a preallocated buffer.
        size = fill(self.buffer, self.one, self.limit, self.input.readinto, self.poller.poll)  # type: ignore[union-attr]
        return bytes(self.buffer[:size]) if size else None

    def write(self, data: bytes) -> None:
        self.output.write(data)

    def wait(self, ms: int) -> None:
        self.poller.poll(ms)


class UartStream:
    """A hardware UART, for a Pi wired to the Pico's RX/TX pins."""

    def __init__(self, uart_id: int, baud: int, tx: int, rx: int) -> None:
        import select

        self.uart = machine.UART(
            uart_id, baudrate=baud, tx=machine.Pin(tx), rx=machine.Pin(rx), rxbuf=4096
        )
        self.poller = select.poll()
        self.poller.register(self.uart, select.POLLIN)

    def read(self) -> "bytes | None":
        return self.uart.read()

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


def keep_fed(dog: "machine.WDT", timeout_ms: int) -> None:
    """Feed the watchdog from a timer, four times a timeout, from now on (update mode)."""
    dog.feed()
    period = max(10, timeout_ms // 4)
    timer = machine.Timer(
        -1, mode=machine.Timer.PERIODIC, period=period, callback=lambda _timer: dog.feed()
    )
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
