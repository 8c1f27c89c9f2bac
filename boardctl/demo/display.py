"""Where a demo game is shown (plain text, the virtual board, the LEDs): each :data:`Table` is
told each line (``say``), each new board (``moved``) and each pause in beats (``pause``)."""

from __future__ import annotations

import shutil
import textwrap
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from boardctl.board import Frame, PowerBudget, Renderer, load_layout, terminal
from boardctl.errors import BoardError
from boardctl.view import BoardView, TrackView

if TYPE_CHECKING:
    from boardctl.link.base import Link

# Seconds per beat at --speed 1: a six-card game to 121 takes about a minute.
BEAT = 0.3
# Seconds after which every animation of a view is over (the skunk line blinks for 30 s).
SETTLED = 3600.0
# The LED self-test walks a peg through each hole this fast (121 holes: 2.4 s a track).
SELF_TEST_SECONDS_PER_HOLE = 0.02

# Terminal control: cursor home, clear to end of line, clear to end of screen.
_HOME = "\x1b[H"
_CLEAR_LINE = "\x1b[K"
_CLEAR_BELOW = "\x1b[J"


class Pacer:
    """Sleeps ``beats * BEAT / speed`` seconds; speed 0 never sleeps."""

    def __init__(self, speed: float, sleep: Callable[[float], None] = time.sleep) -> None:
        if speed < 0:
            raise BoardError(f"speed must be 0 (no pauses) or more, not {speed}")
        self.speed = speed
        self._sleep = sleep

    def seconds(self, beats: float) -> float:
        """How long ``beats`` last at this pace (0 at speed 0)."""
        return beats * BEAT / self.speed if self.speed > 0 and beats > 0 else 0.0

    def pause(self, beats: float) -> None:
        self.sleep(self.seconds(beats))

    def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` of wall time, whatever the pace."""
        if seconds > 0:
            self._sleep(seconds)


class TextTable:
    """The play-by-play as plain lines on a stream (no board, no escape codes)."""

    def __init__(self, stream: TextIO, pacer: Pacer) -> None:
        self.stream = stream
        self.pacer = pacer

    def say(self, line: str) -> None:
        _write(self.stream, line + "\n")

    def moved(self, view: BoardView) -> None:
        pass  # no board to draw

    def pause(self, beats: float) -> None:
        self.pacer.pause(beats)


class Board:
    """A layout (a name or a file) and a renderer: turns views into frames."""

    def __init__(
        self, layout: str, *, brightness: int = 255, power_ma: float | None = None
    ) -> None:
        self.layout = load_layout(layout)  # a built-in name or a file
        power = None if power_ma is None else PowerBudget(limit_ma=power_ma)
        self.renderer = Renderer(self.layout, brightness=brightness, power=power)

    def frame(self, view: BoardView, now: float | None = None) -> Frame:
        """The frame for ``view`` at monotonic time ``now`` (default: now)."""
        return self.renderer.render(view, time.monotonic() if now is None else now)

    def animate(
        self, view: BoardView | None, pacer: Pacer, beats: float, show: Callable[[float], None]
    ) -> None:
        """Call ``show(now)`` whenever the frame of ``view`` changes, for ``beats`` of ``pacer``."""
        end = time.monotonic() + pacer.seconds(beats)
        while (now := time.monotonic()) < end:
            due = None if view is None else self.renderer.next_change(view, now)
            if due is None or due >= end:
                pacer.sleep(end - now)
                return
            pacer.sleep(max(0.0, due - now))
            show(time.monotonic())


def layout_for(tracks: int, target: int) -> str:
    """The reference layout that shows ``tracks`` tracks to ``target``."""
    if tracks == 2:
        return "two-61" if target <= 61 else "two-121"
    if tracks == 3 and target <= 121:
        return "three-121"
    raise BoardError(
        f"no board layout shows {tracks} tracks to {target}; use --display none for this variant"
    )


class TerminalTable:
    """The virtual board redrawn in place on a terminal, the newest log lines that fit below it."""

    def __init__(self, stream: TextIO, pacer: Pacer, board: Board, *, color: str = "auto") -> None:
        self.stream = stream
        self.pacer = pacer
        self.board = board
        self.color = terminal.resolve_color_mode(color, stream)
        self.lines: deque[str] = deque(maxlen=200)
        self.view: BoardView | None = None
        self._drawn = False

    def say(self, line: str) -> None:
        self.lines.append(line)
        self.redraw()

    def moved(self, view: BoardView) -> None:
        self.view = view
        self.redraw()

    def pause(self, beats: float) -> None:
        """Pause at the configured pace, the board's animations running."""
        self.board.animate(self.view, self.pacer, beats, self.redraw)

    def settle(self) -> None:
        """Draw the board as it stays once every animation is over."""
        self.redraw(time.monotonic() + SETTLED)

    def screen(self, columns: int, rows: int, now: float | None = None) -> list[str]:
        """The board, a blank row (not on a tall board), then the recent log rows that fit in
        ``rows - 1`` rows (the cursor's row must not scroll the board off)."""
        top: list[str] = []
        if self.view:
            frame = self.board.frame(self.view, now)
            board = terminal.draw_board(self.view, frame, self.board.layout, color=self.color)
            top = [terminal.clip(row, columns, "") for row in board.rstrip("\n").split("\n")]
        free = rows - 1 - len(top)
        gap = [""] if free > 3 else []
        room = max(free - len(gap), 1)
        wrapped: list[str] = []
        for line in reversed(self.lines):
            wrapped[:0] = wrap(line, columns)
            if len(wrapped) >= room:
                break
        return [*top, *gap, *wrapped[-room:]]

    def redraw(self, now: float | None = None) -> None:
        """Draw the screen from the top-left corner, clearing what was left from before."""
        size = shutil.get_terminal_size((80, 24))
        rows = self.screen(size.columns, size.lines, now)
        out = [_HOME if self._drawn else _HOME + "\x1b[2J"]
        out.extend(row + _CLEAR_LINE + "\n" for row in rows)
        out.append(_CLEAR_BELOW)
        _write(self.stream, "".join(out))
        self._drawn = True


def wrap(line: str, columns: int) -> list[str]:
    """A log line wrapped to ``columns`` (continuation rows indented)."""
    if len(line) < columns:
        return [line]
    return textwrap.wrap(line, columns - 1, subsequent_indent="    ") or [""]


class LedTable:
    """The game on real LEDs through a link, with the play-by-play as text beside it."""

    def __init__(self, text: TextTable, board: Board, link: Link) -> None:
        self.text = text
        self.board = board
        self.link = link
        self.view: BoardView | None = None

    def say(self, line: str) -> None:
        self.text.say(line)

    def moved(self, view: BoardView) -> None:
        self.view = view
        self.link.show(self.board.frame(view))

    def self_test(self, names: Sequence[str]) -> None:
        """Walk a peg through every hole of each track in turn (a gap or jump: a wiring fault)."""
        holes = [len(track.holes) for track in self.board.layout.tracks]
        target = min(holes) - 1
        for track, name in enumerate(names[: len(holes)]):
            for hole in range(target + 1):
                tracks = tuple(
                    TrackView(other, front=hole if index == track else 0)
                    for index, other in enumerate(names[: len(holes)])
                )
                self.link.show(self.board.frame(BoardView(target, tracks, phase="free")))
                self.text.pacer.pause(SELF_TEST_SECONDS_PER_HOLE / BEAT)
            self.say(f"Self-test: {name}'s track, holes 0-{target} lit one by one.")

    def pause(self, beats: float) -> None:
        """Pause, keeping any animation on the LEDs running (a frame sent only on change)."""
        view = self.view

        def show(now: float) -> None:
            assert view is not None
            self.link.show(self.board.frame(view, now))

        self.board.animate(view, self.text.pacer, beats, show)


#: Where the game driver reports (:mod:`boardctl.demo.game`).
Table = TextTable | TerminalTable | LedTable


def _write(stream: TextIO, text: str) -> None:
    stream.write(terminal.printable(text, getattr(stream, "encoding", None)))
    stream.flush()
