"""The topic tree of docs/mqtt.md, "Topics", one function per topic. A result's *slot* is
``<event>/<game>``, or an old topic's game id alone (before events)."""

from __future__ import annotations

from boardctl.mqtt import MqttError

ONLINE = "online"
OFFLINE = "offline"


def check_level(name: str) -> str:
    """``name`` if it can be a board id (one topic level), else :class:`MqttError` saying why."""
    if not name or name != name.strip() or any(c in name for c in "/+#\0"):
        raise MqttError(
            f"board id {name!r} cannot be an MQTT topic level (no '/', '+', '#', no spaces "
            "at the ends); set [mqtt] board_id"
        )
    return name


def availability(prefix: str, board: str) -> str:
    return f"{prefix}/{board}/availability"


def state(prefix: str, board: str) -> str:
    return f"{prefix}/{board}/state"


def event(prefix: str, board: str) -> str:
    return f"{prefix}/{board}/event"


def slot(event: str, game: str) -> str:
    return f"{event}/{game}"


def result(prefix: str, board: str, slot: str) -> str:
    """The topic of one result: ``slot`` is ``<event>/<game>`` (or an old topic's game id)."""
    return f"{prefix}/{board}/results/{slot}"


def results(prefix: str, board: str = "+", event: str = "+") -> str:
    """The filter for one event's (``event="+"``: every event's) results of a board or all."""
    return f"{prefix}/{board}/results/{event}/+"


def own_results(prefix: str, board: str) -> str:
    """Every result topic of one board, old ones included (its bridge's read-back)."""
    return f"{prefix}/{board}/results/#"


def closed(prefix: str, event: str = "+") -> str:
    """The director's retained mark that ``event`` is closed (``+``: the filter for all)."""
    return f"{prefix}/_standings/closed/{event}"


def sync(prefix: str, board: str, token: str) -> str:
    return f"{prefix}/{board}/sync/{token}"


def parse_result(prefix: str, topic: str) -> tuple[str, str] | None:
    """``(board, slot)`` of a result topic (an old one's slot is its game id), else None."""
    parts = topic.split("/")
    if len(parts) in (4, 5) and parts[0] == prefix and parts[2] == "results":
        return parts[1], "/".join(parts[3:])
    return None


def parse_closed(prefix: str, topic: str) -> str | None:
    """The event of a closed mark's topic, else None."""
    parts = topic.split("/")
    if len(parts) == 4 and parts[0] == prefix and parts[1:3] == ["_standings", "closed"]:
        return parts[3]
    return None
