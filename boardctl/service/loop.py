"""The service's one loop: inputs, control requests and timers in, frames out.

Everything that changes the game runs in the thread that calls
:meth:`ServiceLoop.run`:

- gpiozero callbacks and signal handlers only :meth:`~ServiceLoop.post` an
  event (a queue plus one byte on a wake-up pipe);
- the control socket and the keyboard are served from the same selector;
- the selector waits exactly until the next deadline: a pending entry's
  commit, a gesture threshold, the renderer's next animation step, the
  watchdog ping. With nothing to do it sleeps (no polling).

After every change the view is rebuilt; a frame is rendered only when the
view changed or an animation step is due, and written to the link only when
it differs from the last one.

A command is shown before it is journalled, and journalled before anything
else is handled: :meth:`ServiceLoop.execute` checks it (the keeper's
``prepare``), sends the frame of the new state, then writes the event
durably (``commit``, an fsync); only then does the loop reply to a control
client, update systemd's status or take the next input. If the write fails
the keeper keeps its last durable state and that is rendered again, with the
error flashed: the board never keeps a score the journal does not have.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import queue
import selectors
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from boardctl.errors import BoardError, ControlError, EntryError, JournalError
from boardctl.game.integrity import damage_prefix
from boardctl.inputs.panel import Command, Panel
from boardctl.service.notify import Notifier
from boardctl.view import BoardView

log = logging.getLogger(__name__)

Frame = bytes

ERROR_KEPT = 5.0  # seconds a refusal stays in the view (the renderer flashes it for less)


class PendingEntry(Protocol):
    """A checked command not yet journalled (``boardctl.game.keeper.Pending``)."""

    def view(self) -> BoardView: ...
    def commit(self) -> dict[str, Any]: ...
    def abort(self) -> None: ...


class Keeper(Protocol):
    """The scorekeeping engine (``boardctl.game.keeper.Scorekeeper``)."""

    def apply(self, command: dict[str, Any]) -> dict[str, Any]: ...
    def prepare(self, command: dict[str, Any]) -> PendingEntry: ...
    def view(self) -> BoardView: ...
    def status(self) -> dict[str, Any]: ...
    def history(self) -> list[dict[str, Any]]: ...
    def close(self) -> None: ...


class Renderer(Protocol):
    """The board renderer (``boardctl.board.Renderer``)."""

    def render(self, view: BoardView, now: float) -> Frame: ...
    def next_change(self, view: BoardView, now: float) -> float | None: ...


class Link(Protocol):
    """The LED link (``boardctl.link.open_link(...)``)."""

    def show(self, frame: Frame) -> None: ...
    def set_brightness(self, level: float) -> None: ...
    def close(self) -> None: ...


Display = Callable[[BoardView, Frame], None]


def status_line(status: dict[str, Any]) -> str:
    """A one-line score for ``systemctl status``: ``Ann 87 · Bob 92 · play · target 121``."""
    tracks = status.get("tracks") or []
    parts = [f"{t.get('name', '?')} {t.get('front', 0)}" for t in tracks]
    phase = status.get("phase", "?")
    winner = status.get("winner")
    if winner is not None and 0 <= winner < len(tracks):
        phase = f"{tracks[winner].get('name', '?')} won"
    line = " · ".join([*parts, str(phase), f"target {status.get('target', '?')}"])
    return damage_prefix(status) + line


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
        display: Display | None = None,
        on_brightness: Callable[[int], None] | None = None,
        new_game_defaults: dict[str, Any] | None = None,
        validate: Callable[[Command], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.keeper = keeper
        self.renderer = renderer
        self.link = link
        self.notifier = notifier or Notifier({})
        self.display = display
        self.clock = clock
        self._on_brightness = on_brightness
        self.new_game_defaults = dict(new_game_defaults or {})
        # raises EntryError for a command the board cannot show (e.g. too many tracks)
        self.validate = validate
        self.selector = selectors.DefaultSelector()
        self._events: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.selector.register(self._wake_r, selectors.EVENT_READ, self._drain_wake)
        base = keeper.view()
        self.panel = panel or Panel(tracks=len(base.tracks))
        self.panel.current_settings = self.current_settings
        self.brightness: int | None = None
        self._timers: list[Callable[[], float | None]] = []
        self._tickers: list[Callable[[float], None]] = []
        self._error_at: float | None = None
        self._stopping = False
        self._base_view = base
        self._view: BoardView | None = None
        self._view_key: Any = None
        self._frame: Frame | None = None
        self._next_render: float | None = None
        self._next_watchdog: float | None = None
        self._status = ""
        self.frames_sent = 0
        self.renders = 0
        self.wakeups = 0
        self.on_frame: Callable[[Frame], None] | None = None  # for benchmarks and tests
        # Input callbacks stamp and queue an edge under this lock; the loop reads the
        # clock under it before taking the queue, so it never settles a debounce at a
        # time before an edge that is stamped but not yet handled.
        self.edge_lock = threading.Lock()

    # --- thread-safe entry points ------------------------------------------------
    def post(self, event: tuple[Any, ...]) -> None:
        """Queue an event from any thread: ("edge", name, pressed, t), ("turn", track,
        steps, t), ("tap", name, hold level 0/1/2), ("call", function) (run in the
        loop's thread) or ("stop",)."""
        self._events.put(event)
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b"\0")

    def stop(self) -> None:
        """Ask the loop to finish (safe from a signal handler)."""
        self.post(("stop",))

    # --- extension points -----------------------------------------------------
    def add_timer(
        self, deadline: Callable[[], float | None], tick: Callable[[float], None]
    ) -> None:
        """Another source of deadlines (e.g. the control server's idle clients)."""
        self._timers.append(deadline)
        self._tickers.append(tick)

    # --- commands -------------------------------------------------------------
    def execute(self, command: Command) -> dict[str, Any]:
        """Apply one command as the buttons and the control socket do; raise on refusal."""
        op = command.get("op")
        if op == "set" and command.get("key") == "brightness":
            return self._set_brightness(command.get("value"))
        if op == "new_game":
            command = {**self.new_game_defaults, **command}
        try:
            if self.validate is not None:
                self.validate(command)
            pending = self.keeper.prepare(command)
        except BoardError:  # refused: flash the error
            self._error_at = self.clock()
            raise
        self._show_base(pending.view())
        self.refresh(self.clock())  # the frame first: the press shows at once ...
        try:
            result = pending.commit()  # ... then the durable write, before anything else
        except BaseException as exc:
            pending.abort()
            self._error_at = self.clock()
            self._refresh_base()  # the last durable state, shown again
            self.refresh(self.clock())
            if isinstance(exc, BoardError):
                log.error("entry not saved, the last saved score is shown again: %s", exc)
            raise
        self._refresh_base()
        self._update_status()
        return result

    def handle_request(self, request: dict[str, Any]) -> Any:
        """A control-socket request (already checked by the protocol)."""
        op = request["op"]
        if op == "ping":
            return {"pong": True}
        if op == "status":
            status = dict(self.keeper.status())
            status["pending"] = list(self.panel.pending)
            if self.brightness is not None:
                status["brightness"] = self.brightness
            status["link"] = {
                "kind": str(getattr(self.link, "kind", "unknown")),
                "connected": bool(getattr(self.link, "connected", True)),
            }
            return status
        if op == "frame":
            frame = self._frame or b""
            return {"leds": len(frame) // 3, "rgb": frame.hex()}
        if op == "press":
            return self._press(request["button"], request.get("hold", 0))
        if op == "history":
            items = self.keeper.history()
            limit = request.get("limit")
            return items[-limit:] if isinstance(limit, int) and limit > 0 else items
        try:
            return self.execute(request)
        except BoardError:
            raise
        except (TypeError, ValueError, KeyError) as exc:
            raise ControlError(f"{op}: {exc}") from None

    def _press(self, name: str, hold: int) -> dict[str, Any]:
        from boardctl.inputs.panel import parse_button_id

        try:
            _role, track = parse_button_id(name)
        except ValueError:
            raise ControlError(
                f"unknown button {name!r} (undo, menu, trackN.plus1, trackN.plus5, "
                "trackN.encoder_push)"
            ) from None
        if track is not None and track >= self.panel.tracks:
            raise ControlError(
                f"there is no button {name!r}: this game has {self.panel.tracks} tracks "
                f"(track1 to track{self.panel.tracks})"
            )
        if hold not in (0, 1, 2):
            raise ControlError(f"hold must be 0 (short), 1 (long) or 2 (very long), not {hold}")
        refused: list[str] = []
        for command in self._tap(name, hold):
            try:
                self.execute(self.button_command(command))
            except EntryError as exc:
                refused.append(str(exc))
        if refused:
            raise EntryError("; ".join(refused))
        return {"pending": list(self.panel.pending), "mode": self.panel.mode}

    def _tap(self, name: str, hold: int) -> list[Command]:
        """A whole press of ``name`` now, held short (0), long (1) or very long (2)."""
        timing = self.panel.timing
        seconds = (0.0, timing.long_press, timing.very_long_press)[hold]
        return self.panel.tap(name, self.clock(), hold=seconds)

    def current_settings(self) -> dict[str, Any]:
        """The values settings mode starts from."""
        status = self.keeper.status()
        values = {k: status.get(k) for k in ("target", "variant", "preset", "mode")}
        values["brightness"] = self.brightness
        return values

    def _set_brightness(self, value: Any) -> dict[str, Any]:
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
            raise EntryError(f"brightness must be a whole number 0-255, not {value!r}")
        self.brightness = value
        if self._on_brightness is not None:
            self._on_brightness(self.brightness)
        self._view_key = None  # force a render
        return {"brightness": self.brightness}

    def button_command(self, command: Command) -> Command:
        """What a button command means in the current phase of a guided game.

        Buttons cannot name every engine command, so the phase decides: during
        the cut, a track's entry means "this track deals" and ``next`` draws
        the dealer at random; during the show, ``next`` with nothing pending
        enters a count of 0 for the track whose count is due.
        """
        op = command.get("op")
        if op not in ("peg", "next"):
            return command
        status = self.keeper.status()
        phase = status.get("phase")
        if phase == "cut":
            if op == "next":
                return {"op": "cut"}
            from boardctl.cribbage.variants import get_variant

            teams = get_variant(str(status.get("variant"))).teams
            track = int(command["track"])
            return {"op": "cut", "dealer": teams[track][0] if track < len(teams) else track}
        if phase == "show" and op == "next" and status.get("to_count") is not None:
            return {"op": "peg", "track": status["to_count"], "points": 0}
        return command

    def _run_commands(self, commands: list[Command]) -> None:
        for command in commands:
            try:
                self.execute(self.button_command(command))
            except EntryError as exc:
                log.warning("entry refused: %s", exc)
            except JournalError:
                pass  # execute logged it and shows the last saved score
            except BoardError as exc:
                log.error("command %s failed: %s", command, exc)

    def _refresh_base(self) -> None:
        self._show_base(self.keeper.view())

    def _show_base(self, view: BoardView) -> None:
        self._base_view = view
        if len(view.tracks) != self.panel.tracks:
            self.panel.set_tracks(len(view.tracks))

    # --- the view and the frame ---------------------------------------------------
    def view(self) -> BoardView:
        """The view the board shows now: the game plus pending entries and overlays."""
        base = self._base_view
        pending = self.panel.pending
        tracks = tuple(
            dataclasses.replace(track, pending=pending[i] if i < len(pending) else 0)
            for i, track in enumerate(base.tracks)
        )
        extra = {**base.extra, **self.panel.overlay()}
        if self.panel.pending_at is not None:
            # when the pending amount last changed: a renderer may start its blink "on" there
            extra["pending_at"] = self.panel.pending_at
        error_at = self._error_at if self._error_at is not None else base.error_at
        return dataclasses.replace(base, tracks=tracks, extra=extra, error_at=error_at)

    def refresh(self, now: float, *, force: bool = False) -> bool:
        """Render and send a frame if the view changed or an animation is due."""
        view = self.view()
        key = (view, tuple(sorted((k, repr(v)) for k, v in view.extra.items())), self.brightness)
        due = self._next_render is not None and now >= self._next_render
        if not force and key == self._view_key and not due:
            return False
        self._view_key = key
        self._view = view
        frame = self.renderer.render(view, now)
        self.renders += 1
        self._next_render = self.renderer.next_change(view, now)
        if frame != self._frame or force:
            self._frame = frame
            self.link.show(frame)
            self.frames_sent += 1
            if self.on_frame is not None:
                self.on_frame(frame)
            if self.display is not None:
                try:
                    self.display(view, frame)
                except OSError as exc:  # the terminal went away: carry on headless
                    log.warning("terminal display stopped: %s", exc)
                    self.display = None
        self._update_status()
        return True

    def _update_status(self) -> None:
        """Tell systemd the (durable) score when its line changed."""
        status = status_line(self.keeper.status())
        if status != self._status:
            self._status = status
            self.notifier.status(status)

    @property
    def frame(self) -> Frame | None:
        """The last frame sent to the link."""
        return self._frame

    # --- the loop ---------------------------------------------------------------
    def start(self) -> None:
        """Show the first frame and tell systemd the service is ready."""
        now = self.clock()
        self.refresh(now, force=True)
        self.notifier.ready(self._status)
        interval = self.notifier.watchdog_interval
        if interval is not None:
            self.notifier.watchdog()
            self._next_watchdog = now + interval

    def run(self) -> None:
        """Serve until :meth:`stop`; then leave the score on the LEDs."""
        self.start()
        while not self._stopping:
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
        self.wakeups += 1
        with self.edge_lock:
            now = self.clock()
        self._handle_events()
        self._run_commands(self.panel.tick(now))
        for tick in self._tickers:
            tick(now)
        if self._error_at is not None and now - self._error_at > ERROR_KEPT:
            self._error_at = None
        self.refresh(now)
        if self._next_watchdog is not None and now >= self._next_watchdog:
            self.notifier.watchdog()
            interval = self.notifier.watchdog_interval or 1.0
            self._next_watchdog = now + interval

    def _timeout(self, now: float) -> float | None:
        times = [self.panel.deadline(), self._next_render, self._next_watchdog]
        times += [deadline() for deadline in self._timers]
        if self._error_at is not None:
            times.append(self._error_at + ERROR_KEPT)
        due = [t for t in times if t is not None]
        if not self._events.empty():
            return 0.0
        return max(0.0, min(due) - now) if due else None

    def _drain_wake(self, mask: int) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.read(self._wake_r, 4096)

    def _handle_events(self) -> None:
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                return
            kind = event[0]
            if kind == "stop":
                self._stopping = True
            elif kind == "edge":
                self._run_commands(self.panel.edge(event[1], event[2], event[3]))
            elif kind == "turn":
                when = event[3] if len(event) > 3 else self.clock()
                self._run_commands(self.panel.turn(event[1], event[2], when))
            elif kind == "tap":  # a keyboard key: ("tap", button, hold level 0/1/2)
                self._run_commands(self._tap(event[1], event[2]))
            elif kind == "call":
                event[1]()

    @property
    def stopping(self) -> bool:
        return self._stopping

    def finish(self) -> None:
        """Leave the committed score on the LEDs (pending entries are dropped)."""
        self.notifier.stopping()
        self.panel.cancel_pending()
        self._error_at = None
        self.refresh(self.clock())
        self.link.close()
        self.keeper.close()

    def close(self) -> None:
        """Release the loop's own file descriptors."""
        self.selector.close()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.notifier.close()
