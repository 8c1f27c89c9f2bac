"""Every board's results from the broker: the retained result topics, read once or followed.

After subscribing to ``<prefix>/+/results/+`` the collector publishes a marker
on a topic of its own and waits for it to come back: the broker sends the
retained messages of a subscription before anything published after it, so
when the marker arrives every retained result is in.
"""

from __future__ import annotations

import json
import queue
import secrets
import threading
from collections.abc import Callable
from typing import Any

from boardctl.config import MqttConfig
from boardctl.mqtt import topics
from boardctl.mqtt.broker import make_client, port
from boardctl.standings.errors import StandingsError

Results = dict[tuple[str, str], dict[str, Any]]  # (board, game id) -> record


def collect(
    config: MqttConfig,
    *,
    timeout: float = 10.0,
    follow: Callable[[Results], bool] | None = None,
) -> Results:
    """Every retained result on the broker (an empty payload withdraws one).

    With ``follow``, keeps listening after the retained ones are in and calls
    ``follow(results)`` after each change until it returns False.
    """
    token = secrets.token_hex(8)
    marker = topics.sync(config.prefix, "_standings", token)
    client = make_client(config, f"boardctl-standings-{token[:6]}")
    events: queue.SimpleQueue[tuple[str, str, bytes]] = queue.SimpleQueue()
    client.on_connect = lambda c, u, f, rc, p: events.put(("connect", str(rc), b""))
    client.on_subscribe = lambda c, u, mid, rcs, p: events.put(("suback", "", b""))
    client.on_message = lambda c, u, m: events.put(("message", m.topic, bytes(m.payload)))
    try:
        client.connect(config.host, port(config), config.keepalive)
    except OSError as exc:
        raise StandingsError(
            f"cannot reach the MQTT broker {config.host}:{port(config)} ({exc})"
        ) from None
    client.loop_start()
    results: Results = {}
    synced = threading.Event()
    try:
        while True:
            try:
                kind, topic, payload = events.get(timeout=None if synced.is_set() else timeout)
            except queue.Empty:
                raise StandingsError(
                    f"the broker {config.host} sent no complete answer within {timeout} s"
                ) from None
            if kind == "connect":
                client.subscribe([(topics.results(config.prefix), 1), (marker, 1)])
            elif kind == "suback":
                client.publish(marker, b"", qos=1)
            elif topic == marker:
                synced.set()
                if follow is None or not follow(results):
                    return results
            elif (
                _take(config.prefix, topic, payload, results)
                and synced.is_set()
                and follow is not None
                and not follow(results)
            ):
                return results
    finally:
        client.disconnect()
        client.loop_stop()


def _take(prefix: str, topic: str, payload: bytes, results: Results) -> bool:
    """File one result message; True if the results changed."""
    parsed = topics.parse_result(prefix, topic)
    if parsed is None:
        return False
    if not payload:
        return results.pop(parsed, None) is not None
    try:
        record = json.loads(payload)
    except ValueError:
        return False
    if not isinstance(record, dict) or results.get(parsed) == record:
        return False
    record.setdefault("board", parsed[0])
    record.setdefault("id", parsed[1])
    results[parsed] = record
    return True
