"""Build the running board from the configuration (:func:`build`, the parts wired together) and
run it until SIGTERM/SIGINT (:func:`serve`)."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from boardctl.board import Frame, PowerBudget, Renderer, load_layout
from boardctl.board.overlay import OverlayRenderer
from boardctl.config import MAX_TRACKS, Config, link_options
from boardctl.cribbage.variants import get_variant
from boardctl.errors import BoardError, ConfigError, EntryError, LayoutError
from boardctl.game.commands import Command, NewGame, Set
from boardctl.game.limits import warm_up
from boardctl.game.setup import get_preset, setup_with
from boardctl.inputs.panel import Panel
from boardctl.link import Link, open_link
from boardctl.refusals import Refusal
from boardctl.service.loop import Call, ServiceLoop
from boardctl.service.notify import Notifier
from boardctl.view import BoardView

if TYPE_CHECKING:
    from boardctl.board.layout import Layout
    from boardctl.game.keeper import Scorekeeper
    from boardctl.service.fault import JournalKeeper

log = logging.getLogger("boardctl")


def game_setup(config: Config) -> NewGame:
    """The first game of a new journal, from ``[game]``."""
    game = config.game
    rules = game.rules if game.rules != "acc" else None
    # a rule set brings its game points unless [game] preset names others
    preset = None if rules is not None and game.preset == "acc" else game.preset
    if game.points:  # [game] points are the custom preset's values
        preset = "custom"
    return NewGame(
        variant=game.variant,
        preset=preset,
        points=game.points or None,
        mode=game.mode,
        match=game.match,
        target=game.target or None,
        rules=rules,
        confirm_result=True if game.confirm_result else None,
    )


def make_renderer(layout: Layout, config: Config, brightness: int) -> Renderer:
    """The board renderer at ``brightness`` (0-255) within the power budget."""
    power = PowerBudget(limit_ma=float(config.board.power_budget_ma))
    return Renderer(layout, brightness=brightness, power=power)


def open_led_link(config: Config) -> Link:
    """The LED link of ``[link]``; it reconnects by itself, so a missing Pico is fine."""
    return open_link(config.link.kind, **link_options(config))


def layout_check(layout: Layout, keeper: Scorekeeper | JournalKeeper) -> Callable[[Command], None]:
    """Refuse a new game or target the board's layout cannot show (before it is journalled)."""

    def check(command: Command) -> None:
        if isinstance(command, NewGame):
            try:
                setup = setup_with(command, base=keeper.state.setup)
            except EntryError:
                return  # the engine refuses it with its own message
            tracks, target, what = setup.tracks, setup.target, f"a {setup.variant_name} game"
        elif isinstance(command, Set) and command.key == "target" and type(command.value) is int:
            tracks, target, what = len(keeper.state.tracks), command.value, "this game"
        else:
            return
        name = layout.name
        if tracks > len(layout.tracks):
            raise EntryError(
                f"the board ({name}) has {len(layout.tracks)} tracks; {what} needs {tracks}: "
                "set board.layout in the config to a layout with enough tracks (e.g. three-121) "
                "and restart the service",
                Refusal.NO_SUCH_TRACK,
            )
        if target > layout.hole_count:
            raise EntryError(
                f"the board ({name}) has {layout.hole_count} holes per track; "
                f"a game to {target} does not fit"
            )

    return check


def check_config_fits(config: Config, layout: Layout) -> None:
    """``[game]`` preset and variant must exist, and the first game fit the configured layout."""
    for key, check in (("variant", get_variant), ("preset", get_preset)):
        try:
            check(getattr(config.game, key))
        except BoardError as exc:  # say so naming the file and the key
            raise ConfigError(f"{config.source}: game.{key}: {exc}") from None
    variant = get_variant(config.game.variant)
    target = config.game.target or variant.target
    if variant.tracks > len(layout.tracks) or target > layout.hole_count:
        raise ConfigError(
            f"{config.source}: game.variant {config.game.variant!r} to {target} needs "
            f"{variant.tracks} tracks of {target} holes, but board.layout "
            f"{config.board.layout!r} has {len(layout.tracks)} of {layout.hole_count}"
        )


def load_board_layout(config: Config) -> Any:
    """``board.layout`` loaded; an error names the configuration file and the key."""
    try:
        return load_layout(config.board.layout)  # a built-in name or a file
    except LayoutError as exc:
        raise ConfigError(f"{config.source}: board.layout {config.board.layout!r}: {exc}") from None


class _Notes(logging.Handler):
    """Keeps the last three log lines, shown under the virtual board instead of over it."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines = [*self.lines, record.getMessage()][-3:]


#: The log lines of a refused entry (boardctl.service.dispatch), shown under the virtual
#: board until the game next changes.
REFUSAL_LINES = ("entry refused: ", "entry not saved")


def terminal_display(
    layout: Layout, stream: TextIO | None = None
) -> tuple[Callable[[BoardView, Frame], None], Callable[[], None]]:
    """Draw each new frame (and each change of what the board says), sized to the terminal;
    and a function that undoes the logging change (log lines are shown under the board)."""
    from boardctl.board.screen import compose, mode_note
    from boardctl.board.terminal import resolve_color_mode
    from boardctl.inputs.keys import HELP

    out = stream or sys.stdout
    color = resolve_color_mode("auto", out)
    notes = _Notes()
    root = logging.getLogger()
    quieted = [h for h in root.handlers if isinstance(h, logging.StreamHandler)]
    for handler in quieted:
        root.removeHandler(handler)
    root.addHandler(notes)

    last = [""]
    game: list[tuple[object, ...] | None] = [None]  # the game as last drawn

    def display(view: BoardView, frame: Frame) -> None:
        # what a taken entry or press changes in the view: the pegs, the phase, the deal
        pegs = tuple((t.front, t.back, t.game_points) for t in view.tracks)
        key = (pegs, view.phase, view.extra.deal, view.extra.game_number)
        if key != game[0]:
            if game[0] is not None:  # the game moved on: a refusal's log line is stale
                notes.lines = [line for line in notes.lines if not line.startswith(REFUSAL_LINES)]
            game[0] = key
        # Nothing may wrap or scroll the board away: the board is sized to the terminal
        # (boardctl.board.screen), long log lines (a missing serial device) are clipped,
        # and only as many are shown as the terminal has rows left.
        size = shutil.get_terminal_size()
        screen = compose(
            view,
            frame,
            layout,
            columns=size.columns,
            lines=size.lines,
            note=mode_note(view),
            help_lines=HELP.split("\n"),
            logs=notes.lines,
            color=color,
        )
        if screen == last[0]:
            return  # the same screen: nothing to redraw
        last[0] = screen
        out.write(f"\x1b[H\x1b[J{screen}")
        out.flush()

    def restore() -> None:
        root.removeHandler(notes)
        for handler in quieted:
            root.addHandler(handler)

    return display, restore


@dataclass
class Board:
    """Everything :func:`build` made; :meth:`close` releases it in order."""

    loop: ServiceLoop
    config: Config
    journal: Path
    socket: Path
    layout: Layout
    mock_pins: bool
    sound: Any = None  # the announcer of [sound] (boardctl.sound), None when nothing is wired
    remote: Any = None  # the link to a board in another home (boardctl.remote), when linked
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        for closer in reversed(self._closers):
            with contextlib.suppress(Exception):
                closer()
        self._closers.clear()


def build(
    config: Config,
    *,
    journal: Path,
    socket_path: Path,
    display: str = "auto",
    notifier: Notifier | None = None,
    link: Link | None = None,
    factory: Any = None,
    keyboard: bool | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Board:
    """Open every part; on failure, close what was opened and re-raise. ``clock`` times
    the buttons, the loop and the control clients (tests pass one they advance themselves)."""
    from boardctl.inputs.gpio import Inputs, pin_factory
    from boardctl.remote import service as remote
    from boardctl.service.control import ControlServer
    from boardctl.service.fault import JournalKeeper
    from boardctl.service.once import exactly_once

    closers: list[Callable[[], None]] = []
    try:
        layout = load_board_layout(config)
        check_config_fits(config, layout)
        # The journal's scorekeeper, or a stand-in showing the fault until it opens.
        own = JournalKeeper(journal, game_setup(config), clock=clock)
        closers.append(own.close)
        keeper = remote.joined(config, journal, own, clock)  # joined: the host's game
        renderer = make_renderer(layout, config, config.board.brightness)
        if link is None:
            link = open_led_link(config)
            closers.append(link.close)
        if factory is None:
            factory, mock = pin_factory()
        else:
            from gpiozero.pins.mock import MockFactory

            mock = isinstance(factory, MockFactory)
        if display == "auto":
            display = "terminal" if mock and sys.stdout.isatty() else "none"
        show = None
        if display == "terminal":
            show, restore_logging = terminal_display(layout)
            closers.append(restore_logging)

        loop = ServiceLoop(
            keeper,
            OverlayRenderer(renderer, layout),
            link,
            panel=Panel(tracks=len(keeper.view().tracks), timing=config.inputs),
            notifier=notifier or Notifier(),
            display=show,
            on_brightness=renderer.set_brightness,
            validate=layout_check(layout, keeper),
            link_kind=config.link.kind,
            clock=clock,
        )
        loop.settings.brightness = config.board.brightness
        own.on_reopen = loop.show_durable  # the journal opened late
        # After READY: the journal's structural check, an imported journal's game starts.
        loop.post(Call(lambda: own.after_start(lambda function: loop.post(Call(function)))))
        loop.add_timer(keeper.deadline, keeper.tick)
        closers.append(loop.close)
        inputs = Inputs(
            config.pins, MAX_TRACKS, loop.post, factory=factory, clock=clock, lock=loop.edge_lock
        )
        closers.append(inputs.close)
        sound = _sound(config, loop, factory, closers)
        # request ids: no repeats (checked by the keeper of the moment: a board joins a game)
        handler = exactly_once(loop.requests.handle, lambda: loop.keeper)
        control = ControlServer(socket_path, handler, loop.selector, clock=clock, watch=loop.watch)
        loop.add_timer(control.deadline, control.tick)
        closers.append(control.close)
        linked = remote.Remote(config, journal, loop, handler)  # linked or not
        closers.append(linked.close)
        if keyboard is None:
            keyboard = display == "terminal" and sys.stdin.isatty()
        if keyboard:
            from boardctl.inputs.keys import Keyboard

            closers.append(Keyboard(loop.selector, loop.post).close)
            if mock:
                log.warning("mock pins: the keyboard stands in for the buttons")
    except BaseException:
        for closer in reversed(closers):
            with contextlib.suppress(Exception):
                closer()
        raise
    return Board(loop, config, journal, socket_path, layout, mock, sound, linked, closers)


def _sound(
    config: Config, loop: ServiceLoop, factory: Any, closers: list[Callable[[], None]]
) -> Any:
    """The announcer of ``[sound]`` listening to the loop's commands, or None (silent)."""
    from boardctl.sound.build import build_announcer, wired

    if not wired(config.sound):
        return None  # nothing wired: no sound object, no thread
    from boardctl.sound.announcer import attach
    from boardctl.sound.gesture import score_gesture

    announcer = build_announcer(
        config.sound, status=lambda: loop.keeper.status(), pin_factory=factory, link=loop.link
    )
    if announcer is not None:
        attach(announcer, loop.dispatcher)
        loop.settings.on_sound = announcer.apply_setting  # set volume / set mute
        loop.input_listeners.append(score_gesture(loop.panel, announcer.say_score))
        closers.append(announcer.close)
    return announcer


def resized(loop: ServiceLoop) -> None:
    """The terminal changed size: draw the virtual board again (from a signal handler)."""
    loop.post(Call(loop.redraw))


def serve(board: Board) -> int:
    """Run until SIGTERM or SIGINT; leave the score on the LEDs; exit status 0."""
    loop = board.loop
    stops = (signal.SIGTERM, signal.SIGINT)
    previous = {sig: signal.signal(sig, lambda *_: loop.stop()) for sig in stops}
    if loop.display is not None:  # a resized terminal gets the board that fits it at once
        previous[signal.SIGWINCH] = signal.signal(signal.SIGWINCH, lambda *_: resized(loop))
    try:
        pins = "mock" if board.mock_pins else "GPIO"
        log.info(
            "serving: journal %s, control socket %s, %s pins", board.journal, board.socket, pins
        )
        # Derive the rules limits (possible counts, largest pegging score) in
        # the background, so the first entry does not wait for them.
        threading.Thread(target=warm_up, name="warm-limits", daemon=True).start()
        loop.run()
    finally:
        board.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def setup_logging() -> None:
    """Plain lines on stderr (the systemd journal adds time and unit)."""
    level = os.environ.get("BOARDCTL_LOG", "INFO").upper()
    logging.basicConfig(
        level=getattr(logging, level, logging.INFO),
        format="boardctl: %(message)s",
        stream=sys.stderr,
    )
