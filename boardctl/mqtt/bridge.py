"""``boardctl mqtt``: the board's state and results on the broker, from the journal.

The watcher thread (the control socket's status) and paho's network thread only put events
on one queue; :meth:`Bridge.run`'s loop owns all the data, with no lock. What it does on every
(re)connection: docs/mqtt.md, "Nothing lost while the broker is away".
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from boardctl.config import MAX_TRACKS, MqttConfig
from boardctl.errors import BoardError
from boardctl.mqtt import discovery, retention, topics
from boardctl.mqtt.acks import Acks
from boardctl.mqtt.board_watch import watch
from boardctl.mqtt.connection import make_client, port
from boardctl.mqtt.result_feed import ResultFeed, digest
from boardctl.results.sign import KEY_FILE, key_beside
from boardctl.service.client import ServiceDown

log = logging.getLogger(__name__)

HA_STATUS = "homeassistant/status"
TICK = 1.0  # seconds: the journal is read at least this often, whatever the socket says
MAX_CORRECTIONS = 5  # live corrections of one game's topic per connection


@dataclass(frozen=True, slots=True)
class Paths:
    """Where the bridge finds the board and keeps its acknowledgements."""

    socket: Path
    journal: Path
    acks: Path


def board_key(paths: Paths) -> bytes | None:
    """The key that signs the results, if the board has one (an unreadable one is logged)."""
    try:
        key = key_beside(paths.journal)
    except BoardError as exc:
        log.error("results go out unsigned: %s", exc)
        return None
    if key is None:
        where = paths.journal.parent / KEY_FILE
        log.warning("no board key (%s): results go out unsigned (boardctl key init)", where)
    return key


class Bridge:
    """One board's bridge to one broker."""

    def __init__(
        self,
        config: MqttConfig,
        paths: Paths,
        board: str,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.paths = paths
        self.board = board
        self.prefix = config.prefix
        self._events: queue.SimpleQueue[partial[None]] = queue.SimpleQueue()  # calls to make
        self._stop = threading.Event()
        self._key = board_key(paths)
        self._feed = ResultFeed(paths.journal, board, self._key)
        self._acks = Acks(paths.acks)  # by slot (<event>/<game>; an old topic's: the game id)
        self._clock = clock
        self._closed: set[str] = set()  # events the director closed
        self._today = ""
        self._slots: dict[str, tuple[dict[str, Any], str]] = {}  # the journal's kept results
        self._inflight: dict[int, tuple[str, str | None]] = {}  # mid -> (slot, digest)
        self._status: dict[str, Any] | None = None
        self._service_up: bool | None = None
        self._connected = False
        self._tracks = 0  # tracks the discovery messages were sent for
        self._sync_topic = ""  # the read-back's marker on this connection
        self._sub_mid: int | None = None
        self._on_broker: dict[str, str | None] = {}  # read back after a connection
        self._synced = False  # the broker's retained results were read back on this connection
        self._corrected: dict[str, int] = {}  # live corrections per game on this connection
        # the digest our last publish at a slot comes back with: what the broker sends before
        # it is older than that publish (which replaces it); what comes after is newer
        self._echo: dict[str, str | None] = {}
        self._acked_now: set[str] = set()  # acknowledged during this connection
        self._discovery = discovery.Discovery(board, config)
        self.client = make_client(config, f"boardctl-{board}-{secrets.token_hex(3)}")
        self.client.will_set(
            topics.availability(self.prefix, board), topics.OFFLINE, qos=1, retain=True
        )
        put = self._events.put
        self.client.on_connect = lambda c, u, f, rc, p: put(partial(self._on_connect, rc))
        self.client.on_disconnect = lambda c, u, f, rc, p: put(partial(self._on_disconnect, rc))
        self.client.on_publish = lambda c, u, mid, rc, p: put(partial(self._on_ack, mid))
        self.client.on_subscribe = lambda c, u, mid, rcs, p: put(partial(self._on_suback, mid))
        self.client.on_message = lambda c, u, msg: put(
            partial(self._on_message, msg.topic, bytes(msg.payload))
        )

    def run(self) -> None:
        """Connect and bridge until :meth:`stop`; leave "offline" on the broker."""
        self.client.connect_async(self.config.host, port(self.config), self.config.keepalive)
        self.client.loop_start()
        watcher = threading.Thread(target=self._watch, name="boardctl-mqtt-watch", daemon=True)
        watcher.start()
        try:
            while not self._stop.is_set():
                try:
                    event = self._events.get(timeout=TICK)
                except queue.Empty:
                    self._results()
                    continue
                event()
                with contextlib.suppress(queue.Empty):
                    while not self._stop.is_set():  # the whole batch, then one save
                        self._events.get_nowait()()
                self._acks.flush()
        finally:
            self._leave()
            self._acks.flush()
            watcher.join(timeout=2)
            self._feed.close()

    def stop(self) -> None:
        self._stop.set()
        self._events.put(partial(self._stop.set))  # (wakes the loop)

    def _leave(self) -> None:
        if self._connected:
            info = self.client.publish(
                topics.availability(self.prefix, self.board), topics.OFFLINE, qos=1, retain=True
            )
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(timeout=2)
            # acknowledgements that came in before that one: remember them
            with contextlib.suppress(queue.Empty):
                while True:
                    event = self._events.get_nowait()
                    if event.func == self._on_ack:
                        event()
        self.client.disconnect()
        self.client.loop_stop()

    def _watch(self) -> None:
        """The watcher thread: statuses onto the queue; a service that is down, retried."""
        while not self._stop.is_set():
            try:
                for status in watch(self.paths.socket, self._stop):
                    self._events.put(partial(self._on_status, status))
            except BoardError as exc:
                if not isinstance(exc, ServiceDown):
                    log.warning("control socket: %s", exc)
                self._events.put(partial(self._on_down, str(exc)))
            self._stop.wait(1.0)

    def _on_status(self, status: dict[str, Any]) -> None:
        previous, self._status = self._status, status
        if self._service_up is not True:
            self._service_up = True
            self._availability()
        self._publish_state()
        if previous is not None:
            event = topics.event(self.prefix, self.board)
            for message in discovery.game_events(previous, status):
                self._publish(event, discovery.encode(message), qos=1)
        if len(status.get("tracks") or []) != self._tracks:
            self._announce()
        if previous is None or previous.get("seq") != status.get("seq"):
            self._results()

    def _on_down(self, reason: str) -> None:
        if self._service_up is not False:
            log.warning("%s", reason)
            self._service_up = False
            self._availability()
        self._results()  # the CLI may write the journal while the service is down

    def _availability(self) -> None:
        state = topics.OFFLINE if self._service_up is False else topics.ONLINE
        self._publish(topics.availability(self.prefix, self.board), state, qos=1, retain=True)

    def _publish_state(self) -> None:
        if self._status is not None:
            state = discovery.encode(self._status)
            self._publish(topics.state(self.prefix, self.board), state, qos=0, retain=True)

    def _announce(self) -> None:
        """Home Assistant discovery for the current number of tracks (and removal of others)."""
        if not self.config.discovery or not self._connected or self._status is None:
            return
        tracks = len(self._status.get("tracks") or [])
        messages = self._discovery.messages(tracks)
        for topic in self._discovery.messages(MAX_TRACKS):
            if topic not in messages:
                self._publish(topic, b"", qos=1, retain=True)
        for topic, payload in messages.items():
            self._publish(topic, discovery.encode(payload), qos=1, retain=True)
        self._tracks = tracks

    def _read(self) -> bool | None:
        """Read the journal's new events into the feed (the games whose event the broker
        keeps); True if its results changed, None if it cannot be read (logged)."""
        try:
            since = retention.oldest_kept(self._clock(), self.config.keep_days)
            return self._feed.refresh(since)
        except BoardError as exc:
            log.error("journal: %s", exc)
            return None

    def _results(self) -> None:
        """Read new journal events; publish every result the broker does not have yet, and
        withdraw what it has that the journal does not (an undone win, an event gone)."""
        changed = self._read()
        if changed is None:
            return
        now = retention.today(self._clock(), self.config.day_starts)
        if changed or now != self._today:
            self._sort_slots(now)
        if not self._connected or not self._synced:
            return  # the read-back (on connection) publishes what the broker lacks
        inflight = self._inflight_slots()
        acked = self._acks.digests if self._feed.read else {}  # withdrawals: never on a guess
        for slot in dict.fromkeys([*self._slots, *acked]):
            record, value = self._want(slot)
            if self._acks.digests.get(slot) != value and slot not in inflight:
                self._publish_result(slot, record, value)

    def _sort_slots(self, now: str) -> None:
        """The journal's results under their events, those the broker keeps."""
        self._today = now
        self._slots = {}
        for game, record in self._feed.results.items():
            event = retention.event_of(str(record["end"]), self.config.day_starts)
            if self._kept(event):
                self._slots[topics.slot(event, game)] = (record, digest(record))

    def _kept(self, event: str) -> bool:
        return event not in self._closed and retention.kept(
            event, self._today, self.config.keep_days
        )

    def _want(self, slot: str) -> tuple[dict[str, Any] | None, str | None]:
        """What the broker should hold at ``slot`` and its digest: the journal's result, else a
        withdrawal while the event is kept; None, None for a closed, expired or old one."""
        if slot in self._slots:
            return self._slots[slot]
        event, _, game = slot.rpartition("/")
        if event and self._kept(event):
            record = retention.withdrawal(self.board, game, self._key)
            return record, digest(record)
        return None, None

    def _publish_result(self, slot: str, record: dict[str, Any] | None, value: str | None) -> None:
        payload = b"" if record is None else discovery.encode(record)
        mid = self._publish(topics.result(self.prefix, self.board, slot), payload, 1, True)
        if mid is not None:
            self._inflight[mid] = (slot, value)
            self._echo[slot] = value

    def _inflight_slots(self) -> set[str]:
        return {slot for slot, _ in self._inflight.values()}

    def _on_ack(self, mid: int) -> None:
        done = self._inflight.pop(mid, None)
        if done is not None:
            slot, value = done
            self._acks.acknowledged(slot, value)
            self._acked_now.add(slot)
            if self._want(slot)[1] != value:
                self._results()  # it changed while in flight (final now): send the new one

    def _on_connect(self, reason: Any) -> None:
        if getattr(reason, "is_failure", False):
            log.error("broker refused the connection: %s", reason)
            return
        log.info("connected to %s:%s", self.config.host, port(self.config))
        self._connected = True
        self._inflight.clear()
        self._acked_now.clear()
        self._tracks = 0
        self._availability()
        self._publish_state()
        self._announce()
        # read back what the broker holds, and the events the director closed (see the module)
        self._on_broker = {}
        self._synced = False
        self._corrected = {}
        self._echo = {}
        self._sync_topic = topics.sync(self.prefix, self.board, secrets.token_hex(8))
        _, self._sub_mid = self.client.subscribe(
            [
                (topics.own_results(self.prefix, self.board), 1),
                (topics.closed(self.prefix), 1),
                (self._sync_topic, 1),
                (HA_STATUS, 1),
            ]
        )

    def _on_disconnect(self, reason: Any) -> None:
        self._connected = False
        self._inflight.clear()
        log.info("broker connection lost (%s); reconnecting", reason)

    def _on_suback(self, mid: int) -> None:
        if mid == self._sub_mid:  # the read-back's marker goes after the retained results
            self._publish(self._sync_topic, b"", qos=1)

    def _on_message(self, topic: str, payload: bytes) -> None:
        if topic == HA_STATUS:
            if payload.strip().lower() == b"online":
                self._tracks = 0
                self._announce()
                self._publish_state()
            return
        if topic == self._sync_topic:
            self._reconcile()
            return
        event = topics.parse_closed(self.prefix, topic)
        if event is not None:
            if payload and event not in self._closed:
                self._closed.add(event)  # its results are the director's archive's now
                self._sort_slots(self._today)
                self._results()
            return
        parsed = topics.parse_result(self.prefix, topic)
        if parsed is None or parsed[0] != self.board:
            return
        slot = parsed[1]
        value = _payload_digest(payload)
        if not self._synced:
            self._on_broker[slot] = value
            return
        # after the read-back, every change under our topics is checked at once (but _echo's)
        if slot in self._echo:
            if value == self._echo[slot]:
                del self._echo[slot]
            return
        record, wanted = self._want(slot)
        if value == wanted:
            return
        if slot not in self._slots and not self._feed.read:
            return  # the journal cannot be read now: never withdraw on a guess
        self._corrected[slot] = self._corrected.get(slot, 0) + 1
        if self._corrected[slot] > MAX_CORRECTIONS:  # not a fight without end
            if self._corrected[slot] == MAX_CORRECTIONS + 1:
                log.error(
                    "another client keeps writing %s: does another board use the id %s? "
                    "(left alone until the next connection)",
                    topic,
                    self.board,
                )
            return
        if slot in self._slots:
            log.warning("republishing %s: the broker held another payload", topic)
        else:
            log.warning("withdrawing %s: the journal holds no such result now", topic)
        self._publish_result(slot, record, wanted)

    def _reconcile(self) -> None:
        """The broker's retained results are all in: make them the journal's (republish what
        it lacks or holds otherwise, withdraw what the journal does not hold)."""
        self._synced = True
        self._read()  # the journal as it is now (a bridge just started may not have read it)
        self._sort_slots(retention.today(self._clock(), self.config.day_starts))
        inflight = self._inflight_slots()
        for slot, (record, value) in self._slots.items():
            if self._on_broker.get(slot) == value:
                self._acks.acknowledged(slot, value)
            elif slot not in inflight and not (
                slot in self._acked_now and self._acks.digests.get(slot) == value
            ):
                self._publish_result(slot, record, value)
        if not self._feed.read:  # no journal, or a damaged one: never withdraw on a guess
            log.warning(
                "the journal cannot be read: results it may not hold are left on the broker"
            )
            self._on_broker = {}
            return
        # withdrawals: what the broker holds (or held, for a central broker
        # behind a mosquitto bridge) that the journal does not, or not under that event
        for slot in {*self._on_broker, *self._acks.digests} - self._slots.keys() - inflight:
            held = self._on_broker.get(slot)
            wanted, now = self._want(slot)
            if held != now:
                if slot in self._on_broker:
                    log.warning("withdrawing result %s: the journal holds no such result", slot)
                self._publish_result(slot, wanted, now)
            else:
                self._acks.acknowledged(slot, now)
        self._on_broker = {}

    def _publish(
        self, topic: str, payload: bytes | str, qos: int, retain: bool = False
    ) -> int | None:
        """Publish if connected; the message id, or None when not sent."""
        if not self._connected:
            return None
        info = self.client.publish(topic, payload, qos=qos, retain=retain)
        return int(info.mid) if info.rc == 0 else None


def _payload_digest(payload: bytes) -> str | None:
    """The digest of a retained payload (None: empty, a withdrawal; "?": not a record)."""
    if not payload:
        return None
    try:
        record = json.loads(payload)
    except ValueError:
        return "?"
    return digest(record) if isinstance(record, dict) else "?"
