"""Scorekeeping: the game and match state machine and its durable journal."""

from __future__ import annotations

from typing import Any

#: JSON data as the control socket and the journal carry it (the engine's edges).
JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]
#: A JSON object the engine hands out (status, results, history rows): ``Any`` values, so
#: that readers may index into it as they would into parsed JSON.
JsonObject = dict[str, Any]
