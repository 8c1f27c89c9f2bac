"""The topic tree (docs/mqtt.md), one function per topic.

    <prefix>/<board>/availability        "online" / "offline" (retained; the last will)
    <prefix>/<board>/state               the board's status as JSON (retained)
    <prefix>/<board>/event               game over and skunk events (not retained)
    <prefix>/<board>/results/<game>      one finished game's result (retained, QoS 1)
    <prefix>/<board>/sync/<token>        the bridge's own marker (see Bridge)

``<prefix>`` is ``[mqtt] prefix`` (``boardctl``), ``<board>`` the board id and
``<game>`` the game id (:func:`boardctl.mqtt.records.game_id`).
"""

from __future__ import annotations

from boardctl.mqtt.errors import MqttError

ONLINE = "online"
OFFLINE = "offline"


def check_level(name: str, what: str = "board id") -> str:
    """``name`` if it can be one topic level, else :class:`MqttError` saying why."""
    if not name or name != name.strip() or any(c in name for c in "/+#\0"):
        raise MqttError(
            f"{what} {name!r} cannot be an MQTT topic level (no '/', '+', '#', no spaces "
            "at the ends); set [mqtt] board_id"
        )
    return name


def availability(prefix: str, board: str) -> str:
    return f"{prefix}/{board}/availability"


def state(prefix: str, board: str) -> str:
    return f"{prefix}/{board}/state"


def event(prefix: str, board: str) -> str:
    return f"{prefix}/{board}/event"


def result(prefix: str, board: str, game: str) -> str:
    return f"{prefix}/{board}/results/{game}"


def results(prefix: str, board: str = "+") -> str:
    """The filter for one board's results, or (``board="+"``) every board's."""
    return f"{prefix}/{board}/results/+"


def sync(prefix: str, board: str, token: str) -> str:
    return f"{prefix}/{board}/sync/{token}"


def parse_result(prefix: str, topic: str) -> tuple[str, str] | None:
    """``(board, game)`` of a result topic, else None."""
    parts = topic.split("/")
    if len(parts) == 4 and parts[0] == prefix and parts[2] == "results":
        return parts[1], parts[3]
    return None
