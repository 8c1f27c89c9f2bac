"""Every board's results from the broker: the retained result topics, read once or followed. A
marker published on a topic of its own marks the end of the retained messages; a follower
rebuilds its view after every (re)connection, so withdrawals made while away are gone too."""

from __future__ import annotations

import queue
import secrets
from collections.abc import Callable, Sequence

from boardctl.config import MqttConfig
from boardctl.mqtt import topics
from boardctl.mqtt.connection import session, unreachable
from boardctl.mqtt.retention import is_withdrawal
from boardctl.standings import StandingsError
from boardctl.standings.verify import MAX_PAYLOAD

Messages = dict[tuple[str, str], bytes]  # (board, <event>/<game id>) -> the retained payload


def collect(
    config: MqttConfig,
    *,
    timeout: float = 10.0,
    follow: Callable[[Messages], bool] | None = None,
    only: Sequence[str] = (),
    withdrawals: bool = False,
) -> Messages:
    """Every retained result of the events ``only`` (none: every event) on the broker, without the
    withdrawn (``withdrawals`` keeps their records); with ``follow``, calls ``follow(messages)``
    after each change and each reconnection's retained set, until it returns False."""
    held: Messages = {}  # the view: complete once the first marker is back
    building: Messages | None = None  # the retained set arriving after a (re)connection
    marker = ""
    synced = False
    with session(config, f"boardctl-standings-{secrets.token_hex(3)}") as (client, events):
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
                wanted = [(topics.results(config.prefix, event=e), 1) for e in only or ["+"]]
                client.subscribe([*wanted, (marker, 1)])
            elif kind == "suback":
                if any(getattr(code, "is_failure", False) for code in topic):
                    raise StandingsError(f"the broker {config.host} refused the subscription")
                client.publish(marker, b"", qos=1)
            elif topic == marker and building is not None:
                changed = not synced or building != held
                held, building, synced = building, None, True
                if follow is None or (changed and not follow(dict(held))):
                    return held
            elif (parsed := topics.parse_result(config.prefix, topic)) and "/" in parsed[1]:
                # (a slot without "/": an old topic without an event, docs/mqtt.md: upgrading)
                target = held if building is None else building
                before = target.get(parsed)
                if (withdrawals and payload) or not is_withdrawal(payload):
                    target[parsed] = payload[: MAX_PAYLOAD + 1]  # one too large: kept until said so
                else:
                    target.pop(parsed, None)  # withdrawn
                if (
                    building is None
                    and synced
                    and follow is not None
                    and before != target.get(parsed)
                    and not follow(dict(held))
                ):
                    return held
