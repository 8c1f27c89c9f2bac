"""Golden frames: key positions rendered and compared LED by LED with stored files.

Each file in ``tests/golden/frame-*.json`` holds the view, the time and every
lit LED (index, colour, what it is). On a mismatch the test lists each LED that
differs, which hole or marker it is, and the expected and actual colours.
Regenerate after an intended change: see ``tests/golden/__init__.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from boardctl.board.demo import DEMOS
from boardctl.board.frame import pixel
from boardctl.board.layout import Layout, builtin_layout
from boardctl.board.render import Renderer
from boardctl.board.viewjson import view_from_dict, view_to_dict
from boardctl.view import BoardView, TrackView
from tests.golden import golden_json

EXTRA: dict[str, tuple[str, BoardView, float]] = {
    # a game to 61 on the painted board: the skunk line is a tinted hole
    "two-61-pending": (
        "two-61",
        BoardView(61, (TrackView("Ann", 20, 14, pending=3), TrackView("Bo", 33, 29)), dealer=1),
        0.1,
    ),
    "two-61-skunk": (
        "two-61",
        BoardView(
            61,
            (TrackView("Ann", 61, 55), TrackView("Bo", 25, 20)),
            phase="over",
            winner=0,
            over_at=0.0,
            dealer=0,
        ),
        10.2,
    ),
    "three-121-mid-game": (
        "three-121",
        BoardView(
            121,
            (TrackView("A", 44, 40), TrackView("B", 61, 52), TrackView("C", 17, 17)),
            phase="show",
            dealer=2,
            to_count=1,
        ),
        3.25,
    ),
}

CASES: dict[str, tuple[str, BoardView, float]] = {
    **{f"two-121-{name}": ("two-121", view, now) for name, (view, now) in DEMOS.items()},
    **EXTRA,
}


def _lit(frame: bytes, layout: Layout) -> list[list[object]]:
    roles = layout.roles()
    return [
        [led, bytes(pixel(frame, led)).hex(), roles.get(led, "unused")]
        for led in range(layout.led_count)
        if any(pixel(frame, led))
    ]


def frame_differences(expected: list[list[object]], actual: list[list[object]]) -> list[str]:
    """Readable lines for every LED whose colour differs."""
    want = {int(str(led)): (str(colour), str(what)) for led, colour, what in expected}
    got = {int(str(led)): (str(colour), str(what)) for led, colour, what in actual}
    lines = []
    for led in sorted(set(want) | set(got)):
        w = want.get(led, ("000000", ""))
        g = got.get(led, ("000000", ""))
        if w[0] != g[0]:
            what = w[1] or g[1]
            lines.append(f"LED {led} ({what}): expected {w[0]}, got {g[0]}")
    return lines


def golden_frame(
    file: str, layout_name: str, layout: Layout, view: BoardView, now: float, frame: bytes
) -> tuple[dict[str, Any], list[str]]:
    """The golden record ``file`` of ``frame`` (``view`` at ``now`` on ``layout``), and the
    LEDs that differ from it (the file is written when missing or regenerated)."""
    actual: dict[str, Any] = {
        "layout": layout_name,
        "now": now,
        "view": view_to_dict(view),
        "lit": _lit(frame, layout),
    }
    stored = golden_json(file, actual)
    return stored, frame_differences(stored["lit"], actual["lit"])


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_frame(case: str) -> None:
    layout_name, view, now = CASES[case]
    layout = builtin_layout(layout_name)
    frame = Renderer(layout).render(view, now)
    stored, differences = golden_frame(f"frame-{case}.json", layout_name, layout, view, now, frame)
    assert stored["layout"] == layout_name
    assert view_from_dict(stored["view"]) == view, "the position changed: regenerate the file"
    assert stored["now"] == now
    assert not differences, f"{case}: {len(differences)} LEDs differ\n" + "\n".join(differences)


def test_difference_report_names_holes_and_colours() -> None:
    expected = [[67, "e69f00", "track 1 hole 67"], [252, "0e0e04", "skunk line marker"]]
    actual = [[68, "e69f00", "track 1 hole 68"], [252, "0e0e04", "skunk line marker"]]
    assert frame_differences(expected, actual) == [
        "LED 67 (track 1 hole 67): expected e69f00, got 000000",
        "LED 68 (track 1 hole 68): expected 000000, got e69f00",
    ]


def test_golden_states_cover_the_key_moments() -> None:
    # new game, mid-game, pending, rejected, skunk, double skunk, match point
    for name in (
        "new-game",
        "mid-game",
        "pending",
        "rejected",
        "skunk",
        "double-skunk",
        "match-point",
    ):
        assert f"two-121-{name}" in CASES
