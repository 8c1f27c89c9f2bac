"""A stand-in for MicroPython's ``machine`` module: records what the firmware does."""

log: "list[tuple[object, ...]]" = []
watchdogs: "list[WDT]" = []  # every WDT made


class Pin:
    OUT = 1
    IN = 0

    def __init__(self, ident: object, mode: int = -1) -> None:
        self.ident = ident
        self.mode = mode
        self.level = 0

    def value(self, level: "int | None" = None) -> "int | None":
        if level is None:
            return self.level
        self.level = level
        log.append(("pin", self.ident, level))
        return None


class WDT:
    def __init__(self, timeout: int = 5000) -> None:
        import rp2

        self.timeout = timeout
        self.feeds = 0
        self.strips_before = len(rp2.machines)  # PIO state machines made before it
        watchdogs.append(self)

    def feed(self) -> None:
        self.feeds += 1


class UART:
    def __init__(
        self,
        ident: int,
        baudrate: int = 115200,
        tx: object = None,
        rx: object = None,
        rxbuf: int = 256,
    ) -> None:
        self.ident = ident
        self.baudrate = baudrate
        self.inbox = b""
        self.sent = b""

    def read(self) -> "bytes | None":
        data = self.inbox
        self.inbox = b""
        return data or None

    def write(self, data: bytes) -> int:
        self.sent += bytes(data)
        return len(data)


pwms: "list[PWM]" = []  # every PWM made


class PWM:
    """Records every change as ``(hz, duty_u16)`` in ``changes``."""

    def __init__(self, pin: Pin) -> None:
        self.pin = pin
        self.hz = 0
        self.duty = 0
        self.changes: list[tuple[int, int]] = []
        pwms.append(self)

    def freq(self, value: "int | None" = None) -> "int | None":
        if value is None:
            return self.hz
        self.hz = value
        return None

    def duty_u16(self, value: "int | None" = None) -> "int | None":
        if value is None:
            return self.duty
        self.duty = value
        self.changes.append((self.hz, value))
        return None
