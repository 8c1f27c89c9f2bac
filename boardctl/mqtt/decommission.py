"""``boardctl mqtt decommission``: take a board off the broker (its retained messages cleared)."""

from __future__ import annotations

import queue
import secrets

from boardctl.config import MAX_TRACKS, MqttConfig
from boardctl.mqtt import discovery, topics
from boardctl.mqtt.connection import ACK_WAIT, Events, session, unreachable, wait_published


def decommission(config: MqttConfig, board: str, *, results: bool = False) -> int:
    """Remove the board from the broker: discovery, state, availability (and results); the
    number of retained messages cleared, :class:`MqttError` if the broker does not answer."""
    marker = topics.sync(config.prefix, board, secrets.token_hex(8))
    result_topics: set[str] = set()
    client_id = f"boardctl-{board}-retire-{secrets.token_hex(3)}"
    with session(config, client_id) as (client, events):
        _until(events, config, "connect", result_topics)
        if results:
            client.subscribe([(topics.own_results(config.prefix, board), 1), (marker, 1)])
            _until(events, config, "suback", result_topics)
            client.publish(marker, b"", qos=1)
            _until(events, config, marker, result_topics)  # every retained result is in
        disc = discovery.Discovery(board, config)
        wanted = [
            *disc.messages(MAX_TRACKS),  # the config topics
            topics.state(config.prefix, board),
            topics.availability(config.prefix, board),
            *sorted(result_topics),
        ]
        infos = [client.publish(topic, b"", qos=1, retain=True) for topic in wanted]
        wait_published(infos, config, "the removals")
    return len(wanted)


def _until(events: Events, config: MqttConfig, wanted: str, found: set[str]) -> None:
    """Wait for the ``wanted`` event (or the message on that topic); results seen are filed."""
    while True:
        try:
            kind, value, payload = events.get(timeout=ACK_WAIT)
        except queue.Empty:
            raise unreachable(config, f"no answer within {ACK_WAIT:.0f} s") from None
        if kind == "connect" and getattr(value, "is_failure", False):
            raise unreachable(config, f"it refused the connection: {value}")
        if kind == "message":
            if value == wanted:
                return
            if payload:
                found.add(value)
        elif kind == wanted:
            return
