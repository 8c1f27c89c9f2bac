"""Board views to and from JSON-friendly dicts (for ``--state`` files and golden tests).

The dict has the :class:`~boardctl.view.BoardView` fields, with ``tracks`` a
list of ``{name, front, back, game_points, pending}`` dicts; anything but
``target`` and ``tracks`` may be left out. The engine's ``status()`` JSON is
accepted as it is.
"""

from __future__ import annotations

from typing import Any

from boardctl.errors import ConfigError
from boardctl.view import PHASES, BoardView, TrackView

_TRACK_INTS = ("front", "back", "game_points", "pending")
_OPTIONAL_TRACK_INDEX = ("dealer", "to_count", "winner", "match_winner")
_OPTIONAL_TIMES = ("error_at", "over_at")


def view_to_dict(view: BoardView) -> dict[str, Any]:
    """A JSON-friendly dict of ``view`` (``extra`` included)."""
    return {
        "target": view.target,
        "tracks": [
            {
                "name": t.name,
                "front": t.front,
                "back": t.back,
                "game_points": t.game_points,
                "pending": t.pending,
            }
            for t in view.tracks
        ],
        "phase": view.phase,
        "dealer": view.dealer,
        "to_count": view.to_count,
        "winner": view.winner,
        "match_target": view.match_target,
        "match_winner": view.match_winner,
        "error_at": view.error_at,
        "over_at": view.over_at,
        "extra": dict(view.extra),
    }


def view_from_dict(data: object, *, source: str = "state") -> BoardView:
    """Build a :class:`BoardView` from a dict; errors name ``source`` and the key."""

    def fail(message: str) -> ConfigError:
        return ConfigError(f"{source}: {message}")

    def whole(value: object, key: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise fail(f"{key} must be a whole number, not {value!r}")
        return value

    if not isinstance(data, dict):
        raise fail("a board state must be a JSON object with target and tracks")
    if "target" not in data:
        raise fail("target is missing (the game hole, e.g. 121)")
    target = whole(data["target"], "target")
    raw_tracks = data.get("tracks")
    if not isinstance(raw_tracks, list) or not raw_tracks:
        raise fail("tracks must be a list of {name, front, back, ...} objects")
    tracks = []
    for i, raw in enumerate(raw_tracks):
        if not isinstance(raw, dict):
            raise fail(f"tracks[{i}] must be an object")
        name = raw.get("name", f"track {i + 1}")
        if not isinstance(name, str):
            raise fail(f"tracks[{i}].name must be text")
        numbers = {k: whole(raw[k], f"tracks[{i}].{k}") for k in _TRACK_INTS if k in raw}
        for key in ("front", "back"):
            if not 0 <= numbers.get(key, 0) <= target:
                raise fail(f"tracks[{i}].{key} {numbers[key]} is not a score 0-{target}")
        if numbers.get("back", 0) > numbers.get("front", 0):
            raise fail(f"tracks[{i}].back {numbers['back']} is ahead of front (the peg behind)")
        tracks.append(TrackView(name=name, **numbers))
    phase = data.get("phase", "play")
    if phase not in PHASES:
        raise fail(f"phase {phase!r} is not one of {', '.join(PHASES)}")
    options: dict[str, Any] = {}
    for key in _OPTIONAL_TRACK_INDEX:
        value = data.get(key)
        if value is not None:
            index = whole(value, key)
            if not 0 <= index < len(tracks):
                raise fail(f"{key} {index} is not a track index (0-{len(tracks) - 1})")
            options[key] = index
    for key in _OPTIONAL_TIMES:
        value = data.get(key)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise fail(f"{key} must be a time in seconds, not {value!r}")
            options[key] = float(value)
    if "match_target" in data:
        options["match_target"] = whole(data["match_target"], "match_target")
    extra = data.get("extra", {})
    if not isinstance(extra, dict):
        raise fail("extra must be an object")
    return BoardView(target=target, tracks=tuple(tracks), phase=phase, extra=extra, **options)
