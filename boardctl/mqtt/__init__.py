"""The MQTT bridge: a board's live state and results on a club's broker (docs/mqtt.md).

The bridge is its own process (``boardctl mqtt``, unit ``boardctl-mqtt.service``),
the only part of boardctl that talks to the network. It reads the board
through the control socket (:mod:`.board_watch`) and its results from the journal
(:mod:`.result_feed`); the board never waits for it. :mod:`.topics` is the topic
tree, :mod:`.discovery` the Home Assistant discovery messages, :mod:`.acks`
the results the broker has acknowledged, :mod:`.connection` the connection,
:mod:`.decommission` takes a board off the broker, :mod:`.retention` says which club night a
result belongs to and how long the broker keeps it.
"""

from boardctl.errors import BoardError


class MqttError(BoardError, OSError):
    """The broker cannot be used as configured (paho missing, bad TLS files, no password)."""
