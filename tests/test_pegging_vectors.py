"""score_play against the published pegging vectors (ranks only; suits are assigned)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from boardctl.cribbage.cards import SUIT_LETTERS, Card, parse_card
from boardctl.cribbage.play import score_play
from tests.conftest import DATA

VECTORS: list[dict[str, Any]] = json.loads((DATA / "pegging_vectors.json").read_text())


def _cards(ranks: list[str]) -> list[Card]:
    """Give each rank a suit not yet used for that rank."""
    used: dict[str, int] = {}
    cards = []
    for rank in ranks:
        n = used.get(rank, 0)
        used[rank] = n + 1
        cards.append(parse_card(rank + SUIT_LETTERS[n]))
    return cards


def test_there_are_vectors() -> None:
    assert len(VECTORS) >= 15


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: " ".join(v["plays"]))
def test_pegging_vector(vector: dict[str, Any]) -> None:
    cards = _cards(vector["plays"])
    got = [score_play(cards[: i + 1]) for i in range(len(cards))]
    detail = "\n".join(
        f"  {c} count {s.count}: {s.points} {s.reasons}" for c, s in zip(cards, got, strict=True)
    )
    assert [s.points for s in got] == vector["points"], f"{vector['note']}\n{detail}"
    assert got[-1].count == vector["count"], detail
