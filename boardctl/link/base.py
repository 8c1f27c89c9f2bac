"""The ``Link`` interface and the back-ends that need no device: null and recording."""

from __future__ import annotations

import threading
from typing import Protocol, Self, runtime_checkable

from boardctl.errors import OptionError


@runtime_checkable
class Link(Protocol):
    """Where frames go. ``show`` never raises because a device is gone: the link
    remembers the frame and shows it again once the device is back."""

    @property
    def connected(self) -> bool:
        """True while frames reach a device."""
        ...

    def show(self, frame: bytes) -> None:
        """Show ``frame`` (RGB per LED); returns at once."""
        ...

    def set_brightness(self, level: float) -> None:
        """Global brightness, 0-255 (applied by the device, on top of the frame)."""
        ...

    def goodbye(self) -> None:
        """A clean stop before ``close()``: the LEDs go dark (a closed link without it leaves the
        last frame on: a crash keeps the score shown)."""
        ...

    def close(self) -> None:
        """Stop; joins any background thread. The LEDs keep the last frame."""
        ...


def dark(frame: bytes | None) -> bytes | None:
    """A frame as long as ``frame``, every LED off (None: no frame yet)."""
    return None if frame is None else bytes(len(frame))


def check_level(level: float) -> int:
    """``level`` as a whole brightness 0-255, or an OptionError (a ValueError) saying why."""
    if isinstance(level, bool) or not isinstance(level, int | float) or not 0 <= level <= 255:
        raise OptionError(f"brightness must be a number 0-255, not {level!r}")
    return round(level)


class Closing:
    """A link (or anything with ``close``) that ``with`` closes at the end."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class NullLink(Closing):
    """Shows frames nowhere (no LEDs attached); remembers the last one."""

    def __init__(self) -> None:
        self.frame: bytes | None = None
        self.brightness = 255
        self.closed = False
        self.connected = True  # (a test may set a RecordingLink's to False)

    def show(self, frame: bytes) -> None:
        self.frame = bytes(frame)

    def set_brightness(self, level: float) -> None:
        self.brightness = check_level(level)

    def goodbye(self) -> None:
        self.frame = dark(self.frame)

    def close(self) -> None:
        self.closed = True
        self.connected = False


class RecordingLink(NullLink):
    """Records every call, for tests: ``frames``, ``brightness_levels``, ``goodbyes``."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.brightness_levels: list[int] = []
        self.goodbyes = 0  # (each also records the dark frame it shows)
        super().__init__()
        self._changed = threading.Condition()

    def show(self, frame: bytes) -> None:
        frame = bytes(frame)
        with self._changed:
            super().show(frame)
            self.frames.append(frame)
            self._changed.notify_all()

    def set_brightness(self, level: float) -> None:
        super().set_brightness(level)
        self.brightness_levels.append(self.brightness)

    def goodbye(self) -> None:
        self.goodbyes += 1
        frame = dark(self.frame)
        if frame is not None:
            self.show(frame)

    def wait_for_frames(self, count: int, timeout: float = 1.0) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: len(self.frames) >= count, timeout)
