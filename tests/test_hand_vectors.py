"""Hand and crib scoring against the published vectors, printing the breakdown on a mismatch."""

from __future__ import annotations

import json
from typing import Any

import pytest

from boardctl.cribbage.cards import parse_cards
from boardctl.cribbage.fast import hand_total
from boardctl.cribbage.hand import HandScore, score_hand
from tests.conftest import DATA

VECTORS: list[dict[str, Any]] = json.loads((DATA / "hand_vectors.json").read_text())
FIELDS = ("fifteens", "pairs", "runs", "flush", "nobs", "total")


def _explain(score: HandScore) -> str:
    lines = [f"{' '.join(map(str, score.hand))} | {score.starter} crib={score.crib}"]
    lines += [f"  {i.kind:8} {' '.join(map(str, i.cards)):16} {i.points}" for i in score.items]
    lines.append("  " + ", ".join(f"{f}={score.as_dict()[f]}" for f in FIELDS))
    return "\n".join(lines)


def test_there_are_vectors() -> None:
    assert len(VECTORS) >= 20


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: " ".join(v["hand"]) + "|" + v["starter"])
def test_hand_vector(vector: dict[str, Any]) -> None:
    crib = bool(vector.get("crib", False))
    score = score_hand(vector["hand"], vector["starter"], crib=crib)
    got = {field: score.as_dict()[field] for field in FIELDS}
    want = {field: vector[field] for field in FIELDS}
    assert got == want, _explain(score)
    fast = hand_total(parse_cards(vector["hand"]), parse_cards(vector["starter"])[0], crib)
    assert fast == vector["total"], _explain(score)
    itemised = sum(item.points for item in score.items)
    assert itemised == vector["total"], _explain(score)
