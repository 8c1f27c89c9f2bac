"""The WS2812 strip driven by PIO and DMA: a refresh runs while the CPU does other work.

MicroPython's ``neopixel`` times every bit on the CPU (``machine.bitstream``) with the
interrupts off for the whole refresh: 7.7 ms for 256 LEDs, while the UART's 32-byte RX
FIFO fills in 0.32 ms at 1 Mbaud, so a UART link loses bytes. Here a PIO state machine
makes the bits (800 kbit/s: 10 cycles a bit at 8 MHz) and a DMA channel feeds it the
strip's bytes from RAM, one byte per transfer, paced by the state machine's TX FIFO
(its DREQ). ``show()`` starts a refresh and returns at once; the interrupts stay on and
the controller's loop reads and checks the next frame meanwhile.

Two buffers: ``show()`` writes the one the DMA is not reading, and a refresh starts only
once the one before it has gone out and the strip has latched (``ready()``).
"""

import time

import hw
import machine
import rp2

TYPE_CHECKING = False  # (mypy: true; firmware/mypy.ini)
if TYPE_CHECKING:
    from collections.abc import Callable

    from rp2.asm_pio import *  # noqa: F403 (the PIO assembler's names, for mypy)

FREQ = 8_000_000  # PIO clock: 10 cycles per WS2812 bit at 800 kbit/s
BIT_NS = 1250
LATCH_US = 300  # low time that latches the strip (WS2812B V5: > 280 us; older: > 50 us)
SLACK_US = 20  # the DMA's first transfer, the state machine's start


# The WS2812 program of the Raspberry Pi Pico examples (T1 = 3, T2 = 3, T3 = 4 cycles):
# a 0 bit is high 375 ns, a 1 bit 750 ns, every bit 1.25 us. ``out`` stalls with the
# line low (side 0) when the FIFO is empty: between refreshes the line rests low.
# Autopull every 8 bits, shifting left: an 8-bit DMA write fills the whole 32-bit FIFO
# word with copies of its byte (the RP2040's bus replicates narrow writes), and the
# top 8 bits go out first, MSB first, as the strip wants them.
@rp2.asm_pio(
    sideset_init=rp2.PIO.OUT_LOW,
    out_shiftdir=rp2.PIO.SHIFT_LEFT,
    autopull=True,
    pull_thresh=8,
)
def _ws2812() -> None:
    wrap_target()  # noqa: F405
    label("bitloop")  # noqa: F405
    out(x, 1).side(0)[3]  # noqa: F405  (low: T3)
    jmp(not_x, "do_zero").side(1)[2]  # noqa: F405  (high: T1)
    jmp("bitloop").side(1)[2]  # noqa: F405  (a 1 bit: high on for T2)
    label("do_zero")  # noqa: F405
    nop().side(0)[2]  # noqa: F405  (a 0 bit: low for T2)
    wrap()  # noqa: F405


_open: "list[PioStrip]" = []  # (keeps the buffers alive while a DMA reads them)


class PioStrip:
    """A WS2812 strip on one GPIO, refreshed by a PIO state machine fed by DMA.

    ``ticks_us`` is ``time.ticks_us`` on the Pico (a check may hand in its own clock).
    """

    def __init__(
        self,
        pin: int,
        led_count: int,
        color_order: str = "GRB",
        state_machine: int = 0,
        ticks_us: "Callable[[], int] | None" = None,
    ) -> None:
        self.led_count = led_count
        self.offsets = hw.order_offsets(color_order)
        self.size = 3 * led_count
        self.buffers = (bytearray(self.size), bytearray(self.size))
        self.back = 0  # the buffer show() writes next (the DMA reads the other one)
        self.sm = rp2.StateMachine(state_machine, _ws2812, freq=FREQ, sideset_base=machine.Pin(pin))
        self.sm.active(1)
        self.dma = rp2.DMA()
        # One byte a transfer, from the buffer to the TX FIFO, when the FIFO has room
        # (DREQ_PIOn_TXm = 8 n + m).
        dreq = (state_machine // 4) * 8 + state_machine % 4
        self.ctrl = self.dma.pack_ctrl(size=0, inc_read=True, inc_write=False, treq_sel=dreq)
        self.ticks_us: Callable[[], int] = ticks_us or time.ticks_us  # type: ignore[assignment]
        # A refresh and the latch after it, in us.
        self.busy_us = (self.size * 8 * BIT_NS + 999) // 1000 + LATCH_US + SLACK_US
        self.started = 0
        self.busy = False
        _open.append(self)

    def elapsed_us(self) -> int:
        return time.ticks_diff(self.ticks_us(), self.started)

    def ready(self) -> bool:
        """True once the last refresh has gone out and latched: a new one may start."""
        if self.busy:
            elapsed = self.elapsed_us()
            # (a negative difference: the ticks wrapped long after the refresh ended)
            if (0 <= elapsed < self.busy_us) or self.dma.active():
                return False
            self.busy = False
        return True

    def free_in_ms(self) -> int:
        """Whole milliseconds until ``ready()``, rounded down (0: now, or within 1 ms: the
        loop then looks again at once rather than oversleep)."""
        if self.ready():
            return 0
        return max(0, self.busy_us - self.elapsed_us()) // 1000

    def show(self, rgb: bytearray) -> None:
        """Start a refresh showing ``rgb`` (RGB per LED) and return; if the one before is
        still going out, wait for it (with the interrupts on) first."""
        buffer = self.buffers[self.back]
        r, g, b = self.offsets
        hw.reorder(buffer, rgb, self.size, r, g, b)  # (not the buffer the DMA reads)
        if self.busy:  # (the controller asked ready() already: then it is not)
            self.wait()
        self.dma.config(read=buffer, write=self.sm, count=self.size, ctrl=self.ctrl, trigger=True)
        self.started = self.ticks_us()
        self.busy = True
        self.back ^= 1

    def wait(self) -> None:
        """Until the last refresh has gone out and latched."""
        while not self.ready():
            pass
