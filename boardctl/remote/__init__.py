"""Two boards in two homes, one game: the link over an MQTT broker (docs/remote.md).

:mod:`.protocol` is the wire format (the code, the signed messages), pure;
:mod:`.pairing` keeps the board's side of the link beside its journal.
"""
