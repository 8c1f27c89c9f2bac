"""LED layouts: which LED on the strip shows which hole, marker and light; the TOML files of
docs/board.md, "Layout files", checked, a :class:`LayoutError` naming file, key and fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Any

from boardctl.errors import BoardError, LayoutError
from boardctl.link.protocol import MAX_LEDS

LAYOUT_NAMES = ("two-121", "three-121", "two-61")  # built in: boardctl/board/layouts/*.toml
_KNOWN = ", ".join(LAYOUT_NAMES)

#: Strip colour orders a layout may name (the frame itself is always RGB).
COLOR_ORDERS = ("GRB", "RGB", "BRG", "RBG", "GBR", "BGR", "GRBW", "RGBW")

LINE_KEYS = ("skunk", "double", "triple")  # line marker keys, in BoardView.skunk_lines' order

_TOP_KEYS = {"name", "description", "holes", "strip", "track", "markers"}
_STRIP_KEYS = {"led_count", "color_order"}
_TRACK_KEYS = {"name", "start", "segments", "dealer", "game_points"}
_SEGMENT_KEYS = {"from_hole", "to_hole", "first_led", "step"}
_MARKER_KEYS = {*LINE_KEYS, "status"}


@dataclass(frozen=True, slots=True)
class TrackLayout:
    """The LEDs of one track: ``holes[h]`` is the LED of hole ``h`` (0: the start hole)."""

    name: str
    holes: tuple[int, ...]
    dealer: int | None = None
    game_points: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Layout:
    """A validated LED layout."""

    name: str
    source: str
    led_count: int
    color_order: str
    hole_count: int
    tracks: tuple[TrackLayout, ...]
    markers: dict[str, tuple[int, ...]] = field(default_factory=dict)
    status: int | None = None
    description: str = ""

    def led_of(self, track: int, hole: int) -> int:
        """The LED of ``hole`` (0 = start hole) on ``track``."""
        return self.tracks[track].holes[hole]

    def roles(self) -> dict[int, str]:
        """What every used LED shows, e.g. ``{17: "track 1 hole 17", ...}``."""
        out: dict[int, str] = {}
        for number, track in enumerate(self.tracks, start=1):
            for hole, led in enumerate(track.holes):
                out[led] = f"track {number} " + ("start hole" if hole == 0 else f"hole {hole}")
            if track.dealer is not None:
                out[track.dealer] = f"track {number} dealer LED"
            for i, led in enumerate(track.game_points, start=1):
                out[led] = f"track {number} game-point LED {i}"
        for key, leds in self.markers.items():
            for led in leds:
                out[led] = f"{key} line marker"
        if self.status is not None:
            out[self.status] = "status LED"
        return out


def builtin_layout(name: str) -> Layout:
    """One of the layouts shipped with boardctl (see :data:`LAYOUT_NAMES`)."""
    if name not in LAYOUT_NAMES:
        raise LayoutError(
            f"no built-in layout {name!r}; choose one of {_KNOWN} or give a file path"
        )
    from importlib import resources

    resource = resources.files("boardctl.board").joinpath("layouts", f"{name}.toml")
    return parse_layout(resource.read_text(encoding="utf-8"), source=f"{name}.toml")


def load_layout(path: str | Path) -> Layout:
    """Load and validate a layout file; a built-in name is accepted too."""
    text_path = str(path)
    if not text_path.strip():
        raise LayoutError(f"the layout is empty; give a built-in name ({_KNOWN}) or a layout file")
    if text_path in LAYOUT_NAMES:
        return builtin_layout(text_path)
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        hint = ""
        if p.suffix != ".toml" and "/" not in text_path:  # meant as a built-in name
            hint = f"; not a built-in layout either (board.layout: one of {_KNOWN}, or a file)"
        raise LayoutError(f"{p}: cannot read layout file ({exc.strerror or exc}){hint}") from exc
    return parse_layout(text, source=str(p))


def parse_layout(text: str, *, source: str = "<layout>") -> Layout:
    """Parse and validate layout TOML text; ``source`` names it in errors."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError(f"{source}: not valid TOML: {exc}") from exc
    return _Parser(source).layout(data)


class Checker:
    """Checks of data read from ``source``; each error (an ``error``) names the source and key."""

    error: type[BoardError] = LayoutError

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, message: str) -> BoardError:
        return self.error(f"{self.source}: {message}")

    def integer(
        self,
        value: object,
        key: str,
        *,
        minimum: int | None = None,
        maximum: int | None = None,
        why: str = "",
    ) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"{key} must be a whole number, not {value!r}")
        if minimum is not None and value < minimum:
            raise self.fail(f"{key} must be at least {minimum}, not {value}")
        if maximum is not None and value > maximum:  # checked before anything is allocated
            raise self.fail(f"{key} must be at most {maximum}{why}, not {value}")
        return value


class _Parser(Checker):
    """Builds a :class:`Layout` from TOML data, checking as it goes."""

    def __init__(self, source: str) -> None:
        super().__init__(source)
        self.owner: dict[int, str] = {}  # LED -> the key that uses it
        self.led_count = 0

    def check_keys(self, table: dict[str, Any], known: set[str], where: str) -> None:
        for key in table:
            if key not in known:
                choices = ", ".join(sorted(known))
                raise self.fail(f"{where}: unknown key {key!r} (known keys: {choices})")

    def use_led(self, led: int, key: str, what: str) -> int:
        """Claim ``led`` for ``what``; it must be on the strip and not yet used."""
        if not 0 <= led < self.led_count:
            raise self.fail(
                f"{key}: {what} is on LED {led}, outside the strip of {self.led_count} LEDs "
                f"(0-{self.led_count - 1}); fix the index or [strip] led_count"
            )
        if led in self.owner:
            raise self.fail(
                f"{key}: LED {led} is used twice ({self.owner[led]} and {what}); "
                "every LED shows one thing, give one of them another LED"
            )
        self.owner[led] = what
        return led

    def led(self, value: object, key: str, what: str) -> int:
        """The LED index ``value`` claimed for ``what``."""
        return self.use_led(self.integer(value, key, minimum=0), key, what)

    def led_list(self, value: object, key: str, what: str) -> tuple[int, ...]:
        if isinstance(value, int) and not isinstance(value, bool):
            value = [value]
        if not isinstance(value, list):
            raise self.fail(f"{key} must be a list of LED indices, not {value!r}")
        leds = []
        for i, item in enumerate(value):
            led = self.integer(item, f"{key}[{i}]", minimum=0)
            leds.append(self.use_led(led, key, f"{what} {i + 1}" if len(value) > 1 else what))
        return tuple(leds)

    def layout(self, data: dict[str, Any]) -> Layout:
        self.check_keys(data, _TOP_KEYS, "top level")
        strip = data.get("strip")
        if not isinstance(strip, dict):
            raise self.fail("[strip] table is missing; add led_count and color_order")
        self.check_keys(strip, _STRIP_KEYS, "[strip]")
        if "led_count" not in strip:
            raise self.fail("[strip] led_count is missing; give the number of LEDs on the strip")
        self.led_count = self.integer(
            strip["led_count"],
            "[strip] led_count",
            minimum=1,
            maximum=MAX_LEDS,
            why=" (the most the link protocol to the controller carries)",
        )
        order = strip.get("color_order", "GRB")
        if not isinstance(order, str) or order.upper() not in COLOR_ORDERS:
            raise self.fail(
                f"[strip] color_order {order!r} is not one of {', '.join(COLOR_ORDERS)}"
            )
        if "holes" not in data:
            raise self.fail("holes is missing; give the number of holes per track, e.g. 121")
        hole_count = self.integer(
            data["holes"],
            "holes",
            minimum=2,
            maximum=self.led_count - 1,
            why=f" (each hole and the start hole needs an LED of the {self.led_count})",
        )
        raw_tracks = data.get("track")
        if not isinstance(raw_tracks, list) or not raw_tracks:
            raise self.fail("no [[track]] tables; add one per player or team")
        tracks = tuple(self.track(t, i, hole_count) for i, t in enumerate(raw_tracks))
        raw_markers = data.get("markers", {})
        if not isinstance(raw_markers, dict):
            raise self.fail("[markers] must be a table")
        self.check_keys(raw_markers, _MARKER_KEYS, "[markers]")
        markers = {
            key: self.led_list(raw_markers[key], f"[markers] {key}", f"{key} line marker")
            for key in LINE_KEYS
            if key in raw_markers
        }
        status = raw_markers.get("status")
        if status is not None:
            status = self.led(status, "[markers] status", "status LED")
        name = data.get("name", Path(self.source).stem)
        description = data.get("description", "")
        if not isinstance(name, str) or not isinstance(description, str):
            raise self.fail("name and description must be text")
        return Layout(
            name=name,
            source=self.source,
            led_count=self.led_count,
            color_order=order.upper(),
            hole_count=hole_count,
            tracks=tracks,
            markers=markers,
            status=status,
            description=description,
        )

    def track(self, raw: object, index: int, hole_count: int) -> TrackLayout:
        where = f"[[track]] {index + 1}"
        if not isinstance(raw, dict):
            raise self.fail(f"{where} must be a table")
        self.check_keys(raw, _TRACK_KEYS, where)
        name = raw.get("name", f"track {index + 1}")
        if not isinstance(name, str):
            raise self.fail(f"{where} name must be text")
        if "start" not in raw:
            raise self.fail(f"{where} start is missing; give the LED of the start hole")
        holes: list[int | None] = [None] * (hole_count + 1)
        holes[0] = self.led(raw["start"], f"{where} start", f"track {index + 1} start hole")
        segments = raw.get("segments")
        if not isinstance(segments, list) or not segments:
            raise self.fail(
                f"{where} segments is missing; list runs of holes as "
                "{ from_hole, to_hole, first_led, step }"
            )
        covered_by: dict[int, int] = {}
        for s, segment in enumerate(segments):
            self.segment(segment, f"{where} segments[{s}]", s, index, holes, covered_by)
        missing = [h for h in range(1, hole_count + 1) if holes[h] is None]
        if missing:
            raise self.fail(
                f"{where} segments: no LED for holes {ranges(missing)}; add a segment covering them"
            )
        dealer = None
        if "dealer" in raw:
            dealer = self.led(raw["dealer"], f"{where} dealer", f"track {index + 1} dealer LED")
        what = f"track {index + 1} game-point LED"
        return TrackLayout(
            name=name,
            holes=tuple(h for h in holes if h is not None),
            dealer=dealer,
            game_points=self.led_list(raw.get("game_points", []), f"{where} game_points", what),
        )

    def segment(
        self,
        segment: object,
        key: str,
        s: int,
        index: int,
        holes: list[int | None],
        covered_by: dict[int, int],
    ) -> None:
        """Place one ``segments`` entry's LEDs into ``holes`` (``covered_by``: hole -> entry)."""
        hole_count = len(holes) - 1
        if not isinstance(segment, dict):
            raise self.fail(f"{key} must be an inline table {{ from_hole, to_hole, ... }}")
        self.check_keys(segment, _SEGMENT_KEYS, key)
        for required in ("from_hole", "to_hole", "first_led"):
            if required not in segment:
                raise self.fail(f"{key} {required} is missing")
        first = self.integer(segment["from_hole"], f"{key} from_hole", minimum=1)
        last = self.integer(segment["to_hole"], f"{key} to_hole", minimum=1)
        led0 = self.integer(segment["first_led"], f"{key} first_led")
        step = self.integer(segment.get("step", 1), f"{key} step")
        if first > last:
            raise self.fail(
                f"{key}: from_hole {first} is after to_hole {last}; "
                "holes run upwards, use a negative step for a strip running backwards"
            )
        if last > hole_count:
            raise self.fail(
                f"{key}: to_hole {last} is beyond the {hole_count} holes of a track; "
                "fix to_hole or the top-level holes"
            )
        if step == 0:
            raise self.fail(f"{key}: step is 0; use 1 (or -1 for a strip running backwards)")
        for hole in range(first, last + 1):
            if hole in covered_by:
                raise self.fail(
                    f"{key}: hole {hole} is also in segments[{covered_by[hole]}]; "
                    "each hole belongs to one segment"
                )
            covered_by[hole] = s
            led = led0 + (hole - first) * step
            holes[hole] = self.use_led(led, key, f"track {index + 1} hole {hole}")


def ranges(numbers: list[int], sep: str = ", ") -> str:
    """``[1, 2, 3, 7]`` -> ``"1-3, 7"`` (sorted numbers, ``sep`` between the runs)."""
    # a run of consecutive numbers keeps the difference between number and place
    runs = [[n for _, n in run] for _, run in groupby(enumerate(numbers), lambda p: p[1] - p[0])]
    return sep.join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)
