"""Stand-ins for the controller's stream and clock, for the checks run under MicroPython.

``check_firmware.py`` and ``check_buzzer.py`` import them (the runner puts this folder's
files on ``sys.path``, see ``tests/test_firmware_micropython.py``).
"""


class ManualClock:
    """``ticks_ms`` that moves only when a check sets ``now``."""

    def __init__(self) -> None:
        self.now = 0

    def ticks_ms(self) -> int:
        return self.now

    def ticks_diff(self, a: int, b: int) -> int:
        return a - b


class MemoryStream:
    """The link: ``inbox`` is read once, everything written collects in ``sent``."""

    def __init__(self) -> None:
        self.inbox = b""
        self.sent = b""

    def read(self) -> "bytes | None":
        data = self.inbox
        self.inbox = b""
        return data or None

    def write(self, data: bytes) -> None:
        self.sent += bytes(data)

    def wait(self, ms: int) -> None:
        pass
