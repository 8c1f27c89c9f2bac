"""What the buttons mean, a pure state machine with an explicit clock: raw edges in, the commands
of :mod:`boardctl.game.commands` out. Every gesture: :data:`GESTURES` and docs/service.md."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from boardctl.config import SHARED_PINS, InputsConfig
from boardctl.cribbage.rules import RULE_SETS
from boardctl.cribbage.variants import VARIANTS
from boardctl.errors import InputError
from boardctl.game.commands import BoardCommand as Command
from boardctl.game.commands import Brightness, Confirm, NewGame, Next, Peg, Redo, Set, Undo
from boardctl.game.setup import MODES, PRESETS
from boardctl.inputs.debounce import Debouncer
from boardctl.view import ButtonId, SettingsShown, ViewExtra

log = logging.getLogger(__name__)

STUCK = 3  # the hold level of a contact held past ``stuck_after``: ignored until released

#: What each track button adds to the pending amount (an encoder push commits it).
ADDS = {"plus1": 1, "plus5": 5, "encoder_push": 0}
TRACK_BUTTONS = tuple(ADDS)  # a track's buttons (its encoder's contacts are not buttons)

#: Every gesture and what it does, as the quick-reference card (``boardctl card``) prints it.
GESTURES: tuple[tuple[str, str], ...] = (
    ("+1 / +5", "add 1 / 5 to the track's pending amount (blinks ahead of the peg)"),
    ("encoder turn", "+1 / -1 pending per click"),
    ("encoder push", "commit the pending amount now"),
    ("no press for a moment", "the pending amount commits by itself"),
    ("track button held", "undo: take back the press, the pending amount or the last entry"),
    ("undo, short", "cancel every pending amount, or undo the last entry"),
    ("undo, held", "redo; when the board asks (white start hole): the entry is the other kind"),
    ("menu, short", "commit what is pending, then the next phase (in the show: a count of 0)"),
    ("menu, held and released", "settings mode: menu next setting, track 1 +1 / track 2 +1 choose"),
    ("menu, held long", "new game: start holes blink red; menu confirms, undo cancels"),
    ("2nd undo in a row", "start holes blink blue; menu confirms, undo cancels"),
    ("track button at game end", "confirm: its start hole blinks green, then steady"),
)

# Settings shown in settings mode, in order, with the values they cycle through.
SETTING_CHOICES: dict[str, tuple[Any, ...]] = {
    "target": (121, 61),
    "variant": tuple(VARIANTS),
    "preset": tuple(name for name in PRESETS if name != "custom"),  # custom needs values
    "brightness": (16, 32, 64, 128, 192, 255),
    "mode": MODES,
    "rules": tuple(RULE_SETS),  # shown by boardctl.board.rulesign; a change is a new game
}


def parse_button_id(name: str) -> tuple[str, int | None]:
    """``"track2.plus5"`` -> ``("plus5", 1)``; ``"menu"`` -> ``("menu", None)``."""
    button = ButtonId.from_name(name)
    known = SHARED_PINS if button.track is None else TRACK_BUTTONS
    if button.role not in known:
        raise InputError(f"unknown button {name!r}")
    return button.role, button.track


@dataclass(slots=True)
class _Button:
    role: str
    track: int | None
    debouncer: Debouncer
    down_at: float | None = None
    level: int = 0  # 0 pressed, 1 long fired, 2 very long fired, STUCK held past stuck_after


@dataclass(slots=True)
class _Settings:
    values: dict[str, Any]
    original: dict[str, Any]
    item: int = 0
    since: float = 0.0

    def shown(self) -> tuple[str, tuple[Any, ...], int]:
        """The setting shown, its choices and its value's index among them (0: not there)."""
        name = list(SETTING_CHOICES)[self.item]
        choices = SETTING_CHOICES[name]
        value = self.values.get(name)
        return name, choices, choices.index(value) if value in choices else 0


@dataclass(slots=True)
class Panel:
    """The button state machine. Feed it edges and ticks; apply what it returns."""

    tracks: int
    timing: InputsConfig = field(default_factory=InputsConfig)
    current_settings: Callable[[], dict[str, Any]] = dict
    #: While a finished game's result waits for confirmation: the tracks that have confirmed
    #: (None: no result waits). The service wires it to the engine's state.
    signoff: Callable[[], tuple[int, ...] | None] = lambda: None
    #: Whether this board starts a new game (asking for its confirm); False on a joined board
    #: (boardctl.remote: the host's game), where a new game goes at once to be refused.
    takes_new_game: Callable[[], bool] = lambda: True
    _buttons: dict[str, _Button] = field(default_factory=dict)
    _pending: list[int] = field(default_factory=list)
    _active_at: list[float] = field(default_factory=list)
    _settings: _Settings | None = None
    _confirm_since: float | None = None
    _new_game: NewGame = field(default_factory=NewGame)  # what the confirm starts
    _undo_guard: bool = False  # an undo from the buttons, and no entry from them since
    _undo_ask_since: float | None = None  # another undo waits for its confirm since then
    _rearm: bool = False  # the entries just returned lifted the guard (a refusal puts it back)
    pending_at: float | None = None  # when a pending amount last changed (None: none pending)

    def __post_init__(self) -> None:
        self.set_tracks(self.tracks)

    def edge(self, name: str, pressed: bool, t: float) -> list[Command]:
        """A raw edge of button ``name`` (a :attr:`ButtonId.name`) at time ``t``."""
        button = self._button(name)
        self._rearm = False
        out: list[Command] = []
        for level, when in button.debouncer.edge(pressed, t):
            out += self._press(button, when) if level else self._release(button, when)
        return self._noted(out)

    def turn(self, track: int, steps: int, t: float) -> list[Command]:
        """An encoder on ``track`` turned ``steps`` detents (+ clockwise)."""
        self._rearm = False
        if not 0 <= track < self.tracks:
            return []
        if self._settings is not None:
            return self._cycle(1 if steps > 0 else -1, t) if steps else []
        if self._confirm_since is not None:
            return []
        self._undo_ask_since = None  # a turn carries on: the asked undo is dropped
        self._pending[track] = max(0, self._pending[track] + steps)
        self._active_at[track] = t
        self._pending_changed(t)
        return []

    def tap(self, name: str, t: float, *, hold: float = 0.0) -> list[Command]:
        """A whole press held for ``hold`` seconds, without debounce (keyboard keys)."""
        button = self._button(name)
        self._rearm = False
        if button.down_at is not None:
            return []
        out = self._press(button, t) + self._holds(button, t + hold, t)
        return self._noted(out + self._release(button, t, duration=hold))

    def tick(self, t: float) -> list[Command]:
        """Run the timers due at ``t`` (debounce, holds, commits, timeouts); every edge
        stamped before ``t`` must have been passed in already."""
        self._rearm = False
        out: list[Command] = []
        for button in self._buttons.values():
            for pressed, when in button.debouncer.poll(t):
                out += self._press(button, when) if pressed else self._release(button, when)
            out += self._holds(button, t, t)
        for track in range(self.tracks):
            due = self._commit_due(track)
            if due is not None and t >= due:
                out += self.commit(track)
        due = self._mode_timeout()
        if due is not None and t >= due:
            out += self._undo_button(Undo(), t)  # a mode lapses as the undo button leaves it
        return self._noted(out)

    def deadline(self) -> float | None:
        """The next time :meth:`tick` has something to do, or None."""
        times = [self._mode_timeout(), *map(self._commit_due, range(self.tracks))]
        for button in self._buttons.values():
            threshold = self._next_threshold(button)
            times += [button.debouncer.deadline(), None if threshold is None else threshold[1]]
        return min((time for time in times if time is not None), default=None)

    def _mode_timeout(self) -> float | None:
        """When the mode (settings, a new-game confirm or an asked undo: one at a time) lapses."""
        if self._settings is not None:
            return self._settings.since + self.timing.settings_timeout
        since = self._undo_ask_since if self._confirm_since is None else self._confirm_since
        return None if since is None else since + self.timing.confirm_timeout

    @property
    def pending(self) -> tuple[int, ...]:
        """The uncommitted amount per track."""
        return tuple(self._pending)

    def overlay(self, extra: ViewExtra | None = None) -> ViewExtra:
        """``extra`` (default: nothing) with the panel's modes for the LEDs: settings, a
        confirm, a result's sign-off, and the buttons stuck."""
        extra = ViewExtra() if extra is None else extra
        stuck = self._stuck()
        if self._settings is not None:
            name, choices, choice = self._settings.shown()
            settings = SettingsShown(
                item=name,
                index=self._settings.item,
                count=len(SETTING_CHOICES),
                value=self._settings.values.get(name),
                choice=choice,
                choices=len(choices),
            )
            return replace(extra, settings=settings, stuck=stuck)
        return replace(
            extra,
            confirm=self._new_game.to_json() if self._confirm_since is not None else None,
            undo_confirm=self._undo_ask_since is not None,
            signoff=self.signoff(),
            stuck=stuck,
        )

    @property
    def mode(self) -> str:
        """``"entry"``, ``"settings"``, ``"confirm"`` (a new game) or ``"undo_confirm"``."""
        if self._settings is not None:
            return "settings"
        if self._confirm_since is not None:
            return "confirm"
        return "undo_confirm" if self._undo_ask_since is not None else "entry"

    @property
    def stuck(self) -> tuple[str, ...]:
        """The buttons held past ``stuck_after`` and ignored until released."""
        return tuple(button.name for button in self._stuck())

    def _stuck(self) -> tuple[ButtonId, ...]:
        return tuple(ButtonId(b.role, b.track) for b in self._buttons.values() if b.level >= STUCK)

    def _pending_changed(self, t: float) -> None:
        self.pending_at = t if any(self._pending) else None

    def set_tracks(self, tracks: int) -> None:
        """The game now has ``tracks`` tracks (after a new game); pending entries are dropped."""
        self.tracks = tracks
        self.cancel_pending()
        self._active_at = [0.0] * tracks
        self._undo_guard = False
        self._undo_ask_since = None

    def cancel_pending(self) -> bool:
        """Drop every pending amount; True if there was one."""
        had = any(self._pending)
        self._pending = [0] * self.tracks
        self.pending_at = None
        return had

    def commit(self, track: int) -> list[Command]:
        """Commit ``track``'s pending amount now (one peg command, or nothing)."""
        points = self._pending[track]
        self._pending[track] = 0
        if not any(self._pending):
            self.pending_at = None
        return [Peg(track, points)] if points else []

    def _button(self, name: str) -> _Button:
        if name not in self._buttons:
            self._buttons[name] = _Button(*parse_button_id(name), Debouncer(self.timing.debounce))
        return self._buttons[name]

    def _next_threshold(self, button: _Button) -> tuple[int, float] | None:
        """The next hold level this pressed button reaches, and when."""
        if button.down_at is None or button.level >= STUCK:
            return None
        if button.level < 1:
            return 1, button.down_at + self.timing.long_press
        if button.level < 2 and button.role == "menu":
            return 2, button.down_at + self.timing.very_long_press
        return STUCK, button.down_at + self.timing.stuck_after

    def _holds(self, button: _Button, until: float, t: float) -> list[Command]:
        """Act at ``t`` on every hold level ``button`` reaches by ``until``."""
        out: list[Command] = []
        threshold = self._next_threshold(button)
        while threshold is not None and until >= threshold[1]:
            out += self._held(button, threshold[0], t)
            threshold = self._next_threshold(button)
        return out

    def _commit_due(self, track: int) -> float | None:
        if self._pending[track] == 0:
            return None
        for button in self._buttons.values():
            if button.track == track and button.down_at is not None and button.level == 0:
                return None  # a button of this track is being pressed: wait for it
        return self._active_at[track] + self.timing.commit_idle

    def _press(self, button: _Button, t: float) -> list[Command]:
        button.down_at = t
        button.level = 0
        track = button.track
        if track is None or track >= self.tracks:
            return []
        if self._settings is not None:
            if button.role == "plus1" and track in (0, 1):
                return self._cycle(1 if track == 0 else -1, t)
            return []
        if self._confirm_since is not None:
            return []
        self._undo_ask_since = None  # a track press carries on: the asked undo is dropped
        if self.signoff() is not None:
            return [Confirm(track)]  # the result waits: this side signs it off
        self._pending[track] += ADDS[button.role]
        self._active_at[track] = t
        self._pending_changed(t)
        return self.commit(track) if button.role == "encoder_push" else []

    def _held(self, button: _Button, level: int, t: float) -> list[Command]:
        """``button`` reaches hold ``level`` (always above its level so far)."""
        button.level = level
        if level == STUCK:
            log.warning(
                "button %s held for %g s: ignored until it is released (stuck or shorted?)",
                ButtonId(button.role, button.track).name,
                self.timing.stuck_after,
            )
            return []
        track = button.track
        if track is not None:
            if level != 1 or track >= self.tracks or self.mode != "entry":
                return []
            left = self._pending[track] - ADDS[button.role]  # pending before this press
            self._pending[track] = 0
            self._pending_changed(t)
            return [] if left > 0 else self._undo(t)
        if button.role == "undo" and level == 1:
            return self._undo_button(Redo(), t)
        if button.role == "menu" and level == 2 and self._settings is None:
            if self._undo_ask_since is not None:
                return []  # the release confirms the asked undo
            out = self._ask_new_game(NewGame(), t)
            if not out:
                self.cancel_pending()
            return out
        return []

    def _release(
        self, button: _Button, t: float, *, duration: float | None = None
    ) -> list[Command]:
        if button.down_at is None:
            return []
        held = t - button.down_at if duration is None else duration
        level = button.level
        button.down_at = None
        button.level = 0
        if button.track is not None:
            if button.track < self.tracks:
                self._active_at[button.track] = t
            return []
        if level >= STUCK:
            return []  # a stuck contact let go: nothing to do but take presses again
        if button.role == "undo":
            return [] if level > 0 else self._undo_button(Undo(), t)
        # menu
        if self._undo_ask_since is not None:
            self._undo_ask_since = None
            return [Undo()]  # the asked undo, confirmed (the guard stays: the next one asks)
        if level >= 2:
            return []  # the very long press already asked for a confirm
        if self._confirm_since is not None:
            self._confirm_since = None
            return [self._new_game]
        long = held >= self.timing.long_press
        if self._settings is not None:
            if long:
                return self._leave_settings(t)
            self._settings.item = (self._settings.item + 1) % len(SETTING_CHOICES)
            self._settings.since = t
            return []
        if long:
            self.cancel_pending()
            current = dict(self.current_settings())
            self._settings = _Settings(values=dict(current), original=current, since=t)
            return []
        return [*(peg for track in range(self.tracks) for peg in self.commit(track)), Next()]

    def _undo_button(self, command: Undo | Redo, t: float) -> list[Command]:
        """The undo button, short (undo) or held (redo): leave a mode, else drop the pending
        amounts, else ``command``."""
        if self._settings is not None:
            return self._leave_settings(t, keep=False)
        if self._confirm_since is not None or self._undo_ask_since is not None:
            self._confirm_since = self._undo_ask_since = None
            return []
        if self.cancel_pending():
            return []
        return self._undo(t) if isinstance(command, Undo) else [command]

    def _undo(self, t: float) -> list[Command]:
        """An undo from the buttons: the first at once, another before a new entry only asks."""
        if not self._undo_guard:
            self._undo_guard = True
            return [Undo()]
        self._undo_ask_since = t
        return []

    def _noted(self, out: list[Command]) -> list[Command]:
        """``out``, noting that an entry (not undo, redo or brightness) lifts the undo guard."""
        if any(not isinstance(command, Undo | Redo | Brightness) for command in out):
            self._rearm = self._undo_guard
            self._undo_guard = False
        return out

    def refused(self, command: Command, error: object = None) -> None:
        """A command was refused or not saved: the undo guard it lifted comes back (so the next undo
        may ask once more than needed, never once less)."""
        if self._rearm and not isinstance(command, Undo | Redo | Brightness):
            self._undo_guard = True
            self._rearm = False

    def _cycle(self, step: int, t: float) -> list[Command]:
        settings = self._settings
        assert settings is not None
        name, choices, index = settings.shown()
        settings.values[name] = choices[(index + step) % len(choices)]
        settings.since = t
        # the brightness is seen at once, so the owner can judge it
        return [Brightness(settings.values[name])] if name == "brightness" else []

    def _leave_settings(self, t: float, *, keep: bool = True) -> list[Command]:
        """Leave settings mode with the changes, or without them (a previewed brightness goes
        back); the brightness, seen at once, is no change to make."""
        settings = self._settings
        assert settings is not None
        self._settings = None
        if not keep:
            before = settings.original.get("brightness")
            back = settings.values.get("brightness") != before
            return [Brightness(before)] if before is not None and back else []
        changed = {
            name: value
            for name, value in settings.values.items()
            if name in SETTING_CHOICES and name != "brightness"
            if value != settings.original.get(name)
        }
        if "variant" in changed or "target" in changed or "rules" in changed:
            # a new game: the variant, target and rule set only if changed (a new variant
            # brings its own target, a new rule set its own preset unless one was chosen),
            # the preset and mode as now set
            values = settings.values
            command = NewGame(
                variant=changed.get("variant"),
                target=changed.get("target"),
                preset=changed.get("preset") if "rules" in changed else values.get("preset"),
                mode=values.get("mode"),
                rules=changed.get("rules"),
            )
            return self._ask_new_game(command, t)
        return [Set(name, value) for name, value in changed.items()]

    def _ask_new_game(self, command: NewGame, t: float) -> list[Command]:
        """Ask to confirm ``command`` (the start holes blink red); on a board that takes no new
        game, ``command`` at once, refused there with its sign and words (never a confirm
        asked for what would be refused)."""
        if not self.takes_new_game():
            return [command]
        self._new_game = command
        self._confirm_since = t
        return []
