"""Two boards in two homes, one game: the link over an MQTT broker (docs/remote.md): the wire
format (:mod:`.messages`), the pairing, the durable stores, each side (:mod:`.host`,
:mod:`.guest`, :mod:`.joined`), their broker connection and where the service starts them."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def link_path(journal: Path) -> Path:
    """Where the link (:mod:`.paired`) of the board whose journal is ``journal`` is kept:
    here, so that a board without one loads nothing of the link to find that out."""
    return journal.parent / "remote.json"
