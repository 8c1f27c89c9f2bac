"""Two boards in two homes, one game: the link over an MQTT broker (docs/remote.md): the wire
format (:mod:`.protocol`), the pairing, the durable stores, each side (:mod:`.host`,
:mod:`.guest`, :mod:`.joined`), their broker connection and where the service starts them."""
