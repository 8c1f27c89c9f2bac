"""A stand-in for MicroPython's ``neopixel`` module: a GRB buffer and a write count."""


class NeoPixel:
    ORDER = (1, 0, 2, 3)

    def __init__(self, pin, n, bpp=3, timing=1):
        self.pin = pin
        self.n = n
        self.bpp = bpp
        self.buf = bytearray(n * bpp)
        self.writes = 0
        self.shown = bytes(self.buf)

    def write(self):
        self.writes += 1
        self.shown = bytes(self.buf)
