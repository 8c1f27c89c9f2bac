"""Every board's results from the broker: the retained result topics, read once or followed.

After subscribing to ``<prefix>/+/results/+`` the collector publishes a marker
on a topic of its own and waits for it to come back: the broker sends the
retained messages of a subscription before anything published after it, so
when the marker arrives every retained result is in.

A follower rebuilds its view after every (re)connection: the retained set
that arrives then replaces what it held, so a result withdrawn while it was
away (a withdrawal is an empty retained message, which the broker does not
keep) is gone from its view too. What it holds are the messages as sent;
:mod:`.verify` decides which of them count.
"""

from __future__ import annotations

import queue
import secrets
from collections.abc import Callable
from typing import Any

from boardctl.config import MqttConfig
from boardctl.mqtt import topics
from boardctl.mqtt.broker import connect, make_client, unreachable
from boardctl.standings.errors import StandingsError
from boardctl.standings.verify import MAX_PAYLOAD

Messages = dict[tuple[str, str], bytes]  # (board, game id) -> the retained payload


def collect(
    config: MqttConfig,
    *,
    timeout: float = 10.0,
    follow: Callable[[Messages], bool] | None = None,
) -> Messages:
    """Every retained result on the broker (an empty payload withdraws one).

    With ``follow``, keeps listening after the retained ones are in and calls
    ``follow(messages)`` after each change, and after each reconnection once
    the retained set is in again, until it returns False.
    """
    client = make_client(config, f"boardctl-standings-{secrets.token_hex(3)}")
    events: queue.SimpleQueue[tuple[str, Any, bytes]] = queue.SimpleQueue()
    client.on_connect = lambda c, u, f, rc, p: events.put(("connect", rc, b""))
    client.on_subscribe = lambda c, u, mid, rcs, p: events.put(("suback", rcs, b""))
    client.on_message = lambda c, u, m: events.put(("message", m.topic, bytes(m.payload)))
    connect(client, config)
    client.loop_start()
    held: Messages = {}  # the view: complete once the first marker is back
    building: Messages | None = None  # the retained set arriving after a (re)connection
    marker = ""
    synced = False
    try:
        while True:
            try:
                kind, topic, payload = events.get(timeout=None if synced else timeout)
            except queue.Empty:
                raise StandingsError(
                    f"the broker {config.host} sent no complete answer within {timeout} s"
                ) from None
            if kind == "connect":
                if getattr(topic, "is_failure", False):
                    if not synced:
                        raise unreachable(config, f"it refused the connection: {topic}")
                    continue
                marker = topics.sync(config.prefix, "_standings", secrets.token_hex(8))
                building = {}
                client.subscribe([(topics.results(config.prefix), 1), (marker, 1)])
            elif kind == "suback":
                if any(getattr(code, "is_failure", False) for code in topic):
                    raise StandingsError(f"the broker {config.host} refused the subscription")
                client.publish(marker, b"", qos=1)
            elif topic == marker:
                if building is None:
                    continue
                changed = not synced or building != held
                held, building, synced = building, None, True
                if follow is None:
                    return held
                if changed and not follow(dict(held)):
                    return held
            elif (parsed := topics.parse_result(config.prefix, topic)) is not None:
                target = held if building is None else building
                before = target.get(parsed)
                if payload:  # one too large is kept only as long as it takes to say so
                    target[parsed] = payload[: MAX_PAYLOAD + 1]
                else:
                    target.pop(parsed, None)
                if (
                    building is None
                    and synced
                    and follow is not None
                    and before != target.get(parsed)
                    and not follow(dict(held))
                ):
                    return held
    finally:
        client.disconnect()
        client.loop_stop()
