"""The control socket's requests, answered by the running board in the loop's thread
(docs/control-protocol.md, 'Requests'); the journal's reads are made by threads beside it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from boardctl.board.viewjson import view_to_dict
from boardctl.errors import ControlError, EntryError
from boardctl.game.commands import parse_board_command
from boardctl.inputs.panel import parse_button_id
from boardctl.service.history_all import HistoryPages
from boardctl.service.journal_reader import JournalRecords
from boardctl.service.results_csv import ResultsCsv
from boardctl.service.settings import SOUND_SETTINGS
from boardctl.view import BoardView

if TYPE_CHECKING:
    from boardctl.service.loop import ServiceLoop

#: The control protocol's version (``ping`` and ``watch`` say it; docs/control-protocol.md).
PROTOCOL_VERSION = 1


class Requests:
    """Answers one control request at a time (in the loop's thread)."""

    def __init__(self, loop: ServiceLoop, link_kind: str) -> None:
        self.loop = loop
        self.link_kind = link_kind
        # the journal's file (Scorekeeper.path); a keeper without one has no records
        journal = getattr(loop.keeper, "path", None)
        self.records = JournalRecords(journal)
        self.past = HistoryPages(journal)  # history --all, off the loop
        self.export = ResultsCsv(journal)  # results --csv, the same
        for reader in (self.records, self.past, self.export):  # a held request answered then
            reader.on_publish = loop.wake
        # what the records must count: the journal's last event, and the copies of a host's
        # results kept (boardctl.remote: a joined board's keeper shows the host's seq)
        self.records_due: Callable[[], tuple[int, int]]
        self.records_due = lambda: (int(self.loop.keeper.status()["seq"]), 0)
        # more parts of the running board in the status, by key (boardctl.remote: "remote")
        self.parts: dict[str, Callable[[], Any]] = {}
        # a hosting board's invitation code (boardctl.remote): asked for alone, never in the
        # status (which the MQTT bridge publishes and the host sends the joined board)
        self.invite: Callable[[], dict[str, Any]] = dict
        # read the link file again (boardctl.remote: after remote invite, join or leave)
        self.relink: Callable[[], dict[str, Any]] = dict
        self._readers: dict[str, Callable[[Mapping[str, Any]], Any]] = {
            "ping": lambda _: {"pong": True, "protocol": PROTOCOL_VERSION},
            "status": lambda _: self.status(),
            "frame": lambda _: self._frame_reply(),
            "press": lambda r: self.press(r["button"], r.get("hold", 0)),
            "history": self._history,
            "records": lambda r: self.records.reply(*self.records_due(), since=r.get("since")),
            "results": lambda r: self.export.reply(*self.records_due(), since=r.get("since")),
            "watch": lambda _: {"protocol": PROTOCOL_VERSION, **self.state(snapshot=True)},
            "invite": lambda _: self.invite(),
            "relink": lambda _: self.relink(),
        }

    def handle(self, request: Mapping[str, Any]) -> Any:
        """The result of a request already checked by the control protocol."""
        reader = self._readers.get(request["op"])
        if reader is not None:
            return reader(request)
        if request["op"] == "set" and request.get("key") in SOUND_SETTINGS:
            return self.loop.settings.set_sound(request["key"], request.get("value"))
        return self.loop.dispatcher.execute(parse_board_command(request))

    def status(self) -> dict[str, Any]:
        """The engine's status plus what only the running board knows."""
        status = dict(self.loop.keeper.status())
        status["pending"] = list(self.loop.panel.pending)
        if self.loop.panel.stuck:  # a contact held past stuck_after (the LEDs' yellow double flash)
            status["stuck"] = list(self.loop.panel.stuck)
        if self.loop.settings.brightness is not None:
            status["brightness"] = self.loop.settings.brightness
        status.update(self.loop.settings.sound)  # volume / mute set at run time
        status["link"] = {"kind": self.link_kind, "connected": bool(self.loop.link.connected)}
        return status | {key: part() for key, part in self.parts.items()}

    def state(self, view: BoardView | None = None, *, snapshot: bool = False) -> dict[str, Any]:
        """What a watcher is told when the board changes: the status and the view (now)."""
        view = view or self.loop.view()
        if snapshot:
            self.loop.watched(view)
        return {"status": self.status(), "view": view_to_dict(view)}

    def close(self) -> None:
        """Stop what answers the requests in the background (the journal's readers)."""
        for reader in (self.records, self.past, self.export):
            reader.close()

    def _frame_reply(self) -> dict[str, Any]:
        frame = self.loop.frame or b""
        return {"leds": len(frame) // 3, "rgb": frame.hex()}

    def _history(self, request: Mapping[str, Any]) -> Any:
        keeper = self.loop.keeper
        limit = request.get("limit")
        if request.get("all") is not True:  # (a joined board's keeper refuses: the host's game)
            return keeper.history(limit=limit if isinstance(limit, int) and limit > 0 else None)
        keeper.history(limit=1)  # the refusal, if joined (a row, not the whole game's, a page)
        after = request.get("after", 0)  # a page of every game's rows: .history_all
        opened = getattr(keeper, "inner", keeper) is not None  # not a fault's keeper
        if opened and getattr(keeper, "path", None) is not None:
            return self.past.reply(after, int(keeper.status()["seq"]))
        # a keeper without a journal keeps its rows in memory: one page
        rows = [r for r in keeper.history(all_games=True) if r["seq"] > after]
        return {"next": None, "rows": rows}

    def press(self, name: str, hold: int) -> dict[str, Any]:
        """A button gesture from the socket; refusals come back as one error."""
        try:
            _role, track = parse_button_id(name)
        except ValueError:
            raise ControlError(
                f"unknown button {name!r} (undo, menu, trackN.plus1, trackN.plus5, "
                "trackN.encoder_push)"
            ) from None
        if track is not None and track >= self.loop.panel.tracks:
            raise ControlError(
                f"there is no button {name!r}: this game has {self.loop.panel.tracks} tracks "
                f"(track1 to track{self.loop.panel.tracks})"
            )
        if hold not in (0, 1, 2):
            raise ControlError(f"hold must be 0 (short), 1 (long) or 2 (very long), not {hold}")
        refused: list[str] = []
        for command in self.loop.tap(name, hold):
            try:
                self.loop.dispatcher.execute(self.loop.keeper.button_command(command))
            except EntryError as exc:
                refused.append(str(exc))
        if refused:
            raise EntryError("; ".join(refused))
        return {"pending": list(self.loop.panel.pending), "mode": self.loop.panel.mode}
