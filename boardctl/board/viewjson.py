"""Board views to and from JSON-friendly dicts (``--state`` files, golden tests): the
:class:`~boardctl.view.BoardView` fields, ``tracks`` as dicts; all but ``target`` and
``tracks`` may be left out, and the engine's ``status()`` JSON is taken as it is."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, fields
from itertools import pairwise
from typing import Any

from boardctl.board.layout import Checker
from boardctl.errors import ConfigError
from boardctl.refusals import Refusal
from boardctl.view import PHASES, BoardView, ButtonId, Question, SettingsShown, TrackView, ViewExtra

_TRACK_INTS = ("front", "back", "game_points", "pending")
_EXTRA_DEFAULTS = {f.name: getattr(ViewExtra(), f.name) for f in fields(ViewExtra)}
_EXTRA_FIELDS = tuple(_EXTRA_DEFAULTS)
_GAME_FIELDS = _EXTRA_FIELDS[: _EXTRA_FIELDS.index("ask")]  # the engine's, always all there


def view_to_dict(view: BoardView) -> dict[str, Any]:
    """A JSON-friendly dict of ``view`` (``extra`` included)."""
    out = {f.name: getattr(view, f.name) for f in fields(view)}
    out["tracks"] = [asdict(track) for track in view.tracks]
    out["lines"] = None if view.lines is None else list(view.lines)
    out["extra"] = extra_to_dict(view.extra)
    return out


def extra_to_dict(extra: ViewExtra) -> dict[str, Any]:
    """The JSON form of ``extra``: the engine's notes on the game (the fields before ``ask``)
    when it has any, and every other field that says something (not at its default)."""
    out: dict[str, Any] = {}
    noted = any(getattr(extra, name) != _EXTRA_DEFAULTS[name] for name in _GAME_FIELDS)
    for name in _EXTRA_FIELDS:
        value = getattr(extra, name)
        if value == _EXTRA_DEFAULTS[name] and not (noted and name in _GAME_FIELDS):
            continue
        if isinstance(value, Question | SettingsShown):
            value = asdict(value)
        elif name == "stuck":
            value = [button.name for button in value]
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, Mapping):
            value = dict(value)
        out[name] = value
    return out


def view_from_dict(data: object, *, source: str = "state") -> BoardView:
    """Build a :class:`BoardView` from a dict; errors name ``source`` and the key."""
    check = _Checker(source)
    if not isinstance(data, dict):
        raise check.fail("a board state must be a JSON object with target and tracks")
    if "target" not in data:
        raise check.fail("target is missing (the game hole, e.g. 121)")
    target = check.integer(data["target"], "target")
    raw_tracks = data.get("tracks")
    if not isinstance(raw_tracks, list) or not raw_tracks:
        raise check.fail("tracks must be a list of {name, front, back, ...} objects")
    tracks = tuple(check.track(raw, i, target) for i, raw in enumerate(raw_tracks))
    phase = data.get("phase", "play")
    if phase not in PHASES:
        raise check.fail(f"phase {phase!r} is not one of {', '.join(PHASES)}")
    extra = check.extra(data.get("extra", {}))
    options = check.options(data, len(tracks))
    return BoardView(target=target, tracks=tracks, phase=phase, extra=extra, **options)


class _Checker(Checker):
    """The checks of :func:`view_from_dict`, each error naming the source and the key."""

    error = ConfigError

    def track(self, raw: object, i: int, target: int) -> TrackView:
        if not isinstance(raw, dict):
            raise self.fail(f"tracks[{i}] must be an object")
        name = raw.get("name", f"track {i + 1}")
        if not isinstance(name, str):
            raise self.fail(f"tracks[{i}].name must be text")
        numbers = {k: self.integer(raw[k], f"tracks[{i}].{k}") for k in _TRACK_INTS if k in raw}
        for key in ("front", "back"):
            if not 0 <= numbers.get(key, 0) <= target:
                raise self.fail(f"tracks[{i}].{key} {numbers[key]} is not a score 0-{target}")
        if numbers.get("back", 0) > numbers.get("front", 0):
            raise self.fail(
                f"tracks[{i}].back {numbers['back']} is ahead of front (the peg behind)"
            )
        return TrackView(name=name, **numbers)

    def options(self, data: dict[str, Any], tracks: int) -> dict[str, Any]:
        """The optional track indexes, times and match target."""
        options: dict[str, Any] = {}
        for key in ("dealer", "to_count", "winner", "match_winner"):
            value = data.get(key)
            if value is not None:
                index = self.integer(value, key)
                if not 0 <= index < tracks:
                    raise self.fail(f"{key} {index} is not a track index (0-{tracks - 1})")
                options[key] = index
        for key in ("error_at", "over_at"):
            value = data.get(key)
            if value is not None:
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise self.fail(f"{key} must be a time in seconds, not {value!r}")
                options[key] = float(value)
        if "match_target" in data:
            options["match_target"] = self.integer(data["match_target"], "match_target")
        if data.get("lines") is not None:
            options["lines"] = self.lines(data["lines"])
        return options

    def extra(self, raw: object) -> ViewExtra:
        """The view's extra from its JSON form (:func:`extra_to_dict`)."""
        if not isinstance(raw, dict):
            raise self.fail("extra must be an object")
        unknown = sorted(set(raw) - set(_EXTRA_FIELDS))
        if unknown:
            raise self.fail(
                f"extra has no {', '.join(unknown)} (known: {', '.join(_EXTRA_FIELDS)})"
            )
        values: dict[str, Any] = {}
        try:
            for name, value in raw.items():
                values[name] = self._extra_field(name, value)
        except (TypeError, ValueError) as exc:
            raise self.fail(f"extra.{name}: {exc}") from None
        return ViewExtra(**values)

    @staticmethod
    def _extra_field(name: str, value: Any) -> Any:
        if value is None:
            return None
        if name == "ask":
            return Question(**value)
        if name == "settings":
            return SettingsShown(**value)
        if name == "stuck":
            return tuple(ButtonId.from_name(str(button)) for button in value)
        if name == "refusal":
            return Refusal(value)
        if name in ("lines_failed", "signoff", "undoing"):
            return tuple(int(item) for item in value)
        if name == "pending_at":
            return float(value)
        return value

    def lines(self, value: object) -> tuple[int, ...]:
        """The skunk lines: at most three whole numbers, each below the one before."""
        if not isinstance(value, list) or len(value) > 3:
            raise self.fail(
                f"lines must be a list of at most 3 scores (skunk, double, triple), not {value!r}"
            )
        lines = tuple(self.integer(line, f"lines[{i}]") for i, line in enumerate(value))
        if any(b >= a for a, b in pairwise(lines)):
            raise self.fail(f"lines {list(lines)} must go down: skunk, then double, then triple")
        return lines
