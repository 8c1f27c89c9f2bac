"""Frames: the colour of every LED on the strip, as RGB bytes.

A frame is ``bytes`` of length ``3 * led_count``: LED ``i`` is
``frame[3*i : 3*i + 3]`` in R, G, B order. The strip's own colour order (GRB,
...) is applied by whoever drives the strip, never in a frame.
"""

from __future__ import annotations

Frame = bytes
RGB = tuple[int, int, int]


def blank_frame(led_count: int) -> Frame:
    """An all-off frame."""
    return bytes(3 * led_count)


def pixel(frame: Frame, index: int) -> RGB:
    """The colour of LED ``index``."""
    base = 3 * index
    return (frame[base], frame[base + 1], frame[base + 2])


def changed_runs(old: Frame, new: Frame, *, max_gap: int = 2) -> list[tuple[int, bytes]]:
    """The LEDs that differ between two frames of equal length, as runs.

    Returns ``[(first_led_index, rgb_bytes_of_run), ...]`` in order. Runs whose
    gap of unchanged LEDs is at most ``max_gap`` are merged, since a few resent
    LEDs cost fewer bytes than a new run header. ``new`` applied over ``old``
    with these runs gives ``new`` exactly.
    """
    if len(old) != len(new):
        raise ValueError(f"frames differ in length ({len(old)} != {len(new)} bytes)")
    if old == new:
        return []
    count = len(new) // 3
    runs: list[tuple[int, int]] = []  # (start, end) LED indices, end exclusive
    start = -1
    last_changed = -(max_gap + 2)
    for i in range(count):
        b = 3 * i
        if old[b : b + 3] != new[b : b + 3]:
            if start >= 0 and i - last_changed - 1 <= max_gap:
                pass  # extend the current run over the small gap
            else:
                if start >= 0:
                    runs.append((start, last_changed + 1))
                start = i
            last_changed = i
    if start >= 0:
        runs.append((start, last_changed + 1))
    return [(s, bytes(new[3 * s : 3 * e])) for s, e in runs]


def apply_runs(frame: Frame, runs: list[tuple[int, bytes]]) -> Frame:
    """Apply ``changed_runs`` output to a frame."""
    out = bytearray(frame)
    for start, rgb in runs:
        out[3 * start : 3 * start + len(rgb)] = rgb
    return bytes(out)
