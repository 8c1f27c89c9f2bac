"""The MQTT bridge: a board's live state and results on a club's broker (docs/mqtt.md).

The bridge is its own process (``boardctl mqtt``, unit ``boardctl-mqtt.service``),
the only part of boardctl that talks to the network. It reads the board
through the control socket (:mod:`.service`) and its results from the journal
(:mod:`.records`); the board never waits for it. :mod:`.topics` is the topic
tree, :mod:`.discovery` the Home Assistant discovery messages, :mod:`.acks`
the results the broker has acknowledged, :mod:`.broker` the connection,
:mod:`.decommission` takes a board off the broker.
"""
