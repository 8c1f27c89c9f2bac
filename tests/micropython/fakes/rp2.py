"""A stand-in for MicroPython's ``rp2`` module: PIO programs, state machines, DMA channels.

A program is not assembled (its body uses the assembler's names, which exist only inside
MicroPython's ``asm_pio``); a DMA transfer copies its bytes at once into ``sent`` and
stays ``active()`` for 10 us a byte (one byte a WS2812 takes) by ``ticks_us``, which a
check may replace with its own clock.
"""

import time

ticks_us = getattr(time, "ticks_us", time.time_ns)  # (MicroPython's, wrapping at 2**30)


class PIO:
    OUT_LOW = 2
    OUT_HIGH = 3
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1


def asm_pio(**settings: object) -> "object":
    def assemble(program: "object") -> "dict[str, object]":
        return {"program": getattr(program, "__name__", "?"), "settings": settings}

    return assemble


machines: "list[StateMachine]" = []  # every StateMachine made
channels: "list[DMA]" = []  # every DMA made


class StateMachine:
    def __init__(self, ident: int, program: object = None, **settings: object) -> None:
        self.ident = ident
        self.program = program
        self.settings = settings
        self.running = False
        machines.append(self)

    def active(self, value: "int | None" = None) -> bool:
        if value is not None:
            self.running = bool(value)
        return self.running


class DMA:
    def __init__(self) -> None:
        self.started = 0
        self.count = 0
        self.sent: list[bytes] = []  # every transfer's bytes
        self.reads: list[object] = []  # the buffer each transfer read
        self.ctrl: object = None
        self.write: object = None
        channels.append(self)

    def pack_ctrl(self, **fields: object) -> "dict[str, object]":
        return fields

    def config(
        self,
        read: "bytearray | None" = None,
        write: object = None,
        count: int = 0,
        ctrl: object = None,
        trigger: bool = False,
    ) -> None:
        self.ctrl = ctrl
        self.write = write
        if trigger and read is not None:
            if self.active():
                raise AssertionError("a DMA transfer started while the last one runs")
            self.sent.append(bytes(read[:count]))
            self.reads.append(read)
            self.started = ticks_us()
            self.count = count

    def active(self) -> bool:
        elapsed = (int(ticks_us()) - self.started) & 0x3FFFFFFF
        return elapsed < 10 * self.count


def bootsel_button() -> int:
    return 0
