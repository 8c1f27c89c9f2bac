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

TYPE_CHECKING = False  # (mypy: true; firmware/mypy.ini)
if TYPE_CHECKING:
    import protocol

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


@micropython.viper
def find_zero(buf: ptr8, start: int, end: int) -> int:
    i = start
    while i < end:
        if buf[i] == 0:
            return i
        i += 1
    return -1


@micropython.viper
def frame_size_at_least(prefix: ptr8, end: int) -> int:
    # protocol.frame_size_at_least, compiled (the same steps: see there).
    got = 0
    index = 0
    length = 0
    while index < end and got < 4:
        code = prefix[index]
        if code == 0:
            return 0
        stop = index + code
        index += 1
        while index < stop and index < end and got < 4:
            if got >= 2:
                length = (length << 8) | prefix[index]
            got += 1
            index += 1
        if got < 4 and index == stop and code != 0xFF:
            if got >= 2:
                length = length << 8
            got += 1
    if got < 4:
        return 0
    return 4 + length + 1 + 5 + 1


@micropython.viper
def apply_runs(frame: ptr8, size: int, payload: ptr8, end: int):
    # ledctl.Controller.apply_delta's steps, compiled (the runs checked by protocol.check_runs).
    index = 0
    while index < end:
        first = 3 * ((payload[index] << 8) | payload[index + 1])
        count = 3 * payload[index + 2]
        index += 3
        stop = first + count
        if stop > size:
            stop = size
        i = first
        j = index
        while i < stop:
            frame[i] = payload[j]
            i += 1
            j += 1
        index += count


@micropython.viper
def total_bytes(frame: ptr8, size: int) -> int:
    i = 0
    total = 0
    while i < size:
        total += frame[i]
        i += 1
    return total
"""


def reorder(dst: bytearray, src: bytearray, size: int, r: int, g: int, b: int) -> None:
    """``dst`` = ``src`` (RGB) in the strip's byte order (R at ``r``, G at ``g``, B at ``b``)."""
    for i in range(0, size, 3):
        dst[i + r] = src[i]
        dst[i + g] = src[i + 1]
        dst[i + b] = src[i + 2]


def cobs_into(src: bytes, n: int, dst: bytearray) -> int:
    """COBS-decode ``src[:n]`` into ``dst``: its length, or -1 / -2 for a 0x00 byte / a block
    running past the end (``protocol.cobs_into``'s results)."""
    raise NotImplementedError  # only the compiled one (in _FAST) is ever used


def find_zero(buf: bytes, start: int, end: int) -> int:
    """The first 0x00 in ``buf[start:end]``, or -1 (``protocol.find_zero``)."""
    raise NotImplementedError  # only the compiled one (in _FAST) is ever used


def frame_size_at_least(prefix: "protocol.Buffer", end: int) -> int:
    """``protocol.frame_size_at_least(prefix[:end])``."""
    raise NotImplementedError  # only the compiled one (in _FAST) is ever used


scale_bytes = None  # the compiled ones only (ledctl has the plain ones)
total_bytes = None
apply_runs = None

try:
    exec(_FAST)  # replaces reorder(), cobs_into(), find_zero(), scale_bytes(), total_bytes(), ...
    FAST = True
except Exception:  # SyntaxError, ValueError or NameError, by interpreter
    FAST = False


def speed_up(protocol: "object") -> None:
    """On the Pico, let the protocol module use the compiled COBS decoding and 0x00 search."""
    if FAST:
        protocol.cobs_into = cobs_into  # type: ignore[attr-defined]
        protocol.find_zero = find_zero  # type: ignore[attr-defined]


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


def _size_at_least(prefix: "protocol.Buffer", end: int) -> int:
    import protocol

    return protocol.frame_size_at_least(bytes(prefix[:end]))


# The fewest bytes a frame has after its opening 0x00, but its closing one: COBS code
# byte and 4 header bytes (a 0x00 there is a code byte, in its place), 5 check bytes.
_SHORTEST = 10
# Where UsbStream is in the byte stream.
_OUT = 0  # between frames: read only what poll says is there
_HEAD = 1  # after a frame's opening 0x00: its header, then its length, are on their way
_TAIL = 2  # the frame's last bytes, up to its closing 0x00, are on their way


class UsbStream:
    """The USB CDC serial port, binary-safe: Ctrl-C no longer interrupts the firmware.

    MicroPython's ``sys.stdin`` says only *whether* a byte waits, never how many, and a
    longer read blocks until it has them all; one byte at a time costs a ``poll`` and a
    call each (~50 us on the chip). So the stream reads frames as the protocol lays them
    out: byte by byte between frames, then, once a frame's header is in, as many bytes in
    one call as the frame is sure to have still (``protocol.frame_size_at_least``), then
    byte by byte to its closing 0x00. A frame is written whole by the host, so those bytes
    are on their way; only a host stopping in the middle of a frame (a USB cable pulled
    then) would keep the read waiting, until the host sends again or the watchdog resets.
    """

    def __init__(self, limit: int = 1024) -> None:
        import select

        import micropython

        micropython.kbd_intr(-1)
        self.at_least = frame_size_at_least if FAST else _size_at_least
        self.limit = limit
        self.buffer = bytearray(limit)  # preallocated: no allocation per frame
        self.view = memoryview(self.buffer)
        self.state = _OUT
        self.need = 0  # bytes the frame in hand still has for sure (before its tail)
        self.input = sys.stdin.buffer
        self.output = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self) -> "memoryview | None":
        view = self.view
        buffer = self.buffer
        readinto = self.input.readinto  # type: ignore[union-attr]
        poll = self.poller.poll
        n = 0
        limit = self.limit
        while n < limit:
            if self.need > 0:  # bytes of the frame that are on their way: one call
                got = readinto(view[n : n + min(self.need, limit - n)])
                if not got:
                    break
                n += got
                self.need -= got
                continue
            state = self.state
            if state == _HEAD:  # after an opening 0x00: the shortest frame, header included
                if n + _SHORTEST > limit:
                    break
                got = readinto(view[n : n + _SHORTEST]) or 0
                n += got
                if got != _SHORTEST:
                    break  # (a stand-in stream at its end)
                at_least = self.at_least(view[n - _SHORTEST : n], _SHORTEST)
                if at_least:  # all but the closing 0x00 (read on its own, to see it)
                    self.need = at_least - _SHORTEST - 1
                    self.state = _TAIL
                else:
                    self.state = _OUT  # not a frame's start: garbage
                continue
            if state == _OUT and not poll(0):
                break
            if not readinto(view[n : n + 1]):
                break
            n += 1
            if buffer[n - 1] == 0:  # a closing delimiter, or an opening one
                self.state = _OUT if state == _TAIL else _HEAD
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
