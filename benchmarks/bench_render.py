"""Rendering speed, frame-diff speed, and "no frames when nothing changes".

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_render.py

Prints the median time to render a full 256-LED frame (two-121 layout) for
several positions, the median time of ``changed_runs`` for a peg move and for
a frame where every LED changed, and how many frames a service loop driven by
``next_change`` renders over 60 s of a static position (must be one: the first
frame; no timer ticks). Exits with status 1 if a target is missed.
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
from collections.abc import Callable

from boardctl.board.demo import DEMOS
from boardctl.board.frame import changed_runs
from boardctl.board.layout import builtin_layout
from boardctl.board.render import Renderer
from boardctl.board.theme import Theme
from boardctl.view import BoardView, TrackView

RENDER_TARGET_MS = 0.5
DIFF_TARGET_MS = 0.1
BATCHES = 200
PER_BATCH = 25


def median_ms(call: Callable[[], object]) -> float:
    """Median time of one call, in ms, over batches of calls."""
    samples = []
    for _ in range(BATCHES):
        start = time.perf_counter_ns()
        for _ in range(PER_BATCH):
            call()
        samples.append((time.perf_counter_ns() - start) / PER_BATCH / 1e6)
    return statistics.median(samples)


def frames_rendered(renderer: Renderer, view: BoardView, start: float, seconds: float) -> int:
    """Frames a service loop renders over ``seconds`` if it sleeps until next_change."""
    now, frames, end = start, 0, start + seconds
    while now < end:
        renderer.render(view, now)
        frames += 1
        upcoming = renderer.next_change(view, now)
        if upcoming is None:
            break
        now = upcoming
    return frames


def main() -> int:
    layout = builtin_layout("two-121")
    renderer = Renderer(layout)
    failures = []
    print(f"layout {layout.name}: {layout.led_count} LEDs, Python {sys.version.split()[0]}")
    print("render a full frame (median):")
    cases = [(name, renderer, *DEMOS[name]) for name in ("mid-game", "pending", "double-skunk")]
    trail = Renderer(layout, Theme(trail=True), brightness=128)
    cases.append(("double-skunk, trail, brightness 128", trail, *DEMOS["double-skunk"]))
    for name, r, view, now in cases:
        ms = median_ms(functools.partial(r.render, view, now))
        verdict = "ok" if ms <= RENDER_TARGET_MS else "OVER TARGET"
        print(f"  {name:<38} {ms * 1000:7.1f} us  (target {RENDER_TARGET_MS} ms) {verdict}")
        if ms > RENDER_TARGET_MS:
            failures.append(f"render {name}")

    print("changed_runs between two 256-LED frames (median):")
    view, now = DEMOS["mid-game"]
    before = renderer.render(view, now)
    moved = BoardView(
        121, (TrackView("Alice", 73, 67), TrackView("Bob", 82, 74)), phase="show", dealer=1
    )
    after = renderer.render(moved, now)
    everything = bytes(255 - b for b in before)
    for name, new in (("peg move", after), ("every LED changed", everything)):
        runs = changed_runs(before, new)
        ms = median_ms(functools.partial(changed_runs, before, new))
        verdict = "ok" if ms <= DIFF_TARGET_MS else "OVER TARGET"
        print(
            f"  {name:<38} {ms * 1000:7.1f} us  ({len(runs)} runs; target {DIFF_TARGET_MS} ms) "
            f"{verdict}"
        )
        if ms > DIFF_TARGET_MS:
            failures.append(f"diff {name}")

    print("frames rendered by a loop sleeping until next_change, over 60 s:")
    for name in ("new-game", "mid-game", "pending", "skunk", "match-point"):
        view, now = DEMOS[name]
        count = frames_rendered(renderer, view, now, 60.0)
        static = renderer.next_change(view, now) is None
        print(f"  {name:<38} {count:5d} frames  (static: {static})")
        # (the match-point position blinks: Bob's 5 game points on 3 LEDs, 2 of them worth two)
        if name == "new-game" and (count != 1 or not static):
            failures.append(f"static {name} rendered {count} frames")

    if failures:
        print("MISSED: " + ", ".join(failures))
        return 1
    print("all targets met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
