"""The joined board's side of a link: its commands out until answered, the host's board in.

:meth:`GuestLink.submit` keeps a command in the outbox
(:class:`boardctl.remote.store.Outbox`, durable) with the request id made
there and then, and sends it. Every command the host has not answered is sent
again, with the same id, on every (re)connection and every
:data:`RESEND_EVERY` seconds until its answer comes; the host applies an id
once and answers a repeat with its first answer, so nothing is lost or
doubled across a broker restart, a dropped network or a restart of either
board. The host's board (its ``state`` messages, signed, retained) is kept as
it comes, newest only (a message older than the one held is dropped), and
passed to :attr:`GuestLink.on_state`. Messages not signed with the link key,
for another game or from the wrong side are refused and logged.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from boardctl.board.viewjson import view_from_dict
from boardctl.config import MqttConfig
from boardctl.remote.pairing import Pairing
from boardctl.remote.protocol import RemoteError, decode, encode, topic
from boardctl.remote.store import Outbox
from boardctl.view import BoardView

log = logging.getLogger(__name__)

RESEND_EVERY = 2.0  # seconds between resends of an unanswered command while connected


def host_view(state: dict[str, Any]) -> BoardView:
    """The board the host shows, from its ``state`` message (what the joined board lights)."""
    return view_from_dict(state.get("view"), source="the host's state")


class GuestLink:
    """The joined board's link (see the module); :meth:`close` ends it."""

    def __init__(self, link: Pairing, mqtt: MqttConfig, outbox: Outbox) -> None:
        from boardctl.mqtt.broker import make_client, port

        self.link = link
        self.outbox = outbox
        self.state: dict[str, Any] | None = None  # the host's board, as last received
        self.refused: list[str] = []
        self.connected = False
        self.on_state: Callable[[dict[str, Any]], None] = lambda state: None
        self.on_answer: Callable[[str, dict[str, Any]], None] = lambda rid, answer: None
        self._n = -1  # the counter of the state held
        self._topics = {
            kind: topic(mqtt.prefix, link.game, kind) for kind in ("cmd", "answer", "state", "bye")
        }
        self._stop = threading.Event()
        self._client = make_client(mqtt, f"boardctl-guest-{link.game}")
        self._client.on_connect = self._connected
        self._client.on_disconnect = self._disconnected
        self._client.on_message = self._received
        self._client.connect_async(mqtt.host, port(mqtt), mqtt.keepalive)
        self._client.loop_start()
        self._resender = threading.Thread(target=self._resend, name="remote-resend", daemon=True)
        self._resender.start()

    def submit(self, request: dict[str, Any], request_id: str | None = None) -> str:
        """Keep ``request`` durably, then send it; returns its request id."""
        rid = self.outbox.add(request, request_id)
        self._send(rid, request)
        return rid

    def _send(self, rid: str, request: dict[str, Any]) -> None:
        payload = encode(
            "cmd", "guest", game=self.link.game, key=self.link.key, body=request, request_id=rid
        )
        self._client.publish(self._topics["cmd"], payload, qos=1)

    def _send_pending(self) -> None:
        for rid, request in self.outbox.pending():
            self._send(rid, request)

    def _resend(self) -> None:
        while not self._stop.wait(RESEND_EVERY):
            if self.connected:
                self._send_pending()

    # --- the paho thread ----------------------------------------------------------
    def _connected(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            log.error("remote: the broker refused the link: %s", reason)
            return
        self.connected = True
        client.subscribe(
            [(self._topics["answer"], 1), (self._topics["state"], 1), (self._topics["bye"], 1)]
        )
        self._send_pending()

    def _disconnected(self, client: Any, userdata: Any, flags: Any, reason: Any, p: Any) -> None:
        self.connected = False

    def _received(self, client: Any, userdata: Any, message: Any) -> None:
        if message.topic == self._topics["bye"] and not message.payload:
            return
        try:
            got = decode(message.payload, key=self.link.key, game=self.link.game, sender="host")
        except RemoteError as exc:
            self._refuse(message.topic, str(exc))
            return
        kind = message.topic.rsplit("/", 1)[-1]
        if got.kind != kind:
            self._refuse(message.topic, f"a {got.kind} on this topic")
        elif kind == "answer":
            if self.outbox.answered(got.request_id, got.body):
                self.on_answer(got.request_id, got.body)
        elif kind == "state" and got.n > self._n:
            self._n, self.state = got.n, got.body
            self.on_state(got.body)
        elif kind == "bye":
            log.warning("remote: the host ended the link")

    def _refuse(self, where: str, reason: str) -> None:
        log.warning("remote: refused a message on %s: %s", where, reason)
        self.refused.append(reason)

    def close(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        self._resender.join()
        self._client.disconnect()
        self._client.loop_stop()
        self.outbox.close()
