"""A stand-in for MicroPython's ``machine`` module: records what the firmware does."""

log = []
watchdogs = []  # every WDT made


class Pin:
    OUT = 1
    IN = 0

    def __init__(self, ident, mode=-1):
        self.ident = ident
        self.mode = mode
        self.level = 0

    def value(self, level=None):
        if level is None:
            return self.level
        self.level = level
        log.append(("pin", self.ident, level))
        return None


class WDT:
    def __init__(self, timeout=5000):
        self.timeout = timeout
        self.feeds = 0
        watchdogs.append(self)

    def feed(self):
        self.feeds += 1


class UART:
    def __init__(self, ident, baudrate=115200, tx=None, rx=None, rxbuf=256):
        self.ident = ident
        self.baudrate = baudrate
        self.inbox = b""
        self.sent = b""

    def read(self):
        data = self.inbox
        self.inbox = b""
        return data or None

    def write(self, data):
        self.sent += bytes(data)
        return len(data)
