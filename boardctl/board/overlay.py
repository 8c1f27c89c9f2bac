"""The panel's modes (settings, confirms, the result's sign-off) and the signs of an unfit game,
the journal, the link and a stuck button, drawn over the board (each look: docs/board.md);
:class:`OverlayRenderer` wraps the board renderer, so the service loop still sees one renderer."""

from __future__ import annotations

import logging
from typing import Protocol

from boardctl.board import theme
from boardctl.board.frame import Frame
from boardctl.board.layout import Layout
from boardctl.board.render import Clock
from boardctl.board.rulesign import RULE_COLOURS, rule_sign_holes
from boardctl.board.signs import LINK_ENDED_STEP, STUCK_COLOUR, stuck_next, stuck_on, stuck_places
from boardctl.errors import LayoutError
from boardctl.view import BoardView, ButtonId, SettingsShown

WHITE_DIM = bytes((24, 24, 24))
WHITE = bytes((200, 200, 200))
AMBER_DIM = bytes((30, 16, 0))
AMBER = bytes((230, 120, 0))
RED = bytes((220, 0, 0))
PURPLE = bytes(theme.REDDISH_PURPLE)  # the journal was damaged
VERMILION = bytes(theme.VERMILION)  # the journal cannot be opened
BLUE = bytes(theme.BLUE)  # a second undo asks for its confirm
GREEN = bytes(theme.BLUISH_GREEN)  # this side confirmed the result
YELLOW = bytes(STUCK_COLOUR)
CONFIRM_STEP = 0.25  # seconds on, seconds off

log = logging.getLogger(__name__)


class Renderer(Protocol):
    """A board renderer (:class:`boardctl.board.Renderer`): a frame for a view at a time."""

    def render(self, view: BoardView, now: float) -> Frame: ...
    def render_with_next(self, view: BoardView, now: float) -> tuple[Frame, float | None]: ...


class OverlayRenderer:
    """The board renderer plus the settings and confirm overlays."""

    def __init__(self, inner: Renderer, layout: Layout) -> None:
        self.inner = inner
        self.layout = layout
        self._unfit: str | None = None
        self._dark = bytes(3 * layout.led_count)
        #: Where the mode signs show: every start hole and the status LED.
        self._starts = [layout.led_of(track, 0) for track in range(len(layout.tracks))]
        if layout.status is not None:
            self._starts.append(layout.status)

    def render(self, view: BoardView, now: float) -> Frame:
        return self.render_with_next(view, now)[0]

    def next_change(self, view: BoardView, now: float) -> float | None:
        return self.render_with_next(view, now)[1]

    def render_with_next(self, view: BoardView, now: float) -> tuple[Frame, float | None]:
        """Both :meth:`render` and :meth:`next_change` in one pass (the board renders once)."""
        clock = Clock(now)
        frame = self._render(view, clock)
        stuck = view.extra.stuck
        if stuck:
            if stuck_on(now):
                frame = _paint(frame, self._stuck_leds(stuck), YELLOW)
            clock.edge(stuck_next(now))
        return frame, clock.next

    def _stuck_leds(self, buttons: tuple[ButtonId, ...]) -> list[int]:
        layout, status = self.layout, self.layout.status
        tracks = len(layout.tracks)
        places = [p for b in buttons for p in stuck_places(b, tracks, status is not None)]
        # (a place of None, the status LED, comes only when the layout has one)
        return [status or 0 if place is None else layout.led_of(*place) for place in places]

    def _render(self, view: BoardView, clock: Clock) -> Frame:
        extra = view.extra
        if extra.settings is not None:
            return self._settings(extra.settings)
        fault = extra.journal_fault
        try:
            frame, upcoming = self.inner.render_with_next(view, clock.now)
        except LayoutError as exc:
            if not fault and str(exc) != self._unfit:
                self._unfit = str(exc)
                log.error("cannot show this game: %s", exc)
            return _paint(self._dark, self._starts, VERMILION if fault else RED)
        if upcoming is not None:
            clock.edge(upcoming)
        signoff = extra.signoff  # a result waits: the sides that confirmed it
        awaited = signoff is not None and any(t not in signoff for t in range(len(view.tracks)))
        blinks = bool(extra.confirm or extra.undo_confirm or awaited)
        blink = blinks and clock.blink(0.0, CONFIRM_STEP)
        ended = extra.link_ended and clock.blink(0.0, LINK_ENDED_STEP)
        if fault:  # no score is known: dark, and the fault sign
            return _paint(self._dark, self._starts, VERMILION)
        for shown, colour in (
            (extra.confirm and blink, RED),
            (extra.undo_confirm and blink, BLUE),
            (extra.journal_damage, PURPLE),
            (extra.link_lost, WHITE),
            (ended, WHITE),
        ):
            if shown:
                return _paint(frame, self._starts, colour)
        if signoff is not None and extra.refusal is None:
            # the start holes of the sides that confirmed, those awaited blinking
            tracks = range(min(len(view.tracks), len(self.layout.tracks)))
            lit = [self.layout.led_of(t, 0) for t in tracks if t in signoff or blink]
            return _paint(frame, lit, GREEN)
        return frame

    def _settings(self, settings: SettingsShown) -> Frame:
        layout = self.layout
        frame = bytearray(3 * layout.led_count)

        def put(led: int, rgb: bytes) -> None:
            frame[3 * led : 3 * led + 3] = rgb

        for i in range(settings.count):
            put(layout.led_of(0, i + 1), WHITE if i == settings.index else WHITE_DIM)
        track, first = (1, 1) if len(layout.tracks) > 1 else (0, 61)
        for i in range(settings.choices):
            put(layout.led_of(track, first + i), AMBER if i == settings.choice else AMBER_DIM)
        name = str(settings.value)
        sign = RULE_COLOURS.get(name)
        if settings.item == "rules" and sign is not None:  # the rule set's sign over its choices
            for i in range(rule_sign_holes(name)):
                put(layout.led_of(track, first + i), bytes(sign[0]))
        if layout.status is not None:
            put(layout.status, AMBER)
        return bytes(frame)


def _paint(frame: Frame, leds: list[int], rgb: bytes) -> Frame:
    out = bytearray(frame)
    for led in leds:
        out[3 * led : 3 * led + 3] = rgb
    return bytes(out)
