"""The spoken count adds up: each phrase's number is what its words are worth, to the total.

The words are valued here by their meaning at the table ("a pair" is 2, "a double run of
three" is 8, "six runs of two" is 12), independently of how the speech is built, over
every hand of the seeds' examples under their rule sets and a random sample under every
rule set.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cribbage.cards import DECK, Card
from boardctl.cribbage.hand import HandScore, score_hand
from boardctl.cribbage.speech import number_words, say_count
from tests.conftest import DATA, scoring_of

WORDS = {number_words(n): n for n in range(100)}
LENGTHS = {"two": 2, "three": 3, "four": 4, "five": 5}
RULE_SETS = ("acc", "polish", "czech", "finnish", "english")


def worth(name: str, score: HandScore) -> int:
    """What a phrase's words are worth at the table (the count's own value, not the speech's)."""
    name = re.sub(r"^another ", "a ", name)
    fixed = {"a pair": 2, "three of a kind": 6, "four of a kind": 12, "one for his nobs": 1}
    if name in fixed:
        return fixed[name]
    if name == "a flush":  # every card of the hand, and the starter too if it matches
        suits = {card.suit for card in score.hand}
        assert len(suits) == 1
        return len(score.hand) + (score.starter.suit in suits)
    if name == "a double double run":  # a run of three with two pairs in it: four runs
        return 4 * 3 + 2 * 2
    match = re.fullmatch(r"a (double |triple |quadruple )?run of (\w+)", name)
    if match:
        copies = {None: 1, "double ": 2, "triple ": 3, "quadruple ": 4}[match.group(1)]
        pair_points = {1: 0, 2: 2, 3: 6, 4: 12}[copies]  # the cards of one rank inside
        return copies * LENGTHS[match.group(2)] + pair_points
    match = re.fullmatch(r"(\w+) runs of two", name)
    assert match, f"unknown phrase {name!r}"
    return 2 * WORDS[match.group(1)]


def check_adds_up(score: HandScore) -> None:
    said = say_count(score)
    if score.total == 0:
        assert said == "nothing: zero"
        return
    running = 0
    for phrase in said.replace(", and ", ", ").split(", "):
        if phrase.startswith("fifteen "):
            number, value = WORDS[phrase.removeprefix("fifteen ")], 2
        else:
            name, _, total = phrase.rpartition(" is ")
            number, value = WORDS[total], worth(name, score)
        assert number == running + value, f"{said!r}: {phrase!r} after {running}"
        running = number
    assert running == score.total, said


def _seed_hands() -> list[tuple[str, dict[str, Any]]]:
    hands: list[tuple[str, dict[str, Any]]] = [
        ("acc", vector) for vector in json.loads((DATA / "hand_vectors.json").read_text())
    ]
    for name in ("polish", "czech", "finnish", "english"):
        rules = json.loads((DATA / "seed_vectors" / f"{name}.json").read_text())
        for vector in [*rules.get("shows", ()), *rules.get("flushes", ())]:
            hands.append((name, vector))
        if "largest" in rules:
            hands.append((name, rules["largest"]))
        deal = rules.get("deal", {})
        if "dealt" in deal:  # the Polish deal played through: both hands and the crib
            for dealt, thrown, total in zip(
                deal["dealt"], deal["discards"], deal["hand_points"], strict=True
            ):
                hand = [card for card in dealt if card not in thrown]
                hands.append((name, {"hand": hand, "starter": deal["starter"], "total": total}))
            crib = [card for thrown in deal["discards"] for card in thrown]
            hands.append(
                (
                    name,
                    {
                        "hand": crib,
                        "starter": deal["starter"],
                        "crib": True,
                        "total": deal["crib_points"],
                    },
                )
            )
    return hands


SEED_HANDS = _seed_hands()


def test_the_seeds_examples_are_all_here() -> None:
    assert len(SEED_HANDS) == 23 + 1 + 3 + 4 + 1 + 4 + 3  # hand vectors, Polish, Czech, ...
    assert {name for name, _ in SEED_HANDS} == set(RULE_SETS)


@pytest.mark.parametrize(("rules", "vector"), SEED_HANDS, ids=lambda v: str(v)[:40])
def test_every_seed_example_is_said_so_that_its_numbers_add_up(
    rules: str, vector: dict[str, Any]
) -> None:
    score = score_hand(
        vector["hand"],
        vector["starter"],
        crib=bool(vector.get("crib")),
        scoring=scoring_of(rules),
    )
    assert score.total == vector["total"]
    check_adds_up(score)


def test_the_czech_777_88_says_its_pairs_apart_from_its_runs_of_two() -> None:
    score = score_hand("7H 7C 7S 8D", "8S", scoring=scoring_of("czech"))
    assert score.total == 32
    assert say_count(score).endswith(
        "three of a kind is eighteen, a pair is twenty, and six runs of two is thirty-two"
    )
    check_adds_up(score)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(DECK), min_size=4, max_size=5, unique=True),
    st.booleans(),
    st.sampled_from(RULE_SETS),
)
def test_a_random_hands_spoken_numbers_add_up_to_its_total(
    cards: list[Card], crib: bool, rules: str
) -> None:
    check_adds_up(score_hand(cards[:-1], cards[-1], crib=crib, scoring=scoring_of(rules)))
