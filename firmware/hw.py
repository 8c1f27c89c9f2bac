"""The Pico's hardware behind the small interfaces ``ledctl.Controller`` expects.

Every ``machine``, ``neopixel``, ``select`` and ``sys.stdin`` call of the firmware is in
this file, so ``ledctl`` imports and runs on CPython. The tests run this file too, under
a real MicroPython with fake ``machine`` and ``neopixel`` modules.
"""

import sys
import time

import machine
import neopixel


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
        buf = self.pixels.buf
        r, g, b = self.offsets
        for base in range(0, 3 * self.led_count, 3):
            buf[base + r] = rgb[base]
            buf[base + g] = rgb[base + 1]
            buf[base + b] = rgb[base + 2]
        self.pixels.write()


class UsbStream:
    """The USB CDC serial port, binary-safe: Ctrl-C no longer interrupts the firmware."""

    def __init__(self, limit: int = 1024) -> None:
        import select

        import micropython

        micropython.kbd_intr(-1)
        self.limit = limit
        self.input = sys.stdin.buffer
        self.output = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def read(self) -> "bytes | None":
        data = bytearray()
        read = self.input.read
        poll = self.poller.poll
        while len(data) < self.limit and poll(0):
            data.extend(read(1))
        return bytes(data) if data else None

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
