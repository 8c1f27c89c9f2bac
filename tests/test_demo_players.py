"""The computer players' choices: the rules engine's discards, sensible pegging."""

from __future__ import annotations

import dataclasses

import pytest

from boardctl.cribbage.cards import parse_card, parse_cards
from boardctl.cribbage.discard import rank_discards
from boardctl.demo.game import discard_advice
from boardctl.demo.players import PlayContext, Player
from tests.conftest import scoring_of


def player() -> Player:
    return Player("Test", discard_advice=discard_advice)


def context(
    held: str, pile: str = "", *, me: int = 50, other: int = 50, target: int = 121
) -> PlayContext:
    cards = parse_cards(held)
    laid = parse_cards(pile) if pile else []
    count = sum(card.value for card in laid)
    legal = [card for card in cards if count + card.value <= 31]
    return PlayContext(
        held=cards,
        legal=legal,
        pile=laid,
        count=count,
        my_score=me,
        best_other_score=other,
        target=target,
    )


@pytest.mark.parametrize("own_crib", [True, False])
def test_discard_is_the_rules_engines_first_advice(own_crib: bool) -> None:
    cards = parse_cards("5H 5C JD QS 2C 9H")
    thrown = player().discard(cards, own_crib=own_crib, count=2)
    assert thrown == rank_discards(cards, dealer=own_crib)[0].discard
    assert len(set(thrown)) == 2
    assert set(thrown) <= set(cards)


def test_one_card_discard_keeps_the_best_four() -> None:
    cards = parse_cards("5H 5C JD 4S KC")
    # Throwing the king keeps 5 5 J 4 (fifteens and a pair); the advice must not throw a five.
    thrown = player().discard(cards, own_crib=False, count=1)
    assert thrown == rank_discards(cards, dealer=False, keep=4)[0].discard
    assert len(thrown) == 1
    assert thrown[0].rank != 5
    ranked = discard_advice(cards, False, 1)
    assert len(ranked) == 5
    assert sorted(card for (card,) in ranked) == sorted(cards)


def test_takes_fifteen_or_thirty_one_when_it_can() -> None:
    assert player().play(context("5D 2C KH", "KS")) == parse_card("5D")
    assert player().play(context("3D 9C", "KS KH 8D")) == parse_card("3D")


def test_leads_a_card_under_five_and_not_a_five() -> None:
    assert player().play(context("5D 3C KH QH")) == parse_card("3C")
    assert player().play(context("5D 9C KH QH")) != parse_card("5D")


def test_avoids_leaving_the_count_on_five_or_twenty_one() -> None:
    # 6 + 9 = 15 is not possible; from 12, a 9 leaves 21 and a 7 leaves 19.
    assert player().play(context("9C 7D", "QH 2S")) == parse_card("7D")


def test_does_not_pair_into_a_pair_royal_when_behind() -> None:
    behind = player().play(context("8C 4D", "8H", me=40, other=70))
    assert behind == parse_card("4D")
    # Winning points are taken whatever the risk.
    winning = player().play(context("8C 4D", "8H", me=119, other=70))
    assert winning == parse_card("8C")


def test_no_legal_card_is_an_error() -> None:
    empty: PlayContext = PlayContext(
        held=(), legal=(), pile=(), count=0, my_score=0, best_other_score=0, target=121
    )
    with pytest.raises(ValueError, match="go"):
        player().play(empty)


def test_choices_are_deterministic() -> None:
    ctx = context("9C 9D 9H 9S")  # four equal ranks: the card order decides
    assert len({player().play(ctx) for _ in range(5)}) == 1


def test_players_follow_the_rules_in_force() -> None:
    czech = scoring_of("czech")
    runs_of_two = Player(
        "Test",
        discard_advice=lambda cards, own, count: discard_advice(cards, own, count, czech),
        scoring=czech,
    )
    # After a 3, a 4 is a run of two (2) under the Czech rules; under ACC it invites a run.
    assert runs_of_two.play(context("4D 9C", "3H")) == parse_card("4D")
    assert player().play(context("4D 9C", "3H")) == parse_card("9C")
    cards = parse_cards("3H 4H 9C QD AS 2S")
    assert runs_of_two.discard(cards, own_crib=True, count=2) == (
        rank_discards(cards, dealer=True, scoring=czech)[0].discard
    )


def test_a_point_for_a_card_after_a_go_can_win() -> None:
    base = context("9D 2C", "KS KH", me=120, target=121)
    ctx = dataclasses.replace(base, go_bonus=1)  # someone said go: any card laid pegs 1
    assert all(player().rate(card, ctx) >= 1000 for card in ctx.legal)
    assert all(player().rate(card, base) < 1000 for card in base.legal)


@pytest.mark.parametrize("rules", ["czech", "polish"])
def test_demo_games_play_through_under_other_rules(rules: str) -> None:
    from boardctl.demo.game import DemoGame

    lines: list[str] = []
    for seed in range(3):
        game = DemoGame(seed=seed, variant="six-card", rules=rules)
        result = game.play()
        assert game.state.setup.rules == result.rules == rules  # the engine checked every entry
        assert max(t.front for t in game.state.tracks) == game.state.target
        lines += result.lines
    said = "\n".join(lines)
    assert ("run of two" in said) == (rules == "czech")
    assert ("go for one" in said) == (rules == "polish")
