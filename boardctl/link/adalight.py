"""Adalight: the serial LED protocol of WLED and common Arduino sketches: ``b"Ada"``, the LED count
minus one as ``hi lo``, ``hi ^ lo ^ 0x55``, then R, G, B per LED (no acknowledgement)."""

from __future__ import annotations

from boardctl.errors import ConfigError, FrameError


def adalight_header(led_count: int) -> bytes:
    """The 6-byte header for ``led_count`` LEDs (1-65536)."""
    if not 1 <= led_count <= 0x10000:
        raise ConfigError(f"Adalight carries 1-65536 LEDs, not {led_count}")
    hi, lo = (led_count - 1) >> 8, (led_count - 1) & 0xFF
    return bytes((0x41, 0x64, 0x61, hi, lo, hi ^ lo ^ 0x55))


def scale_frame(frame: bytes, level: int) -> bytes:
    """``frame`` at brightness ``level`` (0-255)."""
    if level >= 255:
        return bytes(frame)
    table = bytes(value * level // 255 for value in range(256))
    return bytes(frame).translate(table)


def adalight_packet(frame: bytes, level: int = 255) -> bytes:
    """One Adalight packet showing ``frame`` (RGB per LED) at brightness ``level``."""
    if len(frame) % 3 or not frame:
        raise FrameError(f"a frame is RGB per LED, not {len(frame)} bytes")
    return adalight_header(len(frame) // 3) + scale_frame(frame, level)
