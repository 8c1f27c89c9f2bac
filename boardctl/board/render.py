"""The renderer: a board view and a time in, a frame of LED colours out.

:meth:`Renderer.render` is pure: the same view, layout, theme and time give
the same frame. Animations are functions of time, quantised to their steps,
and :meth:`Renderer.next_change` tells when the frame would next differ, so a
service renders nothing while nothing changes (it returns ``None`` then).

What the board shows, drawn in this order (later wins):

* status LED faint green (powered, idle);
* skunk lines (target-30, -60, -90, those after hole 1) faint at all times,
  on their marker LEDs if the layout has them, else by tinting the line hole
  (the first hole past the line) on every track;
* per track: optional faint trail, back peg dim, front peg bright (a front
  peg on the back peg's hole shows as the front peg); scores clamp to
  0..target;
* the dealer's dealer LED steady; in the guided show, the dealer LED of the
  track whose count is due blinks (1 s period);
* match game points on the game-point LEDs, one per point (in proportion when
  the match needs more points than there are LEDs; all full once it is won);
* a pending entry blinks ahead of (or, if negative, behind) the front peg;
* at game end, the deepest line each loser failed to cross blinks (skunk:
  even 1 Hz blink; double: two short flashes; triple: three) for
  :data:`LINE_BLINK_SECONDS`, then stays lit; a comet runs along the
  winner's track for :data:`CHASE_SECONDS` (time-limited, then steady);
* for :data:`ERROR_SECONDS` after a rejected entry the status LED and the
  start holes flash the error colour three times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from boardctl.board.frame import RGB, Frame
from boardctl.board.geometry import board_lines
from boardctl.board.layout import LINE_KEYS, Layout
from boardctl.board.power import PowerBudget, limit_power
from boardctl.board.theme import DEFAULT_THEME, WHITE, Theme, scaled
from boardctl.errors import ConfigError, LayoutError
from boardctl.view import BoardView

#: Pending entry blink: on for the first half of each period (seconds).
PENDING_PERIOD = 0.6
#: Whose-count blink of the dealer LED (seconds).
COUNT_PERIOD = 1.0
#: How long a rejected entry flashes, and the length of each on/off step.
ERROR_SECONDS = 1.5
ERROR_STEP = 0.25
#: The winner's comet: how long it runs, frames per second, holes per frame.
CHASE_SECONDS = 4.0
CHASE_FPS = 20
CHASE_HOLES_PER_FRAME = 3
CHASE_TAIL = (1.0, 0.5, 0.25, 0.12, 0.06)
#: How long the failed line blinks after the game ends before staying lit.
LINE_BLINK_SECONDS = 30.0
#: Blink rhythms of a failed line (alternating on/off durations, starting on).
LINE_PATTERNS: dict[int, tuple[float, ...]] = {
    1: (0.5, 0.5),
    2: (0.15, 0.15, 0.15, 0.55),
    3: (0.15, 0.15, 0.15, 0.15, 0.15, 0.55),
}
#: Level of a line once the game is over (failed line lit, or blink "on").
LINE_SHOWN_LEVEL = 1.0


class _Clock:
    """Answers "is this animation on at ``now``?" and remembers the next edge."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.next: float | None = None

    def edge(self, at: float) -> None:
        if at > self.now and (self.next is None or at < self.next):
            self.next = at

    def window(self, start: float | None, seconds: float) -> bool:
        """Whether ``now`` lies in ``[start, start + seconds)``."""
        if start is None:
            return False
        if self.now < start:
            self.edge(start)
            return False
        end = start + seconds
        if self.now < end:
            self.edge(end)
            return True
        return False

    def pattern(self, origin: float, durations: tuple[float, ...]) -> bool:
        """On/off rhythm ``durations`` (starting on) repeating from ``origin``.

        Every boundary is computed by one float expression, both to decide
        the state at ``now`` and to report the next edge, so the state can
        never change before the reported edge, nor fail to change at it.
        """
        cycle = sum(durations)
        n = _floor_index(self.now, origin, cycle)
        start = origin + n * cycle
        offsets = [0.0]
        for length in durations:
            offsets.append(offsets[-1] + length)
        state = 0
        for i in range(1, len(durations)):
            if start + offsets[i] <= self.now:
                state = i
        if state + 1 < len(durations):
            self.edge(start + offsets[state + 1])
        else:
            self.edge(origin + (n + 1) * cycle)
        return state % 2 == 0

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


class Renderer:
    """Renders board views onto one layout.

    ``brightness`` (0..255) scales every frame; ``power``, if given, then
    limits each frame to that current budget (see :mod:`boardctl.board.power`).

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
        self.theme = theme or DEFAULT_THEME
        self.power = power
        t = self.theme
        self._tracks = tuple(self._track_colours(i) for i in range(len(layout.tracks)))
        self._line_faint = tuple(bytes(scaled(c, t.line_level)) for c in t.lines)
        self._line_shown = tuple(bytes(scaled(c, LINE_SHOWN_LEVEL)) for c in t.lines)
        self._error = bytes(t.error)
        self._status = bytes(scaled(t.status_idle, t.status_level))
        self._table: bytes | None = None
        self.brightness = 255
        self.set_brightness(brightness)

    def set_brightness(self, level: int) -> None:
        """Global brightness 0..255 for the frames rendered from now on."""
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 255:
            raise ConfigError(f"brightness must be a whole number 0-255, not {level!r}")
        self.brightness = level
        self._table = None
        if level != 255:
            self._table = bytes(
                0 if v == 0 or level == 0 else max(1, (v * level + 127) // 255) for v in range(256)
            )

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

    # ------------------------------------------------------------------
    def render(self, view: BoardView, now: float) -> Frame:
        """The frame for ``view`` at monotonic time ``now``."""
        return self.render_with_next(view, now)[0]

    def next_change(self, view: BoardView, now: float) -> float | None:
        """When the frame of ``view`` next changes by itself (None: never)."""
        return self.render_with_next(view, now)[1]

    def render_with_next(self, view: BoardView, now: float) -> tuple[Frame, float | None]:
        """Both :meth:`render` and :meth:`next_change` in one pass."""
        self.check_view(view)
        clock = _Clock(now)
        frame = bytearray(3 * self.layout.led_count)
        self._draw(frame, view, clock)
        out = bytes(frame)
        if self._table is not None:
            out = out.translate(self._table)
        if self.power is not None:
            out = limit_power(out, self.power)
        return out, clock.next

    def check_view(self, view: BoardView) -> None:
        """Raise :class:`LayoutError` if ``view`` does not fit this layout
        (``ValueError`` if it names a track that is not there)."""
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
                raise ValueError(
                    f"view {key} {index} is not a track index (0-{len(view.tracks) - 1})"
                )

    # ------------------------------------------------------------------
    def _draw(self, frame: bytearray, view: BoardView, clock: _Clock) -> None:
        layout = self.layout
        theme = self.theme
        target = view.target
        tracks = layout.tracks[: len(view.tracks)]

        def put(led: int, rgb: bytes) -> None:
            frame[3 * led : 3 * led + 3] = rgb

        def clamp(score: int) -> int:
            return 0 if score < 0 else target if score > target else score

        if layout.status is not None:
            put(layout.status, self._status)

        # Skunk lines, faint at all times.
        lines = [(line.index, line.hole) for line in board_lines(target)]
        for i, line in lines:
            markers = layout.markers.get(LINE_KEYS[i])
            if markers:
                for led in markers:
                    put(led, self._line_faint[i])
            else:
                for track in tracks:
                    put(track.holes[line], self._line_faint[i])

        # Lines failed at game end: the deepest blinks, shallower ones stay lit.
        failures = [min(view.line_failed(t), len(lines)) for t in range(len(view.tracks))]
        if any(failures):
            blinking = clock.window(view.over_at, LINE_BLINK_SECONDS)
            deepest_overall = max(failures)
            for t, failed in enumerate(failures):
                for i, line in lines:
                    if (
                        i < failed
                        and not layout.markers.get(LINE_KEYS[i])
                        and self._line_on(i, failed, blinking, view, clock)
                    ):
                        put(tracks[t].holes[line], self._line_shown[i])
            for i, _line in lines:
                markers = layout.markers.get(LINE_KEYS[i])
                if (
                    markers
                    and i < deepest_overall
                    and self._line_on(i, deepest_overall, blinking, view, clock)
                ):
                    for led in markers:
                        put(led, self._line_shown[i])

        # Pegs.
        for t, track_view in enumerate(view.tracks):
            holes = tracks[t].holes
            colours = self._tracks[t]
            back = clamp(track_view.back)
            front = clamp(track_view.front)
            if theme.trail:
                for hole in range(1, back):
                    put(holes[hole], colours.trail)
            put(holes[back], colours.back)
            put(holes[front], colours.front)

        # Dealer and whose count it is.
        counting = view.to_count if view.phase != "over" else None
        for t in range(len(view.tracks)):
            dealer_led = tracks[t].dealer
            if dealer_led is None:
                continue
            if t == counting:
                if clock.pattern(0.0, (COUNT_PERIOD / 2, COUNT_PERIOD / 2)):
                    put(dealer_led, self._tracks[t].dealer)
            elif t == view.dealer:
                put(dealer_led, self._tracks[t].dealer)

        # Match game points.
        for t, track_view in enumerate(view.tracks):
            leds = tracks[t].game_points
            colour = (
                self._tracks[t].game_point_won
                if view.match_winner == t
                else self._tracks[t].game_point
            )
            for led in leds[: self._lit_game_points(track_view.game_points, view, len(leds))]:
                put(led, colour)

        # Pending entries blink ahead of the front peg.
        if view.phase != "over" and view.winner is None:
            # The blink starts "on" when the pending amount last changed, so a
            # press shows at once; without that time, blink on a fixed beat.
            pending_at = view.extra.get("pending_at")
            origin = float(pending_at) if isinstance(pending_at, int | float) else 0.0
            for t, track_view in enumerate(view.tracks):
                if not track_view.pending:
                    continue
                hole = clamp(track_view.front + track_view.pending)
                if hole != clamp(track_view.front) and clock.pattern(
                    origin, (PENDING_PERIOD / 2, PENDING_PERIOD / 2)
                ):
                    put(tracks[t].holes[hole], self._tracks[t].pending)

        # The winner's comet.
        if view.winner is not None and clock.window(view.over_at, CHASE_SECONDS):
            assert view.over_at is not None
            step = clock.steps(view.over_at, CHASE_FPS)
            holes = tracks[view.winner].holes
            chase = self._tracks[view.winner].chase
            head = (step * CHASE_HOLES_PER_FRAME) % target
            for k, rgb in enumerate(chase):
                hole = head - k
                if 1 <= hole < target:
                    put(holes[hole], rgb)

        # Error flash.
        if clock.window(view.error_at, ERROR_SECONDS):
            assert view.error_at is not None
            if clock.pattern(view.error_at, (ERROR_STEP, ERROR_STEP)):
                if layout.status is not None:
                    put(layout.status, self._error)
                for track in tracks:
                    put(track.holes[0], self._error)

    @staticmethod
    def _lit_game_points(points: int, view: BoardView, led_count: int) -> int:
        """How many game-point LEDs to light: one per point, or in proportion
        to ``match_target`` when the match needs more points than there are LEDs."""
        points = max(0, points)
        if view.match_target > led_count:
            return min(led_count, points * led_count // view.match_target)
        return min(led_count, points)

    @staticmethod
    def _line_on(index: int, failed: int, blinking: bool, view: BoardView, clock: _Clock) -> bool:
        """Whether line ``index`` shows at game end for a loser who failed ``failed`` lines."""
        if index != failed - 1 or not blinking:
            return True
        assert view.over_at is not None
        return clock.pattern(view.over_at, LINE_PATTERNS[failed])
