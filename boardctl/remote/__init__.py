"""Two boards in two homes, one game: the link over an MQTT broker (docs/remote.md).

- :mod:`.protocol`: the wire format (the code, the signed messages, the host's rule for a
  command), pure;
- :mod:`.pairing`: the board's side of the link, kept beside its journal;
- :mod:`.store`: the host's answers and the joined board's outbox (SQLite);
- :mod:`.broker`: one side's connection to the broker and its presence;
- :mod:`.host`: the hosting board's side, in its service;
- :mod:`.guest` and :mod:`.joined`: the joined board's link and the keeper its service uses;
- :mod:`.service`: where the service starts them; :mod:`.words`: the link in ``boardctl status``.
"""
