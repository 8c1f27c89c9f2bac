"""One side's connection to the broker: its client, both sides' presence (a retained ``hello``,
emptied by the last will) and its topics (docs/remote.md, 'What crosses the network')."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from typing import Any

from boardctl.config import MqttConfig
from boardctl.remote.alive import Echo
from boardctl.remote.messages import ROLES, SENDERS, Message, RemoteError, decode, encode, topic
from boardctl.remote.paired import Pairing
from boardctl.remote.words import LinkStatus

KINDS = (*(kind for kind in SENDERS if kind != "hello"), *ROLES)  # a hello: on its side's topic
FIRST_TRY, RECONNECT_EVERY = 0.1, 0.5  # seconds: paho's waits before it connects again (doubling)
ECHO_TICK = 0.25  # seconds between looks at the echo
KEEP_REFUSED = 100  # refusals remembered for status (all are logged)

log = logging.getLogger(__name__)


def now_n(after: int = 0) -> int:
    """A message's counter: microseconds of the wall clock, never less than ``after`` + 1."""
    return max(time.time_ns() // 1000, after + 1)


class Connection:
    """``link``'s side over the broker (each side's link is one): a paho client, which
    :meth:`start` connects (and reconnects). What comes is checked (:func:`decode`), then refused
    (logged, kept in :attr:`refused`), kept here (the other side's presence, a bye) or handed to
    :meth:`_message`; :meth:`_changed` hears of each ``"connect"``, ``"disconnect"``, the other
    side's ``"hello"`` or its going (``"gone"``), and a ``"bye"`` (both in paho's thread)."""

    def __init__(self, link: Pairing, mqtt: MqttConfig) -> None:
        from boardctl.mqtt.connection import make_client, port

        self.link, role = link, link.role
        self.connected = False
        self.said_hello = 0  # the counter of this side's last hello
        self.other_online = False  # the other side's hello is on the broker
        self.peer_hello: dict[str, Any] = {}  # what the other side's last hello said
        self.refused: list[str] = []  # why each refused message was refused, latest last
        self._bye = self._other_hello = 0  # the counters of the last bye and the other's hello
        self.topics = {kind: topic(mqtt.prefix, link.game, kind) for kind in KINDS}
        self.echo = Echo()
        self._echo_topic = topic(mqtt.prefix, link.game, f"alive-{role}")
        self._stop = threading.Event()
        self._echoer = threading.Thread(target=self._watch, name=f"remote-echo-{role}", daemon=True)
        self.client = make_client(mqtt, f"boardctl-{role}-{link.game}")
        # a linked game waits for it: soon, then twice a second, not up to every 5 s (the bridge's)
        self.client.reconnect_delay_set(FIRST_TRY, RECONNECT_EVERY)  # type: ignore[arg-type]
        self.client.will_set(self.topics[role], b"", qos=1, retain=True)

        def connected(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
            if not reason.is_failure:  # subscribed before the other side hears hello
                self.connected = True
                theirs = [k for k, who in SENDERS.items() if link.peer in who and k != "hello"]
                kinds = [*theirs, link.peer]  # what the other side sends, and its presence
                client.subscribe([(self._echo_topic, 0), *((self.topics[k], 1) for k in kinds)])
                self._changed("connect")
                self.hello()

        def disconnected(*args: Any) -> None:
            self.connected = False
            self._changed("disconnect")

        def received(client: Any, userdata: Any, message: Any) -> None:
            if message.topic != self._echo_topic:
                self._received(message.topic, bytes(message.payload))
            elif message.payload.isdigit():
                self.echo.echoed(int(message.payload), time.monotonic())

        self.client.on_connect = connected
        self.client.on_disconnect = disconnected
        self.client.on_message = received
        self._address = (mqtt.host, port(mqtt), mqtt.keepalive)

    @property
    def ended(self) -> bool:
        """Whether the link has ended: a ``bye`` newer than every hello either side said since
        (a board that joins again with the same code says hello after)."""
        return self._bye > max(self._other_hello, self.said_hello)

    def _received(self, where: str, payload: bytes) -> None:
        kind, peer = where.rsplit("/", 1)[-1], self.link.peer
        if kind in ("bye", "result", peer) and not payload:
            if kind == peer:  # the other side went away (its last will) or stopped
                self.other_online = False
                self._changed("gone")
            return  # or a bye or result withdrawn
        try:
            sender = None if kind == "bye" else peer  # either side's bye ends the link
            got = decode(payload, key=self.link.key, game=self.link.game, sender=sender)
        except RemoteError as exc:
            self._refuse(where, str(exc))
            return
        if got.kind == "hello" and kind == peer:
            self.other_online, self._other_hello, self.peer_hello = True, got.n, got.body
            self._changed("hello")
        elif got.kind != kind:
            self._refuse(where, f"a {got.kind} on this topic")
        elif kind == "bye":
            self._bye = max(self._bye, got.n)
            if self.ended:
                log.warning("remote: the %s ended the link (remote leave)", got.sender)
            self._changed("bye")
        else:
            self._message(kind, got, payload)

    def link_status(self, **more: Any) -> LinkStatus:
        """This side of the link as it is now (``more``: the side's own fields)."""
        link = self.link
        return LinkStatus(
            link.role, link.game, self.connected, self.other_online, self.ended, **more
        )

    def _message(self, kind: str, got: Message, payload: bytes) -> None:
        """A checked message of the other side's (but its hello and a bye)."""

    def _changed(self, what: str) -> None:
        """A (re)connection, a disconnection, the other side's hello or going, a bye."""

    def _refuse(self, where: str, reason: str) -> None:
        log.warning("remote: refused a message on %s: %s", where, reason)
        self.refused = [*self.refused, reason][-KEEP_REFUSED:]

    def start(self) -> None:
        """Connect in paho's thread (the callbacks may run from now on), reconnecting always."""
        self.client.connect_async(*self._address)
        self.client.loop_start()
        self._echoer.start()

    def _watch(self) -> None:
        """Send the echo, and drop a connection that no longer brings it back."""
        while not self._stop.wait(ECHO_TICK):
            step = self.echo.step(time.monotonic(), self.client.is_connected())
            if step == "send":
                self.client.publish(self._echo_topic, str(self.echo.number).encode(), qos=0)
            elif step == "stalled":
                log.warning(
                    "remote: no echo from the broker for %.1f s: connecting again",
                    self.echo.stalled_after_s(),
                )
                sock = self.client.socket()
                if isinstance(sock, socket.socket):  # paho's loop finds it closed, reconnects
                    with contextlib.suppress(OSError):
                        socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def send(self, kind: str, body: dict[str, Any], *, retain: bool = False, **fields: Any) -> None:
        """Publish a message from this side, signed with the link key (``fields``: its
        ``request_id`` and ``n``), on the topic of its kind (a hello: this side's presence)."""
        link = self.link
        payload = encode(kind, link.role, game=link.game, key=link.key, body=body, **fields)
        where = self.topics[link.role if kind == "hello" else kind]
        self.client.publish(where, payload, qos=1, retain=retain)

    def hello(self) -> None:
        self.said_hello = now_n()
        self.send("hello", self.hello_body(), n=self.said_hello, retain=True)

    def hello_body(self) -> dict[str, Any]:
        """What this side's hello tells the other side."""
        return {}

    def close(self) -> None:
        """Empty this side's presence (a clean goodbye), then disconnect."""
        self._stop.set()
        if self._echoer.is_alive():
            self._echoer.join()
        if self.client.is_connected():
            sent = self.client.publish(self.topics[self.link.role], b"", qos=1, retain=True)
            with contextlib.suppress(RuntimeError, ValueError):
                sent.wait_for_publish(2)
        self.client.disconnect()
        self.client.loop_stop()


def say_bye(link: Pairing, mqtt: MqttConfig) -> None:
    """Tell the other board this side leaves: a signed ``bye``, retained (so a board away now
    is told when it is back). :class:`~boardctl.errors.BoardError` if the broker is not reached."""
    from boardctl.mqtt.connection import session, wait_published

    payload = encode("bye", link.role, game=link.game, key=link.key, body={}, n=now_n())
    with session(mqtt, f"boardctl-{link.role}-bye-{link.game}") as (client, _):
        sent = client.publish(topic(mqtt.prefix, link.game, "bye"), payload, qos=1, retain=True)
        wait_published([sent], mqtt, "the bye")
