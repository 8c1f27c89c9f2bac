"""The board for the page: where each LED sits (:func:`board_plan`, from
:class:`~boardctl.board.snapshot.Picture`), and the colour it shows now (:func:`led_colours`, from
the service's ``frame``): the page shows what the LEDs show."""

from __future__ import annotations

from typing import Any

from boardctl.board.layout import Layout
from boardctl.board.snapshot import Picture
from boardctl.board.theme import display_colour
from boardctl.board.viewjson import view_from_dict


class _PagePicture(Picture):
    """The PNG's geometry without its title and score captions (the page writes those)."""

    def _title(self) -> str:
        return ""

    def _score(self, t: int) -> str:
        return ""


def plan_key(status: dict[str, Any]) -> tuple[Any, ...]:
    """What the plan depends on: a new plan is sent only when this changes."""
    tracks = status.get("tracks") or []
    return (status.get("target"), tuple(str(t.get("name", "")) for t in tracks))


def board_plan(layout: Layout, status: dict[str, Any]) -> dict[str, Any]:
    """Positions for the SVG: ``w``, ``h``, ``r``, ``leds`` [[led, x, y]], ``rules``, ``labels``."""
    view = view_from_dict(
        {
            "target": status["target"],
            "tracks": [{"name": str(t.get("name", ""))} for t in status["tracks"]],
            "phase": "play",
        },
        source="status",
    )
    picture = _PagePicture(layout, view, scale=1)
    return {
        "w": picture.width,
        "h": picture.height,
        "r": picture.radius,
        "leds": [[led, x, y] for led, (x, y) in sorted(picture.leds.items())],
        "rules": [list(rule) for rule in picture.rules],
        "labels": [[x, y, text] for (x, y), text in picture.texts if text],
        "layout": layout.name,
        "status": layout.status,
    }


def led_colours(rgb: str, count: int) -> list[str]:
    """Each LED's screen colour (``"#rrggbb"``), ``""`` for a dark LED."""
    try:
        data = bytes.fromhex(rgb)
    except ValueError:
        data = b""
    out = []
    for i in range(count):
        r, g, b = data[3 * i : 3 * i + 3] or b"\0\0\0"
        out.append("#{:02x}{:02x}{:02x}".format(*display_colour((r, g, b))) if r or g or b else "")
    return out
