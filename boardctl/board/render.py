"""The renderer: a board view and a time in, a frame of LED colours out, purely; animations are
functions of time, so :meth:`Renderer.next_change` says when the frame next differs. The layers
(docs/board.md, "What the board shows") are painted bottom first, in the order of their methods."""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate

from boardctl.board.frame import RGB, Frame
from boardctl.board.geometry import view_lines
from boardctl.board.layout import LINE_KEYS, Layout, TrackLayout
from boardctl.board.power import PowerBudget, limit_power
from boardctl.board.signs import SIGN_HOLES, SIGN_SECONDS
from boardctl.board.theme import DEFAULT_THEME, WHITE, Theme, scaled
from boardctl.errors import ConfigError, LayoutError, ViewError
from boardctl.view import BoardView

PENDING_PERIOD = 0.6  # s: a pending entry's blink, on for the first half of each period
COUNT_PERIOD = 1.0  # s: the dealer LED's whose-count blink
ERROR_SECONDS = 1.5  # how long a rejected entry flashes, in on/off steps of ERROR_STEP
ERROR_STEP = 0.25
#: The winner's comet: how long it runs, frames per second, holes per frame.
CHASE_SECONDS = 4.0
CHASE_FPS = 20
CHASE_HOLES_PER_FRAME = 3
CHASE_TAIL = (1.0, 0.5, 0.25, 0.12, 0.06)
GAME_POINT_PERIOD = 1.0  # s: the blink of a game-point LED worth two points
LINE_BLINK_SECONDS = 30.0  # how long the failed line blinks after the game, then stays lit
#: Blink rhythms of a failed line (alternating on/off durations, starting on).
LINE_PATTERNS: dict[int, tuple[float, ...]] = {
    1: (0.5, 0.5),
    2: (0.15, 0.15, 0.15, 0.55),
    3: (0.15, 0.15, 0.15, 0.15, 0.15, 0.55),
}
#: The brightness setting is perceptual, applied here only: level 64 (25 %) drives the LEDs
#: at (64 / 255) ** 2.2 = 4.7 % and looks like a quarter (CIE L* 26; linear 25 % looks half).
BRIGHTNESS_GAMMA = 2.2


@dataclass(slots=True)
class Clock:
    """Answers "is this animation on at ``now``?" and remembers the next edge."""

    now: float
    next: float | None = None

    def edge(self, at: float) -> None:
        if at > self.now and (self.next is None or at < self.next):
            self.next = at

    def window(self, start: float | None, seconds: float) -> bool:
        """Whether ``now`` lies in ``[start, start + seconds)``."""
        if start is None or self.now >= start + seconds:
            return False
        self.edge(start if self.now < start else start + seconds)
        return self.now >= start

    def pattern(self, origin: float, durations: tuple[float, ...]) -> bool:
        """On/off rhythm ``durations`` (starting on) repeating from ``origin``; each edge is one
        float expression, for the state and the next edge alike, so they always agree."""
        cycle = sum(durations)
        n = _floor_index(self.now, origin, cycle)
        start = origin + n * cycle
        edges = [start + offset for offset in accumulate(durations[:-1])]
        state = bisect_right(edges, self.now)  # the edges passed in this cycle
        self.edge(edges[state] if state < len(edges) else origin + (n + 1) * cycle)
        return state % 2 == 0

    def blink(self, origin: float, step: float) -> bool:
        """On for ``step`` seconds, off for ``step``, repeating from ``origin``."""
        return self.pattern(origin, (step, step))

    def steps(self, origin: float, per_second: int) -> int:
        """The index of the animation step at ``now`` (steps of 1/per_second)."""
        index = _floor_index(self.now, origin, 1.0 / per_second)
        self.edge(origin + (index + 1) * (1.0 / per_second))
        return index


def _floor_index(now: float, origin: float, step: float) -> int:
    """The largest ``k`` with ``origin + k * step <= now`` (evaluated exactly as written)."""
    k = math.floor((now - origin) / step)
    while origin + (k + 1) * step <= now:
        k += 1
    while k > 0 and origin + k * step > now:
        k -= 1
    return k


@dataclass(slots=True)
class _Canvas:
    """One frame being painted: the frame, the view, the clock and the tracks shown."""

    frame: bytearray
    view: BoardView
    clock: Clock
    tracks: tuple[TrackLayout, ...]
    lines: list[tuple[int, int]] = field(init=False)

    def __post_init__(self) -> None:
        self.lines = [(line.index, line.hole) for line in view_lines(self.view)]

    def put(self, led: int, rgb: bytes) -> None:
        self.frame[3 * led : 3 * led + 3] = rgb

    def clamp(self, score: int) -> int:
        return min(max(score, 0), self.view.target)

    def pending_blink(self) -> bool:
        return self.clock.blink(self.view.extra.pending_at or 0.0, PENDING_PERIOD / 2)


@dataclass(frozen=True, slots=True)
class _TrackColours:
    front: bytes
    back: bytes
    trail: bytes
    pending: bytes
    dealer: bytes
    game_point: bytes
    game_point_won: bytes
    chase: tuple[bytes, ...]


def brightness_table(level: int) -> bytes:
    """Each channel value (0-255) at brightness ``level`` (0-255), on the perceptual curve
    (``BRIGHTNESS_GAMMA``): rounded, and a lit channel stays lit unless ``level`` is 0."""
    factor = (level / 255) ** BRIGHTNESS_GAMMA
    return bytes(0 if v == 0 or level == 0 else max(1, round(v * factor)) for v in range(256))


class Renderer:
    """Renders board views onto one layout; ``brightness`` (0..255) scales every frame on a
    perceptual curve (:func:`brightness_table`), ``power`` then limits it to a current budget.

    >>> from boardctl.board.layout import builtin_layout
    >>> from boardctl.view import BoardView, TrackView
    >>> r = Renderer(builtin_layout("two-121"))
    >>> view = BoardView(121, (TrackView("A", 5, 2), TrackView("B", 0, 0)))
    >>> len(r.render(view, now=0.0)), r.next_change(view, now=0.0)
    (768, None)
    """

    def __init__(
        self,
        layout: Layout,
        theme: Theme | None = None,
        *,
        brightness: int = 255,
        power: PowerBudget | None = None,
    ) -> None:
        self.layout = layout
        self.theme = t = theme or DEFAULT_THEME
        self.power = power
        self._tracks = tuple(self._track_colours(i) for i in range(len(layout.tracks)))
        self._line_faint = tuple(bytes(scaled(c, t.line_level)) for c in t.lines)
        self._line_shown = tuple(map(bytes, t.lines))  # a failed line at full colour
        self._error = bytes(t.error)
        self._status = bytes(scaled(t.status_idle, t.status_level))
        self.set_brightness(brightness)

    def set_brightness(self, level: int) -> None:
        """Global brightness 0..255 for the frames rendered from now on."""
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 255:
            raise ConfigError(f"brightness must be a whole number 0-255, not {level!r}")
        self.brightness = level
        self._table = None if level == 255 else brightness_table(level)

    def _track_colours(self, track: int) -> _TrackColours:
        t = self.theme
        c = t.track_colour(track)

        def at(level: float, colour: RGB = c) -> bytes:
            return bytes(scaled(colour, level))

        return _TrackColours(
            front=at(t.front_level),
            back=at(t.back_level),
            trail=at(t.trail_level),
            pending=at(t.pending_level),
            dealer=at(t.dealer_level),
            game_point=at(t.game_point_level),
            game_point_won=at(1.0),
            chase=tuple(at(level, WHITE if i == 0 else c) for i, level in enumerate(CHASE_TAIL)),
        )

    def render(self, view: BoardView, now: float) -> Frame:
        """The frame for ``view`` at monotonic time ``now``."""
        return self.render_with_next(view, now)[0]

    def next_change(self, view: BoardView, now: float) -> float | None:
        """When the frame of ``view`` next changes by itself (None: never)."""
        return self.render_with_next(view, now)[1]

    def render_with_next(self, view: BoardView, now: float) -> tuple[Frame, float | None]:
        """Both :meth:`render` and :meth:`next_change` in one pass; :class:`LayoutError` if
        ``view`` does not fit this layout (``ViewError`` if it names a track that is not there)."""
        layout = self.layout
        if len(view.tracks) > len(layout.tracks):
            raise LayoutError(
                f"{layout.source}: layout {layout.name!r} has {len(layout.tracks)} tracks but the "
                f"game has {len(view.tracks)}; choose a layout with enough tracks"
            )
        if not 1 <= view.target <= layout.hole_count:
            raise LayoutError(
                f"{layout.source}: layout {layout.name!r} has {layout.hole_count} holes per track "
                f"but the game is played to {view.target}; choose a layout with enough holes"
            )
        for key in ("dealer", "to_count", "winner", "match_winner"):
            index = getattr(view, key)
            if index is not None and not 0 <= index < len(view.tracks):
                raise ViewError(
                    f"view {key} {index} is not a track index (0-{len(view.tracks) - 1})"
                )
        clock = Clock(now)
        canvas = _Canvas(
            bytearray(3 * layout.led_count), view, clock, layout.tracks[: len(view.tracks)]
        )
        # every layer, bottom first: a later layer's LEDs cover an earlier one's
        self._status_layer(canvas)
        self._lines_layer(canvas)
        self._pegs_layer(canvas)
        self._dealer_layer(canvas)
        self._game_points_layer(canvas)
        self._pending_layer(canvas)
        self._undo_layer(canvas)
        self._comet_layer(canvas)
        self._sign_layer(canvas)
        self._ask_layer(canvas)
        self._error_layer(canvas)
        out = bytes(canvas.frame)
        if self._table is not None:
            out = out.translate(self._table)
        if self.power is not None:
            out = limit_power(out, self.power)
        return out, clock.next

    # --- the layers, in painting order (see render_with_next) -------------------------------
    def _status_layer(self, c: _Canvas) -> None:
        if self.layout.status is not None:
            c.put(self.layout.status, self._status)

    def _lines_layer(self, c: _Canvas) -> None:
        """Skunk lines, faint; those failed at game end at full colour on each loser's track (a
        line's marker LEDs: the deepest failure of all), the deepest blinking for a while."""
        view, clock = c.view, c.clock
        failures = [min(view.line_failed(t), len(c.lines)) for t in range(len(view.tracks))]
        blinking = any(failures) and clock.window(view.over_at, LINE_BLINK_SECONDS)
        over_at = view.over_at or 0.0  # (known whenever a line blinks)

        def colour(index: int, failed: int) -> bytes:
            """Line ``index``'s colour for a loser who failed ``failed`` lines."""
            if index == failed - 1 and blinking:
                shown = clock.pattern(over_at, LINE_PATTERNS[failed])
            else:
                shown = index < failed
            return self._line_shown[index] if shown else self._line_faint[index]

        for i, line in c.lines:
            markers = self.layout.markers.get(LINE_KEYS[i])
            if markers:
                rgb = colour(i, max(failures, default=0))
                for led in markers:
                    c.put(led, rgb)
            else:
                for track, failed in zip(c.tracks, failures, strict=True):
                    c.put(track.holes[line], colour(i, failed))

    def _pegs_layer(self, c: _Canvas) -> None:
        """Each track's back and front peg (and the trail behind, if the theme has one)."""
        for t, track_view in enumerate(c.view.tracks):
            holes = c.tracks[t].holes
            colours = self._tracks[t]
            back = c.clamp(track_view.back)
            if self.theme.trail:
                for hole in range(1, back):
                    c.put(holes[hole], colours.trail)
            c.put(holes[back], colours.back)
            c.put(holes[c.clamp(track_view.front)], colours.front)

    def _dealer_layer(self, c: _Canvas) -> None:
        """The dealer's LED, lit; the LED of the track whose count is due, blinking."""
        view = c.view
        counting = view.to_count if view.phase != "over" else None
        for t, track in enumerate(c.tracks):
            if track.dealer is None:
                continue
            lit = c.clock.blink(0.0, COUNT_PERIOD / 2) if t == counting else t == view.dealer
            if lit:
                c.put(track.dealer, self._tracks[t].dealer)

    def _game_points_layer(self, c: _Canvas) -> None:
        """Game points: one LED each, a blinking LED two (in proportion for long matches); a
        match's winner lights every LED at full, a single game's its points at full."""
        view = c.view
        for t, track_view in enumerate(view.tracks):
            leds = c.tracks[t].game_points
            colours = self._tracks[t]
            won = view.match_winner == t
            if won and view.match_target:  # every LED, steady
                lit, doubled = len(leds), 0
            else:
                lit, doubled = game_point_leds(track_view.game_points, view.match_target, len(leds))
            blink_on = doubled == 0 or c.clock.blink(0.0, GAME_POINT_PERIOD / 2)
            colour = colours.game_point_won if won else colours.game_point
            for i, led in enumerate(leds[:lit]):
                if i >= doubled or blink_on:
                    c.put(led, colour)

    def _pending_layer(self, c: _Canvas) -> None:
        """Pending entries blink ahead of the front peg, "on" from when the amount last
        changed (a press shows at once), else on a fixed beat."""
        view = c.view
        if view.phase == "over" or view.winner is not None:
            return
        for t, track_view in enumerate(view.tracks):
            if not track_view.pending:
                continue
            hole = c.clamp(track_view.front + track_view.pending)
            if hole != c.clamp(track_view.front) and c.pending_blink():
                c.put(c.tracks[t].holes[hole], self._tracks[t].pending)

    def _undo_layer(self, c: _Canvas) -> None:
        """A joined board's undo on its way to the host (``extra.undoing``): the front peg of
        each track whose entry it takes back blinks, dark while a pending entry's hole is lit
        (:data:`~boardctl.board.signs.UNDO_SENT_SIGN`)."""
        view = c.view
        undoing = [t for t in view.extra.undoing if 0 <= t < len(c.tracks)]
        if undoing and c.pending_blink():
            for t in undoing:
                c.put(c.tracks[t].holes[c.clamp(view.tracks[t].front)], _DARK)

    def _comet_layer(self, c: _Canvas) -> None:
        """The winner's comet, running round the winner's track for a while."""
        view, target = c.view, c.view.target
        if view.winner is None or not c.clock.window(view.over_at, CHASE_SECONDS):
            return
        assert view.over_at is not None
        step = c.clock.steps(view.over_at, CHASE_FPS)
        holes = c.tracks[view.winner].holes
        head = (step * CHASE_HOLES_PER_FRAME) % target
        for k, rgb in enumerate(self._tracks[view.winner].chase):
            hole = head - k
            if 1 <= hole < target:
                c.put(holes[hole], rgb)

    def _sign_layer(self, c: _Canvas) -> None:
        """The refusal's sign: the first holes of every track, steady in the error colour."""
        view = c.view
        refusal = view.extra.refusal
        holes = 0 if refusal is None else SIGN_HOLES[refusal]
        if not holes or not c.clock.window(view.error_at, SIGN_SECONDS):
            return
        for track in c.tracks:
            for hole in range(1, min(holes, len(track.holes) - 1) + 1):
                c.put(track.holes[hole], self._error)

    def _ask_layer(self, c: _Canvas) -> None:
        """The board asks about the last entry: that track's start hole and the status LED,
        steady white while it asks (:data:`~boardctl.board.signs.ASK_SIGN`)."""
        ask = c.view.extra.ask
        track = -1 if ask is None else ask.track
        if not 0 <= track < len(c.tracks):
            return
        if self.layout.status is not None:
            c.put(self.layout.status, _ASK_WHITE)
        c.put(c.tracks[track].holes[0], _ASK_WHITE)

    def _error_layer(self, c: _Canvas) -> None:
        """The error flash: the status LED and every start hole, red."""
        error_at = c.view.error_at
        if not c.clock.window(error_at, ERROR_SECONDS):
            return
        assert error_at is not None
        if c.clock.blink(error_at, ERROR_STEP):
            if self.layout.status is not None:
                c.put(self.layout.status, self._error)
            for track in c.tracks:
                c.put(track.holes[0], self._error)


def game_point_leds(points: int, match_target: int, led_count: int) -> tuple[int, int]:
    """How many game-point LEDs light, and how many of them (the first) blink, worth two: one
    steady LED a point up to ``led_count``, then the first ``points - led_count`` blinking; a
    match needing more than twice ``led_count`` before the win lights in proportion."""
    points = max(0, points)
    if match_target - 1 > 2 * led_count:
        return min(led_count, points * led_count // match_target), 0
    if points <= led_count:
        return points, 0
    return led_count, min(led_count, points - led_count)


_ASK_WHITE = bytes(WHITE)  # the sign of a question (signs.ASK_SIGN)
_DARK = bytes(3)
