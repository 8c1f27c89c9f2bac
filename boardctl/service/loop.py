"""The service's one loop: inputs, control requests and timers in, frames out (docs/service.md).

Everything that changes the game runs in the thread that calls :meth:`ServiceLoop.run`: other
threads and signal handlers only :meth:`~ServiceLoop.post` an event; the selector waits exactly
until the next deadline: with nothing to do it sleeps.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import selectors
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from boardctl.board.frame import Frame
from boardctl.board.overlay import Renderer
from boardctl.game.commands import BoardCommand
from boardctl.inputs.events import Edge, InputEvent, Tap, Turn
from boardctl.inputs.panel import Panel
from boardctl.link.base import Link
from boardctl.notices import journal_status_line
from boardctl.refusals import Refusal
from boardctl.service.dispatch import Dispatcher, Keeper, Result, Validate
from boardctl.service.journal_reader import inputs_done
from boardctl.service.notify import Notifier
from boardctl.service.requests import Requests
from boardctl.service.settings import BoardSettings
from boardctl.service.watch import Watch
from boardctl.view import BoardView, ViewExtra

log = logging.getLogger(__name__)

ERROR_KEPT = 5.0  # seconds a refusal stays in the view (the renderer flashes it for less)


@dataclass(frozen=True, slots=True)
class Call:
    """Run ``function`` in the loop's thread (tests, benchmarks, other threads' requests)."""

    function: Callable[[], object]


@dataclass(frozen=True, slots=True)
class Stop:
    """Finish the loop (posted by the signal handlers)."""


LoopEvent = InputEvent | Call | Stop
ViewKey = tuple[BoardView, ViewExtra, int | None]  # decides a new render


def status_line(status: dict[str, Any]) -> str:
    """A one-line score for ``systemctl status``: ``Ann 87 · Bob 92 · play · target 121``."""
    tracks = status.get("tracks") or []
    parts = [f"{t.get('name', '?')} {t.get('front', 0)}" for t in tracks]
    phase = status.get("phase", "?")
    winner = status.get("winner")
    if winner is not None and 0 <= winner < len(tracks):
        phase = f"{tracks[winner].get('name', '?')} won"
    line = " · ".join([*parts, str(phase), f"target {status.get('target', '?')}"])
    return journal_status_line(status, line)


class ServiceLoop:
    """Wires a keeper, a renderer, a link and the buttons into one event loop."""

    def __init__(
        self,
        keeper: Keeper,
        renderer: Renderer,
        link: Link,
        *,
        panel: Panel | None = None,
        notifier: Notifier | None = None,
        display: Callable[[BoardView, Frame], None] | None = None,
        on_brightness: Callable[[int], None] | None = None,
        validate: Validate | None = None,
        clock: Callable[[], float] = time.monotonic,
        link_kind: str = "unknown",
    ) -> None:
        self.keeper = keeper
        self.renderer = renderer
        self.link = link
        self.notifier = notifier or Notifier({})
        self.display = display
        self.clock = clock
        self.selector = selectors.DefaultSelector()
        self._events: queue.SimpleQueue[LoopEvent] = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.selector.register(self._wake_r, selectors.EVENT_READ, self._drain_wake)
        base = keeper.view()
        self.panel = panel or Panel(tracks=len(base.tracks))
        self.settings = BoardSettings(on_brightness)
        self.panel.current_settings = lambda: self.settings.current(self.keeper.status())
        self.panel.signoff = keeper.waiting_signoff
        self.validate = validate  # the check of commands against the board's layout
        self.dispatcher = Dispatcher(self)
        self.dispatcher.refused.append(self.panel.refused)  # a refused entry lifts no undo guard
        self.requests = Requests(self, link_kind)
        self.watch = Watch()  # the control socket's watchers (boardctl.service.watch)
        self._watched_key: ViewKey | None = None
        self.dispatcher.committed.append(self._announce_event)
        # told of every input before the panel takes it (e.g. boardctl.sound's score gesture)
        self.input_listeners: list[Callable[[InputEvent], None]] = []
        self._timers: list[tuple[Callable[[], float | None], Callable[[float], None]]] = []
        # more of the view than the keeper's and the panel's (boardctl.remote: the link's sign)
        self.view_extras: list[Callable[[ViewExtra], ViewExtra]] = []
        self._error_at: float | None = None
        self._refusal: tuple[Refusal, str] = (Refusal.OTHER, "")
        self.stopping = False
        self._base_view = base
        self._view_key: ViewKey | None = None
        self.frame: Frame | None = None  # the last frame sent to the link
        self._next_render: float | None = None
        self._next_watchdog: float | None = None
        self._status = ""
        self.renders = 0
        self.on_frame: Callable[[Frame], None] | None = None  # for benchmarks and tests
        # Input callbacks stamp and queue an edge under this lock; the loop reads the
        # clock under it before taking the queue, so it never settles a debounce at a
        # time before an edge that is stamped but not yet handled.
        self.edge_lock = threading.Lock()

    def post(self, event: LoopEvent) -> None:
        """Queue an input, a :class:`Call` or :class:`Stop` from any thread (an input pauses
        the journal readers' threads until the loop is done: :data:`.inputs_done`)."""
        self._events.put(event)
        if not isinstance(event, Call | Stop):
            inputs_done.clear()  # after the put: the loop's empty queue then means handled
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b"\0")

    def wake(self) -> None:
        """Wake the loop from any thread: its timers tick (the control server answers a
        request held for a journal reader that has just published)."""
        self.post(Call(lambda: None))

    def stop(self) -> None:
        """Ask the loop to finish (safe from a signal handler)."""
        self.post(Stop())

    def add_timer(
        self, deadline: Callable[[], float | None], tick: Callable[[float], None]
    ) -> None:
        """Another source of deadlines (e.g. the control server's idle clients)."""
        self._timers.append((deadline, tick))

    def _announce_event(self, command: BoardCommand, result: Result) -> None:
        """A command was journalled: the watchers get its event, then the board after it."""
        if not self.watch.watchers:
            return
        self.watch.publish(lambda: {"event": result["event"], "seq": result["seq"]})
        view = self.view()
        self._watched_key = self._key(view)
        self.watch.publish(lambda: {"state": self.requests.state(view)})

    def watched(self, view: BoardView) -> None:
        """A new watcher's snapshot shows ``view``: no need to announce it again."""
        self._watched_key = self._key(view)

    def _key(self, view: BoardView) -> ViewKey:
        """What decides whether a view needs a new render (and the watchers a new state)."""
        return (view, view.extra, self.settings.brightness)

    def tap(self, name: str, hold: int) -> list[BoardCommand]:
        """A whole press of ``name`` now, held short (0), long (1) or very long (2)."""
        timing = self.panel.timing
        seconds = (0.0, timing.long_press, timing.very_long_press)[hold]
        return self.panel.tap(name, self.clock(), hold=seconds)

    def show_now(self, view: BoardView) -> None:
        """Show a state not yet durable, at once (a press lights before its fsync)."""
        self._show_base(view)
        self.refresh(self.clock())

    def show_durable(self, status: dict[str, Any] | None = None) -> None:
        """Show the keeper's durable state at once (its frame sent before the listeners' cues);
        ``status``: the keeper's, when the caller has it."""
        self._show_base(self.keeper.view())
        self.refresh(self.clock())
        self._update_status(status)

    def flash_error(self, refusal: Refusal = Refusal.OTHER, reason: str = "") -> None:
        """Flash the refusal's class and reason in the view for :data:`ERROR_KEPT` seconds."""
        self._error_at = self.clock()
        self._refusal = (refusal, reason)

    def redraw(self) -> None:
        """Render again at the next refresh even if the view is unchanged."""
        self._view_key = None

    def _show_base(self, view: BoardView) -> None:
        self._base_view = view
        if len(view.tracks) != self.panel.tracks:
            self.panel.set_tracks(len(view.tracks))

    def view(self) -> BoardView:
        """The view the board shows now: the game plus the panel's pending entries (added to
        any the keeper shows: boardctl.remote.joined) and overlays."""
        base = self._base_view
        pending = self.panel.pending
        tracks = tuple(
            replace(track, pending=track.pending + (pending[i] if i < len(pending) else 0))
            for i, track in enumerate(base.tracks)
        )
        # with the panel's modes, and when the pending amount last changed (a renderer may
        # start its blink "on" there; the keeper's time when only it shows one pending)
        pending_at = self.panel.pending_at
        extra = replace(
            self.panel.overlay(base.extra),
            pending_at=base.extra.pending_at if pending_at is None else pending_at,
        )
        if self._error_at is not None:
            extra = replace(extra, refusal=self._refusal[0], refused=self._refusal[1])
        for add in self.view_extras:
            extra = add(extra)
        error_at = self._error_at if self._error_at is not None else base.error_at
        return replace(base, tracks=tracks, extra=extra, error_at=error_at)

    def refresh(self, now: float, *, force: bool = False) -> None:
        """Render and send a frame if the view changed or an animation is due."""
        view = self.view()
        key = self._key(view)
        due = self._next_render is not None and now >= self._next_render
        if not force and key == self._view_key and not due:
            return
        view_changed = key != self._view_key
        self._view_key = key
        frame, self._next_render = self.renderer.render_with_next(view, now)
        self.renders += 1
        frame_changed = frame != self.frame or force
        if frame_changed:
            self.frame = frame
            self.link.show(frame)
            if self.on_frame is not None:
                self.on_frame(frame)
        if self.display is not None and (frame_changed or view_changed):
            # the virtual board also shows words the LEDs do not (names, the pending amount,
            # the refusal's reason, the confirm prompt): a changed view is drawn even when
            # its frame is the same, so no label outlives what it says
            try:
                self.display(view, frame)
            except OSError as exc:  # the terminal went away: carry on headless
                log.warning("terminal display stopped: %s", exc)
                self.display = None

    def _update_status(self, status: dict[str, Any] | None = None) -> None:
        """Tell systemd the durable score when its line changed (a press not yet written
        does not read it)."""
        line = status_line(self.keeper.status() if status is None else status)
        if line != self._status:
            self._status = line
            self.notifier.status(line)

    def start(self) -> None:
        """Show the first frame and tell systemd the service is ready."""
        now = self.clock()
        self.refresh(now, force=True)
        self._update_status()
        self.notifier.ready(self._status)
        interval = self.notifier.watchdog_interval
        if interval is not None:
            self.notifier.watchdog()
            self._next_watchdog = now + interval

    def run(self) -> None:
        """Serve until :meth:`stop`; then turn the LEDs dark (:meth:`finish`)."""
        self.start()
        while not self.stopping:
            self.run_once()
        self.finish()

    def run_once(self, max_wait: float | None = None) -> None:
        """One turn of the loop: wait for the next event or deadline, then handle it."""
        now = self.clock()
        timeout = self._timeout(now)
        if max_wait is not None:
            timeout = max_wait if timeout is None else min(timeout, max_wait)
        for key, mask in self.selector.select(timeout):
            key.data(mask)
        with self.edge_lock:
            now = self.clock()
        while not self._events.empty():  # the loop's thread is the queue's only reader
            self._handle(self._events.get_nowait())
        self.dispatcher.run_buttons(self.panel.tick(now))
        for _, tick in self._timers:
            tick(now)
        if self._error_at is not None and now - self._error_at > ERROR_KEPT:
            self._error_at = None
        self.refresh(now)
        if self._events.empty():
            inputs_done.set()
            if not self._events.empty():  # an input queued meanwhile: its clear may be before
                inputs_done.clear()
        # the watchers are told what the board shows, if it changed since they were last told
        if self.watch.watchers and self._view_key != self._watched_key:
            self._watched_key = self._view_key
            self.watch.publish(lambda: {"state": self.requests.state()})
        if self._next_watchdog is not None and now >= self._next_watchdog:
            self.notifier.watchdog()
            self._next_watchdog = now + (self.notifier.watchdog_interval or 1.0)

    def _timeout(self, now: float) -> float | None:
        times = [self.panel.deadline(), self._next_render, self._next_watchdog]
        times += [deadline() for deadline, _ in self._timers]
        if self._error_at is not None:
            times.append(self._error_at + ERROR_KEPT)
        due = [t for t in times if t is not None]
        if not self._events.empty():
            return 0.0
        return max(0.0, min(due) - now) if due else None

    def _drain_wake(self, mask: int) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.read(self._wake_r, 4096)

    def _handle(self, event: LoopEvent) -> None:
        panel, run = self.panel, self.dispatcher.run_buttons
        if not isinstance(event, Call | Stop):
            for listener in self.input_listeners:
                listener(event)
        if isinstance(event, Edge):
            run(panel.edge(event.button, event.pressed, event.at))
        elif isinstance(event, Turn):
            run(
                panel.turn(event.track, event.steps, self.clock() if event.at is None else event.at)
            )
        elif isinstance(event, Tap):  # a keyboard key
            run(self.tap(event.button, event.hold))
        elif isinstance(event, Call):
            event.function()
        else:
            self.stopping = True

    def finish(self) -> None:
        """A clean stop: the LEDs go dark (the score is in the journal); after a crash or
        a lost link the score stays on the LEDs."""
        self.notifier.stopping()
        self.panel.cancel_pending()
        self._error_at = None
        self.link.goodbye()
        self.link.close()
        self.keeper.close()

    def close(self) -> None:
        """Release the loop's own file descriptors (and the readers' pause: no input waits)."""
        inputs_done.set()
        self.requests.close()
        self.selector.close()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.notifier.close()
