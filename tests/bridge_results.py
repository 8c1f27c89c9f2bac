"""Every result of a journal as the MQTT bridge sends them (for the tests and benchmarks)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from boardctl.mqtt.result_feed import ResultFeed
from boardctl.results.board import board_id


def finished_results(
    journal_path: Path, board: str | None = None, key: bytes | None = None
) -> list[dict[str, Any]]:
    """Every result of the journal at ``journal_path``, in the order the games were played."""
    feed = ResultFeed(Path(journal_path), board or board_id(Path(journal_path).parent), key)
    try:
        feed.refresh()
        return sorted(feed.results.values(), key=lambda r: int(r["first_seq"]))
    finally:
        feed.close()
