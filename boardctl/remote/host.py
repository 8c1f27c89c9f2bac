"""The hosting board's side of a link: the joined board's commands in, the board out.

Each checked ``cmd`` is handed to the service loop, which

1. answers a request id answered before with that first answer (a resend or a replay applies
   nothing, :class:`boardctl.remote.store.Answers`);
2. leaves a command unanswered while the one made before it (``after``) is not answered: the
   joined board sends that one again first, so entries apply in the order they were made;
3. otherwise runs it through the control socket's own handler with its request id (an entry of
   the joined board's buttons gets its meaning in the phase first, as the host's own);
4. keeps the answer durably, then publishes it.

The board (the ``watch`` stream's ``status`` and ``view``) is published signed and retained at
every change and after every (re)connection.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import Any

from boardctl.config import MqttConfig
from boardctl.errors import BoardError, EntryError
from boardctl.remote.broker import Connection, now_n
from boardctl.remote.pairing import Pairing
from boardctl.remote.protocol import FROM_BUTTONS, UNDOES, Message, RemoteError, host_step
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
        self._post, self._handle, self._state, self._watch = post, handle, state, watch
        self._pressed, self._flash, self._games = pressed, refuse, games
        self._clock, self._last_is, self._finished = clock, last_is, finished
        self.on_end: Callable[[], None] = lambda: None  # the other board left (in paho's thread)
        self._closed = False
        self._n = 0
        self._event: dict[str, Any] = {}  # the last entry journalled, sent with the next state
        self._result = b""  # the finished games last published
        self._games_seq: int | None = None  # the journal's seq they were read at
        self._broker = Connection(
            link,
            mqtt,
            on_connect=lambda: post(Call(self._publish_now)),  # the board as it is now, retained
            on_disconnect=lambda: None,
            on_message=lambda kind, got, payload: self._later(self._apply, got),
            on_refuse=lambda where, why: self._later(self._refuse, where, why),
            on_other=self._guest_changed,
        )
        watch.subscribe(WATCH_KEY, self._watched)
        self._broker.start()

    def status(self) -> LinkStatus:
        """This side of the link, for ``boardctl status``."""
        return LinkStatus(
            role="host",
            game=self.link.game,
            connected=self.connected,
            other_online=self._broker.other_online,
            ended=self.ended,
            tracks=tuple(self.link.tracks),
            forged=len(self.refused),
        )

    # --- the paho thread ----------------------------------------------------------
    def _guest_changed(self, what: str) -> None:
        if what == "bye" and self.ended:
            self.on_end()

    def _later(self, function: Callable[..., None], *args: Any) -> None:
        """Run ``function(*args)`` in the service loop's thread."""
        self._post(Call(functools.partial(function, *args)))

    @property
    def connected(self) -> bool:
        return self._broker.connected

    @property
    def ended(self) -> bool:
        """Either board left the game (``remote leave``) since the joined board last said hello."""
        return self._broker.ended

    # --- the service loop's thread ------------------------------------------------------
    def _refuse(self, where: str, reason: str) -> None:
        log.warning("remote: refused a message on %s: %s", where, reason)
        self.refused = [*self.refused, reason][-KEEP_REFUSED:]

    def _apply(self, got: Message) -> None:
        request_id, body = got.request_id, got.body
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
        payload = self._broker.sign("answer", answer, request_id=request_id, n=self._next_n())
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
        self._broker.publish(
            "state", self._broker.sign("state", body, n=self._next_n()), retain=True
        )
        finished = self._finished()
        if finished is not None and finished != self._games_seq:
            self._games_seq = finished
            self._publish_games()

    def _publish_games(self) -> None:
        """The linked game's finished games, signed and retained: the joined board's copy."""
        games = self._games()
        if games is None:
            return
        payload = self._broker.sign("result", games)
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
