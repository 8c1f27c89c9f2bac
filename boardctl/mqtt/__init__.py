"""The MQTT bridge: a board's live state and results on a club's broker, its own process
and the only part of boardctl on the network (docs/mqtt.md, "The bridge")."""

from boardctl.errors import BoardError


class MqttError(BoardError, OSError):
    """The broker cannot be used as configured (paho missing, bad TLS files, no password)."""
