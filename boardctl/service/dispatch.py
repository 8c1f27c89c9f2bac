"""Running a command: checked, shown at once, journalled, then answered (docs/service.md, 'Frame
first, then the fsync'). The listeners hear of a command only once the frame showing it was
sent: a cue never reaches the LED controller before the frame it goes with (docs/sound.md)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from boardctl.errors import BoardError, EntryError, JournalError, refusal_of
from boardctl.game.commands import BoardCommand, Brightness, Command
from boardctl.view import BoardView

if TYPE_CHECKING:
    from boardctl.service.loop import ServiceLoop

log = logging.getLogger(__name__)

Result = dict[str, Any]  # the keeper's result (JSON): ok, seq, event, status


class PendingEntry(Protocol):
    """A checked command not yet journalled (``boardctl.game.keeper.Pending``)."""

    def view(self) -> BoardView: ...
    def commit(self) -> Result: ...
    def abort(self) -> None: ...


class Keeper(Protocol):
    """The scorekeeping engine (``boardctl.game.keeper.Scorekeeper``)."""

    def prepare(self, command: Command) -> PendingEntry: ...
    def view(self) -> BoardView: ...
    def status(self) -> dict[str, Any]: ...
    def button_command(self, command: BoardCommand) -> BoardCommand: ...
    def waiting_signoff(self) -> tuple[int, ...] | None: ...
    def history(
        self, *, all_games: bool = False, limit: int | None = None
    ) -> list[dict[str, Any]]: ...
    def close(self) -> None: ...


Validate = Callable[[Command], None]  # raises EntryError for what the board cannot show


class Dispatcher:
    """Runs the commands of the buttons and of the control socket."""

    def __init__(self, screen: ServiceLoop) -> None:
        self.screen = screen  # the board (its keeper) the commands run on, and its layout's check
        self.committed: list[Callable[[Command, Result], None]] = []
        # told of every refusal and failed write, after the flash (e.g. boardctl.sound)
        self.refused: list[Callable[[BoardCommand, BoardError], None]] = []

    def execute(self, command: BoardCommand) -> Result:
        """Apply one command; raise :class:`BoardError` on refusal (the board flashes)."""
        if isinstance(command, Brightness):  # a new level is a new view key: drawn again
            return self.screen.settings.set_brightness(command.level)
        screen = self.screen
        try:
            if screen.validate is not None:
                screen.validate(command)
            pending = screen.keeper.prepare(command)
        except BoardError as exc:
            self.refuse(command, exc)
            raise
        screen.show_now(pending.view())  # the frame first: the press shows at once ...
        try:
            result = pending.commit()  # ... then the durable write, before anything else
        except BaseException as exc:
            pending.abort()
            if isinstance(exc, BoardError):
                log.error("entry not saved, the last saved score is shown again: %s", exc)
            self.refuse(command, exc)  # the last durable state, shown again
            raise
        status = result.get("status")  # the new state's status, read once
        # every frame of the entry sent, then its cue
        screen.show_durable(status if isinstance(status, dict) else None)
        for listener in self.committed:
            listener(command, result)
        return result

    def refuse(self, command: BoardCommand | None, error: BaseException) -> None:
        """Flash ``error`` over the last durable state, its sign on the LEDs at once; then
        (its cue) tell the :attr:`refused` listeners of a refused ``command``, if there is one."""
        self.screen.flash_error(refusal_of(error), str(error))
        self.screen.show_durable()
        if command is not None and isinstance(error, BoardError):
            for listener in self.refused:
                listener(command, error)

    def run_buttons(self, commands: list[BoardCommand]) -> None:
        """Apply the panel's commands as the phase means them (the keeper says how)."""
        for command in commands:
            try:
                self.execute(self.screen.keeper.button_command(command))
            except EntryError as exc:
                log.warning("entry refused: %s", exc)
            except JournalError:
                pass  # execute logged it and shows the last saved score
            except BoardError as exc:
                log.error("command %s failed: %s", command, exc)
