"""Home Assistant MQTT discovery: one retained config message per entity, in Home Assistant's
abbreviations (docs/mqtt.md, "Home Assistant")."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from boardctl import __version__
from boardctl.config import MqttConfig
from boardctl.mqtt import topics

MODEL = "boardctl electronic cribbage board"
MANUFACTURER = "boardctl"
EVENT_TYPES = ("game_over", "skunk")


def _track_name(key: str) -> str:
    """A template for the name of the track ``value_json[key]`` points at ("none" if none)."""
    return (
        f"{{{{ value_json.tracks[value_json.{key}].name "
        f"if value_json.{key} is not none else 'none' }}}}"
    )


SENSORS = (  # the sensors besides the tracks' scores: object id, name, template, icon
    ("phase", "Phase", "{{ value_json.phase }}", "mdi:cards-playing-outline"),
    ("dealer", "Dealer", _track_name("dealer"), "mdi:cards"),
    ("to_count", "Whose count", _track_name("to_count"), "mdi:hand-pointing-right"),
)


def node_id(board: str) -> str:
    """The board id as a discovery node id (anything else becomes ``_``)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", board)


@dataclass(frozen=True, slots=True)
class Discovery:
    """The discovery messages of one board."""

    board: str
    config: MqttConfig = field(default_factory=MqttConfig)  # its prefixes and config_url

    def topic(self, component: str, obj: str) -> str:
        return f"{self.config.discovery_prefix}/{component}/{node_id(self.board)}/{obj}/config"

    def device(self) -> dict[str, Any]:
        device: dict[str, Any] = {
            "ids": [f"boardctl_{node_id(self.board)}"],
            "name": f"Cribbage board {self.board}",
            "mdl": MODEL,
            "mf": MANUFACTURER,
            "sw": __version__,
        }
        if self.config.config_url:
            device["cu"] = self.config.config_url
        return device

    def _entity(self, obj: str, name: str, icon: str, state: str, **more: Any) -> dict[str, Any]:
        return {
            "name": name,
            "uniq_id": f"boardctl_{node_id(self.board)}_{obj}",
            "avty_t": topics.availability(self.config.prefix, self.board),
            "dev": self.device(),
            "ic": icon,
            "stat_t": state,
            **more,
        }

    def messages(self, tracks: int) -> dict[str, dict[str, Any]]:
        """Every config topic and its payload, for a game of ``tracks`` tracks."""
        state = topics.state(self.config.prefix, self.board)
        out: dict[str, dict[str, Any]] = {}
        for i in range(tracks):
            obj = f"track{i + 1}_score"
            out[self.topic("sensor", obj)] = self._entity(
                obj,
                f"Track {i + 1} score",
                "mdi:counter",
                state,
                val_tpl=f"{{{{ value_json.tracks[{i}].front }}}}",
                stat_cla="measurement",
            )
        for obj, name, template, icon in SENSORS:
            out[self.topic("sensor", obj)] = self._entity(obj, name, icon, state, val_tpl=template)
        event = topics.event(self.config.prefix, self.board)
        out[self.topic("event", "game")] = self._entity(
            "game", "Game", "mdi:trophy", event, evt_typ=EVENT_TYPES
        )
        return out


def encode(payload: Mapping[str, Any]) -> bytes:
    """A payload as compact JSON (every message the bridge publishes)."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


def game_events(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The event entity's messages for a status change: game over, and skunk when there is one."""
    winner = after.get("winner")
    if winner is None or (before is not None and before.get("winner") is not None):
        return []
    tracks = after.get("tracks") or []
    names = [str(t.get("name", "")) for t in tracks]
    scores = [int(t.get("front", 0)) for t in tracks]
    lines = max((int(t.get("lines_failed", 0)) for t in tracks), default=0)
    common = {"winner": names[winner] if winner < len(names) else str(winner), "scores": scores}
    events = [{"event_type": "game_over", **common}]
    if lines:
        events.append({"event_type": "skunk", "level": lines, **common})
    return events
