"""The hosting board's side of a link: the joined board's commands in (each checked one run in
the service loop by :func:`~boardctl.remote.messages.host_step`'s rule, its answer kept durably,
then published), the board out, retained, at every change and (re)connection (docs/remote.md,
'What crosses the network')."""

from __future__ import annotations

import contextlib
import datetime
import functools
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from boardctl.config import MqttConfig
from boardctl.errors import BoardError, EntryError
from boardctl.game.commands import OPS, parse_board_command
from boardctl.remote.broker import Connection, now_n
from boardctl.remote.messages import FROM_BUTTONS, UNDOES, Message, RemoteError, host_step
from boardctl.remote.paired import Pairing
from boardctl.remote.store import ANSWERS_FILE, Answers
from boardctl.remote.words import LinkStatus
from boardctl.service.control import parse_request
from boardctl.service.loop import Call, ServiceLoop
from boardctl.service.once import exactly_once
from boardctl.service.settings import BOARD_SETTINGS

log = logging.getLogger(__name__)

WATCH_KEY = -31  # the link's place among the watch stream's subscribers (clients use fds)
GAMES_BYTES = 48 * 1024  # the newest finished games that fit in one message


class HostLink(Connection):
    """The host's link in ``loop``'s service (see the module); :meth:`close` ends it. The joined
    board's commands run through ``handle``, the control socket's handler (request ids and all)."""

    def __init__(
        self,
        link: Pairing,
        mqtt: MqttConfig,
        loop: ServiceLoop,
        handle: Callable[[dict[str, Any]], Any],
        journal: Path,
    ) -> None:
        self._loop, self._handle, self._journal = loop, handle, journal
        self.answers = Answers(journal.parent / ANSWERS_FILE)
        self._pressed = exactly_once(self._press, lambda: loop.keeper)
        self.on_end: Callable[[], None] = lambda: None  # the other board left (in paho's thread)
        self._closed = False
        self._n = 0
        self._event: dict[str, Any] = {}  # the last entry journalled, sent with the next state
        self._result: dict[str, Any] = {}  # the finished games last published
        self._games_seq: int | None = None  # the journal's seq they were read at
        super().__init__(link, mqtt)
        loop.watch.subscribe(WATCH_KEY, self._watched)
        self.start()

    def status(self) -> LinkStatus:
        """This side of the link, for ``boardctl status``."""
        return self.link_status(tracks=tuple(self.link.tracks), forged=len(self.refused))

    # --- the paho thread ----------------------------------------------------------
    def _message(self, kind: str, got: Message, payload: bytes) -> None:
        self._loop.post(Call(functools.partial(self._apply, got)))  # in the loop's thread

    def _changed(self, what: str) -> None:
        if what == "connect":
            self._loop.post(Call(self._publish_now))  # the board as it is now, retained
        elif what == "hello" and isinstance(after := self.peer_hello.get("results_after"), str):
            self._loop.post(Call(functools.partial(self._send_games, after)))
        elif what == "bye" and self.ended:
            self.on_end()

    # --- the service loop's thread ------------------------------------------------------
    def _apply(self, got: Message) -> None:
        request_id, body = got.request_id, got.body
        if self._closed:
            return  # came in as the link ended (remote leave while the service runs)
        step = host_step(self.answers.get, request_id, str(body.get("after") or ""))
        if step == "wait":
            return  # the one made before it first: the joined board sends them in order
        answer = self.answers.get(request_id)
        if answer is None:
            entry = body.get("entry")
            answer = (
                {"ok": False, "error": "the link has ended (remote leave): nothing more is entered"}
                if self.ended
                else self._run(request_id, entry if isinstance(entry, dict) else {})
            )
            self.answers.put(request_id, answer)
        self.send("answer", answer, request_id=request_id, n=self._next_n())

    def _run(self, request_id: str, body: dict[str, Any]) -> dict[str, Any]:
        op, undoes = body.get("op"), body.get(UNDOES)
        buttons = body.get(FROM_BUTTONS) is True
        fields = {k: v for k, v in body.items() if k not in ("id", FROM_BUTTONS, UNDOES)}
        try:
            if op not in OPS or (op == "set" and body.get("key") in BOARD_SETTINGS):
                raise RemoteError(f"a joined board may not send {op!r} (only its entries)")
            # an undo takes back the joined board's own last entry, while it is the last event
            if op == "undo" and not (isinstance(undoes, str) and self._last_is(undoes)):
                raise self._flashed(
                    {"op": "undo"},
                    "the last entry is not the joined board's own: undo it on the host's board",
                )
            request = parse_request(json.dumps(fields))
            track = request.get("track")
            if isinstance(track, int) and track not in self.link.tracks:
                raise self._flashed(
                    request,
                    f"track {track + 1} is the host's: the joined board enters for track "
                    + ", ".join(str(t + 1) for t in self.link.tracks),
                )
            request["request_id"] = request_id
            result = (self._pressed if buttons else self._handle)(request)
        except BoardError as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True, "result": json.loads(json.dumps(result, default=str))}

    def _press(self, request: dict[str, Any]) -> Any:
        """An entry of the joined board's buttons, with its meaning in the phase (as
        :meth:`boardctl.service.dispatch.Dispatcher.run_buttons` gives the host's own)."""
        loop = self._loop
        return loop.dispatcher.execute(loop.keeper.button_command(parse_board_command(request)))

    def _flashed(self, request: dict[str, Any], why: str) -> EntryError:
        """An entry refused by the link: the refusal's sign on the host's LEDs, which the joined
        board shows too, and its cue, as the engine's refusals."""
        error, command = EntryError(why), None
        with contextlib.suppress(BoardError):
            command = parse_board_command(request)
        self._loop.dispatcher.refuse(command, error)
        return error

    def _last_is(self, request_id: str) -> bool:
        """Whether the journal's last event (the keeper's ``seq``) is ``request_id``'s."""
        keeper: Any = self._loop.keeper
        journal = getattr(keeper, "journal", None)
        first = None if journal is None else journal.find_request(request_id)
        return first is not None and bool(first.seq == keeper.seq)

    def _watched(self, line: bytes) -> None:
        message = json.loads(line)
        if "event" in message:  # an entry journalled: the joined board speaks it
            self._event = {"event": message["event"], "seq": message.get("seq")}
        if "state" in message:
            self._publish(message["state"])

    def _publish_now(self) -> None:
        if not self._closed:
            self._publish(self._loop.requests.state())

    def _publish(self, state: dict[str, Any]) -> None:
        status = {k: v for k, v in state.get("status", {}).items() if k != "remote"}
        body = {**state, "status": status, **self._event, "clock": self._loop.clock()}
        body["joined_tracks"] = list(self.link.tracks)  # whose tracks the joined board enters
        body = json.loads(json.dumps(body, default=str))
        self.send("state", body, n=self._next_n(), retain=True)
        keeper: Any = self._loop.keeper  # its seq: the journal position of a finished game
        if keeper.view().winner is not None and int(keeper.seq) != self._games_seq:
            self._games_seq = int(keeper.seq)
            pages = self._pages()  # the newest, signed and retained: the joined board's copy
            if pages and pages[-1] != self._result:
                self._result = pages[-1]
                self.send("result", pages[-1], retain=True)

    def _pages(self, after: str = "") -> list[dict[str, Any]]:
        """The bodies of ``result`` messages holding the linked game's finished games (since the
        link was made, ended after ``after``), each at most :data:`GAMES_BYTES`, newest last."""
        from boardctl.results.board import board_id
        from boardctl.results.kept import each_kept_game, encode_games

        journal = getattr(self._loop.keeper, "journal", None)  # the service's own connection
        if journal is None:
            return []  # a journal that could not be opened: nothing to send
        board = board_id(self._journal.parent)
        since = self.link.since.rstrip("Z")  # to the second; a result's end has its milliseconds
        # read from the game start before the first game wanted: the games since, not all
        moment = datetime.datetime.fromisoformat(max(since, after).removesuffix("Z"))
        start = journal.start_before(moment.replace(tzinfo=datetime.UTC).timestamp())
        pages: list[list[Any]] = []
        for game in reversed(list(each_kept_game(journal, board=board, after=start))):
            end = game.result.end
            if end < since or end <= after:
                continue
            if pages and len(encode_games([game, *pages[0]])) <= GAMES_BYTES:
                pages[0].insert(0, game)
            elif len(encode_games([game])) <= GAMES_BYTES:
                pages.insert(0, [game])
            else:
                log.warning(
                    "remote: the game ended %s is too large to send to the joined board", end
                )
        return [{"board": board, "games": encode_games(page)} for page in pages]

    def _send_games(self, after: str) -> None:
        """Every finished game the joined board lacks (it said the end of its newest in its
        hello), oldest first: a board away for many games misses none."""
        if not self._closed:
            for body in self._pages(after):
                self.send("result", body)

    def _next_n(self) -> int:
        self._n = now_n(self._n)
        return self._n

    def close(self) -> None:
        self._closed = True
        self._loop.watch.unsubscribe(WATCH_KEY)
        super().close()
        self.answers.close()
