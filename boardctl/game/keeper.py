"""The scorekeeper: the state machine plus the journal, behind one ``apply``; the service uses
its two steps, :meth:`Scorekeeper.prepare` (shown at once), then :meth:`Pending.commit`."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from boardctl.errors import EntryError, JournalError
from boardctl.game import JsonObject, JsonValue
from boardctl.game.commands import (
    BoardCommand,
    Command,
    Cut,
    NewGame,
    Next,
    Peg,
    Redo,
    Refile,
    Set,
    new_game_event,
    parse_command,
)
from boardctl.game.flow import Chooser
from boardctl.game.history import Entry, Row, history_row
from boardctl.game.limits import DEFAULT_LIMITS, Limits
from boardctl.game.machine import Machine, Plan, awaiting
from boardctl.game.setup import GameSetup, check_distinct
from boardctl.game.state import SNAPSHOT_FORMAT, GameState
from boardctl.game.status import Status, board_view, status_dict
from boardctl.notices import DAMAGE_KEY
from boardctl.store.journal import (
    Journal,
    JournalChanged,
    Record,
    stamp,
)
from boardctl.view import BoardView

SetupLike = GameSetup | NewGame | Mapping[str, JsonValue] | None
Clock = Callable[[], float]
Result = JsonObject  # what apply returns: ok, seq, the event and the status (JSON)

log = logging.getLogger(__name__)


def _dressed(
    view: BoardView, journal: Journal | None, error_at: float | None, over_at: float | None
) -> BoardView:
    """``view`` flagged for the renderer's damage sign while a damage report stands, with the time
    of the last rejection and of the game's end, if any."""
    if journal is not None and journal.damage is not None:
        view = replace(view, extra=replace(view.extra, journal_damage=True))
    if error_at is None and over_at is None:
        return view
    return replace(view, error_at=error_at, over_at=over_at)


class Scorekeeper:
    """Game state kept by folding journalled events. Not thread-safe: one owner."""

    def __init__(
        self,
        journal: Journal | None,
        *,
        limits: Limits | None = None,
        choose: Chooser | None = None,
        wall_clock: Clock = time.time,
    ) -> None:
        self.machine = Machine(limits=limits or DEFAULT_LIMITS)
        self.journal = journal  # None: a memory scorekeeper
        self._choose = choose
        self._wall_clock = wall_clock  # the time of an event in a memory keeper
        self.seq = 0  # the sequence number of the last event (0 = none)
        self._game: list[Entry] = []
        self._done: list[Command] = []  # events undo would take back, last on top
        self._undone: list[Command] = []  # events redo would bring back
        self._all: list[Entry] | None = [] if journal is None else None  # without: every entry
        self._view: BoardView | None = None
        self._status: Status | None = None
        self.error_at: float | None = None
        self.over_at: float | None = None

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        setup: SetupLike = None,
        readonly: bool = False,
        limits: Limits | None = None,
        choose: Chooser | None = None,
        full_replay: bool = False,
        wall_clock: Clock = time.time,
        owner: str = "cli",
        later: bool = False,
    ) -> Scorekeeper:
        """Open (or create) the journal at ``path`` and replay it (checksums verified).

        ``setup`` starts an empty journal; ``full_replay`` folds from the first event, not the
        game's snapshot; ``wall_clock`` stamps the events; ``later`` leaves the game starts and the
        structural check to the caller (the service).
        """
        journal = Journal.open(path, readonly=readonly, owner=owner, check_pages=not later)
        keeper = cls(journal, limits=limits, choose=choose, wall_clock=wall_clock)
        try:
            if full_replay or not keeper._load(*journal.resume()):
                journal.rewind()  # no usable snapshot: replay from the first event
                keeper._replay()
            # a journal without kept game starts (imported, restored, older): stored now, or
            # by a thread (boardctl.service.fault)
            if not readonly and journal.kept_in_doubt():
                journal.starts_pending = later
                if not later:
                    from boardctl.results.kept import store_game_starts

                    last = journal.last_seq
                    store_game_starts(journal)
                    assert journal.last_seq == last
            if setup is not None and keeper.seq == 0 and not readonly:
                keeper.apply(new_game_event(setup))
        except BaseException:
            journal.close()
            raise
        return keeper

    @classmethod
    def memory(
        cls,
        setup: SetupLike = None,
        *,
        limits: Limits | None = None,
        choose: Chooser | None = None,
        wall_clock: Clock = time.time,
    ) -> Scorekeeper:
        """A scorekeeper without a journal (tests, demo); keeps every event in memory."""
        keeper = cls(None, limits=limits, choose=choose, wall_clock=wall_clock)
        if setup is not None:
            keeper.apply(new_game_event(setup))
        return keeper

    @classmethod
    def from_records(
        cls,
        snapshot: dict[str, Any] | None,
        records: Iterable[Record],
        *,
        limits: Limits | None = None,
    ) -> Scorekeeper:
        """A journal-less keeper of every entry, from ``records`` (after ``snapshot``, if usable:
        :meth:`Journal.page`; else from the first event), read once, in order."""
        keeper = cls(None, limits=limits)
        if not keeper._load(snapshot, records):  # (reads none of them when it fails)
            keeper._replay(records)
        return keeper

    def _load(self, snapshot: dict[str, Any] | None, records: Iterable[Record]) -> bool:
        """Start from ``snapshot`` (the state after the first of ``records``) and replay the
        rest; False (none of ``records`` read) if the snapshot is missing or unusable."""
        if snapshot is None or snapshot.get("format") != SNAPSHOT_FORMAT:
            return False
        try:
            state = GameState.from_dict(snapshot["state"])
        except (EntryError, KeyError, TypeError):
            return False
        records = iter(records)
        first = next(records, None)
        if first is None:
            return False
        self.machine = Machine(state, limits=self.machine.limits)
        self._remember(first.seq, first.at, self._plan(first, state), first.clock)
        self._replay(records)
        return True

    def _plan(self, record: Record, start: GameState | None = None) -> Plan:
        """A journalled event's plan (``start``: the state after it, from its snapshot)."""
        try:
            event = parse_command(record.event)
            return self.machine.plan(event) if start is None else Plan(event, start, reset=True)
        except EntryError as exc:
            raise JournalError(
                f"journal {self.path}: event {record.seq} cannot be replayed "
                f"({exc}); the file is damaged or from an incompatible boardctl"
            ) from exc

    def _replay(self, records: Iterable[Record] | None = None) -> None:
        if records is None:
            assert self.journal is not None
            records = self.journal.records()
        for record in records:
            plan = self._plan(record)
            self.machine.commit(plan)
            self._remember(record.seq, record.at, plan, record.clock)
        self._view, self._status = None, None

    def refresh(self) -> bool:
        """Read events another process appended since (readers); True if any."""
        if self.journal is None:
            return False
        before = self.seq
        self._replay()
        return self.seq != before

    def apply(self, command: Command) -> Result:
        """``prepare(command).commit()``: ``{"ok", "seq", "event", "status"}``, or
        :class:`EntryError` / :class:`JournalError` with the state unchanged."""
        return self.prepare(command).commit()

    def prepare(self, command: Command) -> Pending:
        """Validate ``command`` and compute its effect, changing nothing until
        :meth:`Pending.commit`; raise :class:`EntryError` (``error_at`` set) if refused."""
        try:
            plan = self.machine.plan(command, choose=self._choose)
            if (isinstance(command, Set) and command.key == "names") or (
                isinstance(command, NewGame) and command.names is not None
            ):
                setup = plan.state.setup
                check_distinct(setup.names, setup.variant.teams)
        except EntryError:
            self.error_at = time.monotonic()
            raise
        over_at = self.over_at
        if plan.state.winner is None:
            over_at = None
        elif self.machine.state.winner is None:
            over_at = time.monotonic()
        return Pending(self, plan, over_at)

    def _commit(self, pending: Pending) -> Result:
        """Journal a prepared command durably, then fold it in (see :meth:`Pending.commit`)."""
        if pending.base_seq != self.seq:
            raise EntryError("the game changed since this entry was checked; enter it again")
        plan = pending.plan
        if self.journal is not None:
            snapshot = games = None
            if plan.reset:  # a game starts: the undo stacks are empty, the state says it all
                from boardctl.results.kept import games_before_start  # (folded by the engine)

                snapshot = {"format": SNAPSHOT_FORMAT, "state": plan.state.to_dict()}
                if not self.journal.starts_pending:
                    games = games_before_start(self.journal)
            try:
                record = self.journal.append(
                    plan.event.to_json(), at=self._wall_clock(), snapshot=snapshot, games=games
                )
            except JournalChanged as exc:
                self.refresh()  # take in what the other writer wrote, and carry on
                raise EntryError(f"{exc}; the board now shows the journal, enter it again") from exc
            except JournalError:
                if self._settle_failed_write(pending.base_seq, plan.event.to_json()):
                    return self._result(self.seq, plan.event)
                raise
            seq, at, clock = record.seq, record.at, record.clock
        else:
            last = self._game[-1].at if self._game else 0.0
            seq, (at, clock) = self.seq + 1, stamp(self._wall_clock(), last)
        ended = plan.state.winner is not None and self.machine.state.winner is None
        self.machine.commit(plan)
        self._remember(seq, at, plan, clock)
        self._status = None
        self._view = pending._view  # the board view of the new state, if already built
        self.over_at = pending.over_at
        if ended and self.journal is not None and not self.journal.readonly:
            try:
                self.journal.backup("game-end")
            except JournalError as exc:  # a failed backup is logged, never fails the entry
                log.warning("%s", exc)
        return self._result(seq, plan.event)

    def _settle_failed_write(self, base_seq: int, event: JsonObject) -> bool:
        """After a failed append: reopen and read on; True if the entry is there after all."""
        assert self.journal is not None
        try:
            self.journal.reopen()
            self.refresh()
        except JournalError as exc:
            log.error("after a failed write the journal cannot be read again: %s", exc)
            return False
        if self.seq == base_seq + 1 and self.history()[-1]["event"] == event:
            log.warning("the write reported an error, but the entry is in the journal: kept")
            return True
        return False

    def _result(self, seq: int, event: Command) -> Result:
        return {"ok": True, "seq": seq, "event": event.to_json(), "status": self.status()}

    def _remember(self, seq: int, at: float, plan: Plan, clock: float | None) -> None:
        """Keep the entry for history, tracking which event an undo or redo concerns."""
        self.seq = seq
        event = plan.event
        undid = None
        if plan.move == "undo":
            undid = self._done.pop()
            self._undone.append(undid)
        elif plan.move == "redo":
            undid = self._undone.pop()
            self._done.append(undid)
        elif plan.reset:  # a game starts
            self._done, self._undone, self._game = [], [], []
        else:
            self._done.append(event)
            self._undone = []
        entry = Entry(seq, at, event, self.machine.state, undid, clock)
        self._game.append(entry)
        if self._all is not None:
            self._all.append(entry)

    @property
    def state(self) -> GameState:
        return self.machine.state

    @property
    def path(self) -> str | None:
        """The journal file, or None for a memory scorekeeper."""
        return None if self.journal is None else str(self.journal.path)

    def view(self) -> BoardView:
        """What the board shows now (with the time of the last rejection and game end)."""
        if self._view is None:
            self._view = board_view(self.machine.state)
        return _dressed(self._view, self.journal, self.error_at, self.over_at)

    def button_command(self, command: BoardCommand) -> BoardCommand:
        """``command`` from the buttons as the phase means it (docs/service.md, "Buttons").

        During the cut a track's entry deals and ``next`` draws; in the show ``next`` enters a 0
        count; while the board asks (``state.ask``) redo refiles, unless an undone event waits.
        """
        state = self.machine.state
        if isinstance(command, Redo) and state.ask is not None and not self.machine.future:
            return Refile()  # the board asks: the one press that files the entry as the other kind
        if not isinstance(command, Peg | Next):
            return command
        if state.phase == "cut":
            if isinstance(command, Next):
                return Cut()
            teams = state.setup.variant.teams  # a track's press: the cut of its first seat
            return Cut(teams[command.track][0] if command.track < len(teams) else command.track)
        to_count = state.to_count
        if state.phase == "show" and isinstance(command, Next) and to_count is not None:
            return Peg(to_count, 0)
        return command

    def waiting_signoff(self) -> tuple[int, ...] | None:
        """The tracks that confirmed while a finished game's result waits for others, else None."""
        state = self.machine.state
        return state.confirmed if awaiting(state) else None

    def status(self) -> Status:
        """The state as JSON-able data (a fresh dict the caller may keep)."""
        if self._status is None:
            self._status = status_dict(self.machine.state)
        status = dict(self._status)
        status["seq"] = self.seq
        status["undo"] = len(self.machine.past)
        status["redo"] = len(self.machine.future)
        if self.journal is not None and self.journal.damage is not None:
            status[DAMAGE_KEY] = self.journal.damage.to_dict()
        return status

    @property
    def entries(self) -> list[Entry]:
        """Every entry, for a keeper of them all (:meth:`from_records`); else this game's."""
        return self._game if self._all is None else self._all

    def history(self, *, all_games: bool = False, limit: int | None = None) -> list[Row]:
        """This game's events (its last ``limit``; or every event: a replay of the journal) as
        JSON-able rows."""
        if not all_games:
            return [history_row(e) for e in self._game[-limit if limit else None :]]
        if self._all is not None:
            return [history_row(e) for e in self._all]
        assert self.journal is not None
        with Journal.open(self.journal.path, readonly=True) as journal:
            full = Scorekeeper.from_records(
                None, list(journal.records()), limits=self.machine.limits
            )
        return full.history(all_games=True)

    def close(self) -> None:
        """Close the journal (idempotent)."""
        if self.journal is not None:
            self.journal.close()

    def __enter__(self) -> Scorekeeper:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class Pending:
    """A command the state machine accepted, not yet in the journal: :meth:`commit` or :meth:`abort`
    it before anything else changes the keeper."""

    __slots__ = ("_keeper", "_view", "base_seq", "done", "over_at", "plan")

    def __init__(self, keeper: Scorekeeper, plan: Plan, over_at: float | None) -> None:
        self._keeper = keeper
        self.plan = plan
        self.over_at = over_at
        self.base_seq = keeper.seq
        self.done = False
        self._view: BoardView | None = None

    def view(self) -> BoardView:
        """What the board shows once this command is committed."""
        if self._view is None:
            self._view = board_view(self.plan.state)
        return _dressed(self._view, self._keeper.journal, self._keeper.error_at, self.over_at)

    def commit(self) -> Result:
        """Journal the event, then make it the keeper's state; :class:`JournalError` keeps the last
        durable state."""
        if self.done:
            raise EntryError("this entry was already committed or dropped")
        result = self._keeper._commit(self)
        self.done = True
        return result

    def abort(self) -> None:
        """Drop the entry: nothing was written, the keeper is unchanged (idempotent)."""
        self.done = True
