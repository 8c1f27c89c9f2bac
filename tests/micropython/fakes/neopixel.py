"""A stand-in for MicroPython's ``neopixel`` module: a GRB buffer and a write count."""


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin: object, n: int, bpp: int = 3, timing: int = 1) -> None:
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0
        self.shown = bytes(self.buf)

    def write(self) -> None:
        self.writes += 1
        self.shown = bytes(self.buf)
