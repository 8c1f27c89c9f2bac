"""The errors of the MQTT bridge."""

from __future__ import annotations

from boardctl.errors import BoardError


class MqttError(BoardError, OSError):
    """The broker cannot be used as configured (paho missing, bad TLS files, no password)."""
