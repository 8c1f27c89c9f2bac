"""The hosting board's side of a link: the joined board's commands in, the board out.

Runs in the board's service (:func:`boardctl.remote.service.attach`). A paho
thread receives the messages of the game's ``cmd`` topic; each is checked
(:func:`boardctl.remote.protocol.decode`: signed with the link key, from the
joined board, for this game) and anything else is refused and logged, then
handed to the service loop, which

1. answers a request id it has answered before with that first answer
   (:class:`boardctl.remote.store.Answers`): a resend or a replay applies nothing;
2. leaves a command unanswered while the one made before it on the joined board
   (``after``) is not answered yet: the joined board sends that one again first,
   so the entries are applied in the order they were made;
3. otherwise checks the request as the control socket does and runs it
   through the control socket's own handler, with its request id (so the
   journal keeps the id with the event: :mod:`boardctl.service.once`); an
   entry made with the joined board's buttons (``from_buttons``) gets its
   meaning in the phase first, as the host's own buttons' entries do;
4. keeps the answer durably, then publishes it on the ``answer`` topic.

The board itself (what the control socket's ``watch`` stream sends: ``status``
and ``view``) is published signed and retained on the ``state`` topic at every
change and after every (re)connection.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from boardctl.config import MqttConfig
from boardctl.errors import BoardError, EntryError
from boardctl.remote.broker import Connection, ended, now_n
from boardctl.remote.pairing import Pairing
from boardctl.remote.protocol import (
    FROM_BUTTONS,
    UNDOES,
    RemoteError,
    decode,
    encode,
    host_step,
)
from boardctl.remote.store import Answers
from boardctl.remote.words import LinkStatus
from boardctl.service.loop import Call, LoopEvent
from boardctl.service.watch import Watch

log = logging.getLogger(__name__)

WATCH_KEY = -31  # the link's place among the watch stream's subscribers (clients use fds)
KEEP_REFUSED = 100  # refusals remembered for status (all are logged)
#: The board's own settings: a joined board never changes them on the host.
BOARD_KEYS = ("brightness", "volume", "mute")


class HostLink:
    """The host's link (see the module); :meth:`close` ends it."""

    def __init__(
        self,
        link: Pairing,
        mqtt: MqttConfig,
        *,
        post: Callable[[LoopEvent], None],
        handle: Callable[[dict[str, Any]], Any],
        pressed: Callable[[dict[str, Any]], Any],
        state: Callable[[], dict[str, Any]],
        watch: Watch,
        answers: Answers,
        clock: Callable[[], float],
        refuse: Callable[[dict[str, Any], BoardError], None] = lambda request, error: None,
        games: Callable[[], dict[str, Any] | None] = lambda: None,
        last_is: Callable[[str], bool] = lambda request_id: False,
        finished: Callable[[], int | None] = lambda: None,
    ) -> None:
        self.link = link
        self.answers = answers
        self.refused: list[str] = []  # why each refused message was refused, latest last
        self.connected = False
        self.guest_online = False  # the joined board's hello is on the broker
        self._post, self._handle, self._state, self._watch = post, handle, state, watch
        self._pressed, self._flash, self._games = pressed, refuse, games
        self._clock, self._last_is, self._finished = clock, last_is, finished
        self.on_end: Callable[[], None] = lambda: None  # the other board left (in paho's thread)
        self._closed = False
        self._n = 0
        self._bye = self._guest_hello = 0  # the counters of the last bye and joined hello
        self._event: dict[str, Any] = {}  # the last entry journalled, sent with the next state
        self._result = b""  # the finished games last published
        self._games_seq: int | None = None  # the journal's seq they were read at
        self._broker = Connection(
            link,
            mqtt,
            "host",
            on_connect=self._connected,
            on_disconnect=self._disconnected,
            on_message=self._received,
        )
        watch.subscribe(WATCH_KEY, self._watched)
        self._broker.start()

    def status(self) -> LinkStatus:
        """This side of the link, for ``boardctl status``."""
        return LinkStatus(
            role="host",
            game=self.link.game,
            connected=self.connected,
            other_online=self.guest_online,
            ended=self.ended,
            tracks=tuple(self.link.tracks),
            forged=len(self.refused),
        )

    # --- the paho thread ----------------------------------------------------------
    def _connected(self, reason: Any) -> None:
        self.connected = True
        self._broker.subscribe("cmd", "bye", "guest")
        self._post(Call(self._publish_now))  # the board as it is now, retained

    def _disconnected(self) -> None:
        self.connected = False

    def _received(self, message: Any) -> None:
        kind = message.topic.rsplit("/", 1)[-1]
        if kind in ("bye", "guest") and not message.payload:
            self.guest_online = False if kind == "guest" else self.guest_online
            return  # the joined board went away (its last will), or a bye withdrawn
        try:
            sender = None if kind == "bye" else "guest"  # either side's bye ends the link
            got = decode(message.payload, key=self.link.key, game=self.link.game, sender=sender)
        except RemoteError as exc:
            reason = str(exc)
            self._post(Call(lambda: self._refuse(message.topic, reason)))
            return
        if got.kind == "hello" and kind == "guest":
            self.guest_online, self._guest_hello = True, got.n
        elif got.kind == "bye" and kind == "bye":
            self._bye = max(self._bye, got.n)
            if self.ended:
                log.warning("remote: the %s ended the link (remote leave)", got.sender)
                self.on_end()
        elif got.kind == "cmd" and kind == "cmd":
            self._post(Call(lambda: self._apply(got.request_id, got.body)))
        else:
            self._post(Call(lambda: self._refuse(message.topic, f"a {got.kind} on this topic")))

    @property
    def ended(self) -> bool:
        """Either board left the game (``remote leave``) since the joined board last said hello."""
        return ended(self._bye, (self._guest_hello, self._broker.said_hello))

    # --- the service loop's thread ------------------------------------------------------
    def _refuse(self, where: str, reason: str) -> None:
        log.warning("remote: refused a message on %s: %s", where, reason)
        self.refused = [*self.refused, reason][-KEEP_REFUSED:]

    def _apply(self, request_id: str, body: dict[str, Any]) -> None:
        if self._closed:
            return  # came in as the link ended (remote leave while the service runs)
        step = host_step(self.answers.known, request_id, str(body.get("after") or ""))
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
        payload = encode(
            "answer",
            "host",
            game=self.link.game,
            key=self.link.key,
            body=answer,
            request_id=request_id,
            n=self._next_n(),
        )
        self._broker.publish("answer", payload)

    def _run(self, request_id: str, body: dict[str, Any]) -> dict[str, Any]:
        from boardctl.game.commands import OPS
        from boardctl.service.control import parse_request

        op = body.get("op")
        buttons = body.get(FROM_BUTTONS) is True
        fields = {k: v for k, v in body.items() if k not in ("id", FROM_BUTTONS, UNDOES)}
        try:
            if op not in OPS or (op == "set" and body.get("key") in BOARD_KEYS):
                raise RemoteError(f"a joined board may not send {op!r} (only its entries)")
            if op == "undo":  # only the joined board's own last entry, if it is the last
                self._check_undo(body.get(UNDOES))
            request = parse_request(json.dumps(fields))
            track = request.get("track")
            if isinstance(track, int) and track not in self.link.tracks:
                error = EntryError(
                    f"track {track + 1} is the host's: the joined board enters for track "
                    + ", ".join(str(t + 1) for t in self.link.tracks)
                )
                self._flash(request, error)
                raise error
            request["request_id"] = request_id
            result = (self._pressed if buttons else self._handle)(request)
        except BoardError as exc:
            return {"ok": False, "error": str(exc)}
        return {"ok": True, "result": json.loads(json.dumps(result, default=str))}

    def _check_undo(self, undoes: object) -> None:
        """An undo of the joined board takes back its own last entry (``undoes``, its request
        id), and only while that entry is the journal's last event: else it is refused."""
        if not isinstance(undoes, str) or not self._last_is(undoes):
            error = EntryError(
                "the last entry is not the joined board's own: undo it on the host's board"
            )
            self._flash({"op": "undo"}, error)
            raise error

    def _watched(self, line: bytes) -> None:
        message = json.loads(line)
        if "event" in message:  # an entry journalled: the joined board speaks it
            self._event = {"event": message["event"], "seq": message.get("seq")}
        if "state" in message:
            self._publish(message["state"])

    def _publish_now(self) -> None:
        if not self._closed:
            self._publish(self._state())

    def _publish(self, state: dict[str, Any]) -> None:
        status = {k: v for k, v in state.get("status", {}).items() if k != "remote"}
        body = {**state, "status": status, **self._event, "clock": self._clock()}
        body["joined_tracks"] = list(self.link.tracks)  # whose tracks the joined board enters
        body = json.loads(json.dumps(body, default=str))
        payload = encode(
            "state", "host", game=self.link.game, key=self.link.key, body=body, n=self._next_n()
        )
        self._broker.publish("state", payload, retain=True)
        finished = self._finished()
        if finished is not None and finished != self._games_seq:
            self._games_seq = finished
            self._publish_games()

    def _publish_games(self) -> None:
        """The linked game's finished games, signed and retained: the joined board's copy."""
        games = self._games()
        if games is None:
            return
        payload = encode("result", "host", game=self.link.game, key=self.link.key, body=games)
        if payload != self._result:
            self._result = payload
            self._broker.publish("result", payload, retain=True)

    def _next_n(self) -> int:
        self._n = now_n(self._n)
        return self._n

    def close(self) -> None:
        self._closed = True
        self._watch.unsubscribe(WATCH_KEY)
        self._broker.close()
        self.answers.close()
