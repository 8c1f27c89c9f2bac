"""``boardctl mqtt decommission``: take a board off the broker (its retained messages cleared)."""

from __future__ import annotations

import queue
import secrets
from typing import Any

from boardctl.config import MAX_TRACKS, MqttConfig
from boardctl.mqtt import discovery, topics
from boardctl.mqtt.connection import connect, make_client, unreachable


def decommission(config: MqttConfig, board: str, *, results: bool = False) -> int:
    """Remove the board from the broker: discovery, state, availability (and results); the
    number of retained messages cleared, :class:`MqttError` if the broker does not answer."""
    client = make_client(config, f"boardctl-{board}-retire-{secrets.token_hex(3)}")
    events: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    marker = topics.sync(config.prefix, board, secrets.token_hex(8))
    client.on_connect = lambda c, u, f, rc, p: events.put(("connect", rc))
    client.on_subscribe = lambda c, u, mid, rcs, p: events.put(("suback", rcs))
    client.on_message = lambda c, u, m: events.put(("message", (m.topic, bytes(m.payload))))
    connect(client, config)
    client.loop_start()
    result_topics: set[str] = set()
    try:
        _until(events, config, "connect", result_topics)
        if results:
            client.subscribe([(topics.own_results(config.prefix, board), 1), (marker, 1)])
            _until(events, config, "suback", result_topics)
            client.publish(marker, b"", qos=1)
            _until(events, config, marker, result_topics)  # every retained result is in
        disc = discovery.Discovery(board, config.prefix, config.discovery_prefix)
        wanted = [
            *disc.messages(MAX_TRACKS),  # the config topics
            topics.state(config.prefix, board),
            topics.availability(config.prefix, board),
            *sorted(result_topics),
        ]
        infos = [client.publish(topic, b"", qos=1, retain=True) for topic in wanted]
        for info in infos:
            info.wait_for_publish(timeout=DECOMMISSION_WAIT)
            if not info.is_published():
                raise unreachable(config, "it did not acknowledge the removals")
    finally:
        client.disconnect()
        client.loop_stop()
    return len(wanted)


DECOMMISSION_WAIT = 10.0  # seconds for each answer of the broker


def _until(
    events: queue.SimpleQueue[tuple[str, Any]], config: MqttConfig, wanted: str, found: set[str]
) -> None:
    """Wait for the ``wanted`` event (or the message on that topic); results seen are filed."""
    while True:
        try:
            kind, value = events.get(timeout=DECOMMISSION_WAIT)
        except queue.Empty:
            raise unreachable(config, f"no answer within {DECOMMISSION_WAIT:.0f} s") from None
        if kind == "connect" and getattr(value, "is_failure", False):
            raise unreachable(config, f"it refused the connection: {value}")
        if kind == "message":
            topic, payload = value
            if topic == wanted:
                return
            if payload:
                found.add(topic)
        elif kind == wanted:
            return
