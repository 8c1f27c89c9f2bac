"""The joined board's service: its entries go to the host, its LEDs show the host's game
(docs/remote.md, 'On the joined board'). :class:`JoinedKeeper` stands in for the board's own
scorekeeper (left untouched while linked) wherever the engine's commands and views pass."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from boardctl.errors import BoardError, EntryError
from boardctl.game.commands import BoardCommand, Command, NewGame, Peg, Redo, Undo
from boardctl.remote.guest import GuestLink
from boardctl.remote.messages import FROM_BUTTONS, UNDOES
from boardctl.view import BoardView

KEEP_REFUSED = 20
#: What the joined board refuses itself (the host hosts the game), by op, and why.
HOSTS = {
    NewGame.op: "the host hosts the game: start a new game on the host's board",
    Redo.op: "redo on the host's board: it may bring back the host's entry",
}


@dataclasses.dataclass(frozen=True, slots=True)
class _Sent:
    """An entry kept in the outbox: the record :mod:`boardctl.service.once` answers a repeat
    with (``seq`` 0: the host's journal has its number)."""

    seq: int
    event: dict[str, Any]


class _OutboxIds:
    """The request-id side of a journal (``find_request``/``tag_next``), over the outbox."""

    def __init__(self, guest: GuestLink) -> None:
        self._guest = guest
        self.next: str | None = None

    def find_request(self, request_id: str) -> _Sent | None:
        for rid, request, _after in self._guest.outbox.pending():
            if rid == request_id:
                return _Sent(0, request)
        answer = self._guest.outbox.answer(request_id)
        return None if answer is None else _Sent(0, answer)

    def tag_next(self, request_id: str | None) -> None:
        self.next = request_id


class _Entry:
    """A checked entry waiting for its :meth:`commit` (the dispatcher's PendingEntry)."""

    def __init__(self, keeper: JoinedKeeper, command: Command) -> None:
        self._keeper, self._command = keeper, command

    def view(self) -> BoardView:
        return self._keeper.view()

    def commit(self) -> dict[str, Any]:
        return self._keeper.send(self._command)

    def abort(self) -> None:
        pass


class JoinedKeeper:
    """The joined board's keeper (see the module); anything else is its own keeper's."""

    def __init__(self, own: Any, guest: GuestLink) -> None:
        self.own = own
        self.guest = guest
        self.journal = _OutboxIds(guest)  # the request ids, as a journal's
        self.refused: list[str] = []
        self.on_change: Callable[[], None] = lambda: None  # the service shows the board again
        self._pressed: BoardCommand | None = None
        self._spoken: int | None = None  # the seq of the host's last entry spoken here
        self._unsounded: list[str] = []  # the host's refusals of this board's entries, to sound
        guest.on_change = lambda: self.on_change()
        guest.on_answer = self._answered

    def __getattr__(self, name: str) -> Any:
        return getattr(self.own, name)

    # --- what the dispatcher and the control requests ask ----------------------------
    def prepare(self, command: Command) -> _Entry:
        """Refuse here what the joined board cannot send: anything once the link has ended,
        a new game or a redo (the host's), an undo with no entry of this board's to take back."""
        if self.guest.ended:
            raise EntryError(
                "the link has ended (remote leave): nothing more is entered; "
                "boardctl remote leave on this board too, to play on it alone"
            )
        refused = HOSTS.get(command.op)
        if refused is not None and not self._asked(command):
            raise EntryError(refused)
        if isinstance(command, Undo) and self.guest.outbox.last_entry() is None:
            raise EntryError("nothing of this board's to undo in the host's game")
        return _Entry(self, command)

    def _asked(self, command: Command) -> bool:
        """Undo held on this board while the host's board asks about its last entry: the host
        gives it its meaning there (that entry filed as the other kind), as its own buttons'."""
        view = self.guest.view()
        asking = view is not None and view.extra.ask is not None
        return isinstance(command, Redo) and command is self._pressed and asking

    def history(self, *, all_games: bool = False, limit: int | None = None) -> list[dict[str, Any]]:
        """Refused: the game is the host's journal (``boardctl history`` on the host)."""
        raise EntryError(
            f"this board has joined game {self.guest.link.game}: its history is the host's "
            "journal (boardctl history on the host; results and stats players here show the "
            "finished games)"
        )

    def button_command(self, command: BoardCommand) -> BoardCommand:
        """The press as it is: the host's engine gives it its meaning in the host's phase."""
        self._pressed = command
        return command

    def waiting_signoff(self) -> tuple[int, ...] | None:
        """The host's result waiting for its sides (its sign on this board too): a press of
        this board's track confirms for it, and the host checks the track is this board's."""
        view = self.guest.view()
        return None if view is None or self.guest.ended else view.extra.signoff

    def send(self, command: Command) -> dict[str, Any]:
        """Keep ``command`` in the outbox and send it; the host answers it later."""
        request: dict[str, Any] = dict(command.to_json())
        if command is self._pressed:  # from the buttons (the dispatcher asked just now)
            request[FROM_BUTTONS] = True
        if isinstance(command, Undo):  # the host takes back this entry, if it is the last
            request[UNDOES] = self.guest.outbox.last_entry()
        self._pressed = None
        rid = self.guest.submit(request, self.journal.next)
        return {"ok": True, "sent": rid, "seq": 0, "event": {}, "status": self.status()}

    def _answered(self, request_id: str, answer: dict[str, Any]) -> None:
        if not answer.get("ok"):
            self.refused = [*self.refused, str(answer.get("error"))][-KEEP_REFUSED:]
            self._unsounded.append(str(answer.get("error")))
        self.on_change()

    def speak(
        self,
        listeners: list[Callable[[Any, dict[str, Any]], None]],
        refused: list[Callable[[Any, BoardError], None]],
    ) -> None:
        """Tell ``listeners`` (the dispatcher's ``committed``: the voice) of the host's last
        entry, once: the one a new state names, never again on a resend, nor when it starts;
        and ``refused`` (its ``refused``) of each refusal of this board's entries, once."""
        while self._unsounded:
            error = EntryError(self._unsounded.pop(0))
            for tell in refused:
                tell(None, error)
        state = self.guest.state
        if state is None:
            return
        seq, now = state.get("seq"), state["status"].get("seq")
        if self._spoken is None:  # the host's board as this board starts: nothing to say
            self._spoken = now if isinstance(now, int) else 0
        elif isinstance(seq, int) and seq > self._spoken and state.get("event"):
            self._spoken = seq
            result = {"event": state["event"], "seq": seq, "status": state["status"]}
            for listener in listeners:
                listener(None, result)

    # --- what the board shows -----------------------------------------------------
    def view(self) -> BoardView:
        view = self.guest.view()
        if view is None:  # nothing from the host yet: this board's own, with the sign
            own: BoardView = self.own.view()
            return dataclasses.replace(own, extra=dataclasses.replace(own.extra, link_lost=True))
        waiting = [0] * len(view.tracks)
        undoing: set[int] = set()
        for _rid, request, _after in self.guest.outbox.pending():
            track, points = request.get("track"), request.get("points")
            if request.get("op") == Undo.op:
                undoing.update(self._undone(request, len(waiting)))
            if request.get("op") != Peg.op or not isinstance(points, int):
                continue
            if isinstance(track, int) and 0 <= track < len(waiting):
                waiting[track] += points
        tracks = tuple(
            dataclasses.replace(t, pending=t.pending + extra)
            for t, extra in zip(view.tracks, waiting, strict=True)
        )
        ended = self.guest.ended  # no fault: its own sign, while the host's last board shows
        lost = not self.guest.reachable and not ended
        extra = dataclasses.replace(
            view.extra, link_lost=lost, link_ended=ended, undoing=tuple(sorted(undoing))
        )
        return dataclasses.replace(view, tracks=tracks, extra=extra)

    def _undone(self, undo: dict[str, Any], tracks: int) -> range | tuple[int]:
        """The tracks of the entry an unanswered ``undo`` takes back (its front peg blinks):
        the entry's track, or every track for an entry of none (a phase, the cut)."""
        undone = undo.get(UNDOES)
        entry = self.guest.outbox.request(undone) if isinstance(undone, str) else None
        track = None if entry is None else entry.get("track")
        return (track,) if isinstance(track, int) and 0 <= track < tracks else range(tracks)

    def status(self) -> dict[str, Any]:
        """The host's status (this board's own before the first), this side's in ``remote``."""
        state, guest = self.guest.state, self.guest
        status = dict(state["status"]) if state is not None else dict(self.own.status())
        tracks = None if state is None else state.get("joined_tracks")
        link = guest.link_status(
            tracks=None if not isinstance(tracks, list) else tuple(int(t) for t in tracks),
            link_lost=not guest.reachable and not guest.ended,
            unanswered=len(guest.outbox.pending()),
            refusals=tuple(self.refused),
        )
        status["remote"] = link.to_dict()
        return status

    def close(self) -> None:
        self.own.close()  # the link is closed by the service (boardctl.remote.service)
