"""The itemised scorer: items name their cards; three-card hands; crib flush; input errors."""

from __future__ import annotations

import pytest

from boardctl.cribbage.cards import parse_cards
from boardctl.cribbage.hand import score_hand
from boardctl.errors import CardError


def _items(text: str, starter: str, crib: bool = False) -> list[tuple[str, str, int]]:
    score = score_hand(text, starter, crib=crib)
    return [(i.kind, " ".join(map(str, i.cards)), i.points) for i in score.items]


def test_items_name_the_cards_of_each_combination() -> None:
    items = _items("5H 5C JD 4S", "6D")
    assert ("fifteen", "5H JD", 2) in items
    assert ("fifteen", "5C JD", 2) in items
    assert ("fifteen", "5H 4S 6D", 2) in items
    assert ("pair", "5H 5C", 2) in items
    assert ("run", "4S 5H 6D", 3) in items and ("run", "4S 5C 6D", 3) in items
    assert ("nobs", "JD", 1) in items
    assert sum(p for _, _, p in items) == score_hand("5H 5C JD 4S", "6D").total == 17


def test_hand_flush_four_and_five_and_crib_only_five() -> None:
    assert score_hand("2H 4H 6H 8H", "KS").points_for("flush") == 4
    assert score_hand("2H 4H 6H 8H", "KH").points_for("flush") == 5
    assert score_hand("2H 4H 6H 8H", "KS", crib=True).points_for("flush") == 0
    assert score_hand("2H 4H 6H 8H", "KH", crib=True).points_for("flush") == 5
    assert score_hand("2H 4H 6H 8S", "KH").points_for("flush") == 0


def test_three_card_hand_flush_is_three_or_four() -> None:
    assert score_hand("2H 4H 8H", "KS").points_for("flush") == 3
    assert score_hand("2H 4H 8H", "KH").points_for("flush") == 4
    assert score_hand("2H 4H 8H", "KS", crib=True).points_for("flush") == 0
    assert score_hand("2H 4H 8H", "KH", crib=True).points_for("flush") == 4


def test_three_card_hand_counts() -> None:
    score = score_hand("5H 5C 5S", "5D")
    assert (score.points_for("fifteen"), score.points_for("pair"), score.total) == (8, 12, 20)
    score = score_hand("JH 4H 5H", "6H")
    assert (
        score.points_for("fifteen"),
        score.points_for("run"),
        score.points_for("flush"),
        score.points_for("nobs"),
    ) == (4, 3, 4, 1)


def test_jack_starter_is_not_nobs() -> None:
    assert score_hand("JH 2C 4D 8S", "JD").points_for("nobs") == 0
    assert score_hand("JH 2C 4D 8S", "3H").points_for("nobs") == 1


def test_wrong_number_of_cards_and_duplicates() -> None:
    with pytest.raises(CardError, match="got 5"):
        score_hand("AH 2H 3H 4H 5H", "6H")
    with pytest.raises(CardError, match="got 2"):
        score_hand("AH 2H", "6H")
    with pytest.raises(CardError, match="duplicate card 6H"):
        score_hand("AH 2H 3H 6H", "6H")
    with pytest.raises(CardError, match="'ZZ' is not a card"):
        score_hand("AH 2H 3H ZZ", "6H")


def test_as_dict_has_breakdown_and_total() -> None:
    data = score_hand(parse_cards("5H 5C 5S JD"), "5D").as_dict()
    assert data["total"] == 29 and data["nobs"] == 1 and data["starter"] == "5D"
    items = data["items"]
    assert isinstance(items, list) and len(items) == 8 + 6 + 1
