"""Which results the broker has acknowledged: ``mqtt-acks.json``, ``{"version": 1, "results":
{slot: digest}}``, replaced atomically (docs/mqtt.md, "Nothing lost while the broker is away")."""

from __future__ import annotations

import json
from pathlib import Path

from boardctl.durable import replace_file

VERSION = 1


class Acks:
    """The acknowledged digests; :meth:`flush` saves them (once per batch of acknowledgements)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.digests: dict[str, str] = self._load()
        self.dirty = False

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # missing or torn: publishing everything again is always safe
        results = data.get("results") if isinstance(data, dict) else None
        if not isinstance(results, dict) or data.get("version") != VERSION:
            return {}
        return {str(k): str(v) for k, v in results.items()}

    def acknowledged(self, game: str, digest: str | None) -> None:
        """The broker has ``game`` with ``digest`` (``None``: it has removed it)."""
        if self.digests.get(game) == digest:
            return  # (None: the broker had removed it already)
        if digest is None:
            del self.digests[game]
        else:
            self.digests[game] = digest
        self.dirty = True

    def flush(self) -> None:
        """Save if anything changed since the last save."""
        if self.dirty:
            data = json.dumps({"version": VERSION, "results": self.digests}, sort_keys=True)
            replace_file(self.path, data)
            self.dirty = False
