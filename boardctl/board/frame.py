"""Frames: the colour of every LED on the strip, ``3 * led_count`` bytes in R, G, B order (the
strip's own order is applied by whoever drives it, never in a frame)."""

from __future__ import annotations

from boardctl.errors import FrameError

Frame = bytes
RGB = tuple[int, int, int]

_BLOCK_LEDS = 16  # LEDs compared at once by ``changed_runs`` before looking at single LEDs


def blank_frame(led_count: int) -> Frame:
    return bytes(3 * led_count)


def pixel(frame: Frame, index: int) -> RGB:
    """The colour of LED ``index``."""
    base = 3 * index
    return (frame[base], frame[base + 1], frame[base + 2])


def changed_runs(old: Frame, new: Frame, *, max_gap: int = 2) -> list[tuple[int, bytes]]:
    """The LEDs that differ between two frames of equal length, as ``[(first LED, RGB
    bytes), ...]`` runs (merged over gaps of at most ``max_gap`` LEDs: cheaper than a header)."""
    if len(old) != len(new):
        raise FrameError(f"frames differ in length ({len(old)} != {len(new)} bytes)")
    if old == new:
        return []
    # Compare blocks of LEDs first: a peg move touches two or three of them.
    end, step = 3 * (len(new) // 3), 3 * _BLOCK_LEDS
    changed = [
        b // 3
        for base in range(0, end, step)
        if old[base : base + step] != new[base : base + step]
        for b in range(base, min(base + step, end), 3)
        if old[b : b + 3] != new[b : b + 3]
    ]
    runs: list[tuple[int, int]] = []  # (start, end) LED indices, end exclusive
    start = last = changed[0]
    for i in changed[1:]:
        if i - last - 1 > max_gap:
            runs.append((start, last + 1))
            start = i
        last = i
    runs.append((start, last + 1))
    return [(s, bytes(new[3 * s : 3 * e])) for s, e in runs]
