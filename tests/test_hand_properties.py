"""Property tests: the fast total equals the itemised scorer; suits matter only for flush, nobs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cribbage.cards import DECK, Card
from boardctl.cribbage.fast import hand_total
from boardctl.cribbage.hand import HandScore, score_hand
from boardctl.cribbage.scoring import Scoring

deals = st.tuples(st.integers(3, 4), st.permutations(DECK))


def breakdown(score: HandScore) -> tuple[int, ...]:
    """The points of each kind: fifteens, pairs, runs, flush, nobs."""
    return tuple(score.points_for(kind) for kind in ("fifteen", "pair", "run", "flush", "nobs"))


@settings(max_examples=500)
@given(deals, st.booleans())
def test_fast_total_equals_itemised_total(deal: tuple[int, list[Card]], crib: bool) -> None:
    size, deck = deal
    hand, starter = deck[:size], deck[size]
    score = score_hand(hand, starter, crib=crib)
    assert hand_total(hand, starter, crib) == score.total
    assert score.total == sum(item.points for item in score.items)  # the independent itemiser


@settings(max_examples=300)
@given(deals, st.permutations(range(4)), st.booleans())
def test_suit_permutation_changes_only_flush_and_nobs(
    deal: tuple[int, list[Card]], perm: list[int], crib: bool
) -> None:
    size, deck = deal
    hand, starter = deck[:size], deck[size]
    moved = [Card(c.rank, perm[c.suit]) for c in hand]
    moved_starter = Card(starter.rank, perm[starter.suit])
    a = score_hand(hand, starter, crib=crib)
    b = score_hand(moved, moved_starter, crib=crib)
    assert breakdown(a) == breakdown(b)


@settings(max_examples=300)
@given(deals, st.lists(st.integers(0, 3), min_size=5, max_size=5), st.booleans())
def test_any_suit_change_changes_only_flush_and_nobs(
    deal: tuple[int, list[Card]], suits: list[int], crib: bool
) -> None:
    size, deck = deal
    ranks = [c.rank for c in deck[: size + 1]]
    resuited = [Card(r, s) for r, s in zip(ranks, suits, strict=False)]
    if len(set(resuited)) < len(resuited):
        return
    a = score_hand(deck[:size], deck[size], crib=crib)
    b = score_hand(resuited[:size], resuited[size], crib=crib)
    assert breakdown(a)[:3] == breakdown(b)[:3]  # fifteens, pairs, runs
    assert a.total - sum(breakdown(a)[3:]) == b.total - sum(breakdown(b)[3:])


OTHER_RULES = st.sampled_from(
    [Scoring(run_min=2), Scoring(crib_four_flush=True), Scoring(run_min=2, crib_four_flush=True)]
)


@settings(max_examples=400)
@given(deals, st.booleans(), OTHER_RULES)
def test_fast_total_equals_itemised_total_under_other_rules(
    deal: tuple[int, list[Card]], crib: bool, scoring: Scoring
) -> None:
    size, deck = deal
    hand, starter = deck[:size], deck[size]
    score = score_hand(hand, starter, crib=crib, scoring=scoring)
    assert hand_total(hand, starter, crib, scoring) == score.total
    assert score.total == sum(item.points for item in score.items)


@settings(max_examples=300)
@given(deals, st.booleans())
def test_acc_scoring_object_changes_nothing(deal: tuple[int, list[Card]], crib: bool) -> None:
    size, deck = deal
    hand, starter = deck[:size], deck[size]
    default = score_hand(hand, starter, crib=crib)
    named = score_hand(hand, starter, crib=crib, scoring=Scoring())
    assert (default.total, default.items) == (named.total, named.items)


@settings(max_examples=300)
@given(deals, st.booleans())
def test_runs_of_two_add_exactly_the_two_card_runs(
    deal: tuple[int, list[Card]], crib: bool
) -> None:
    """Under runs of two a count gains 2 x (ways to pick it) per block of exactly two ranks."""
    size, deck = deal
    hand, starter = deck[:size], deck[size]
    ranks = [card.rank for card in (*hand, starter)]
    gain = 0
    for low in range(1, 13):
        block = [low, low + 1]
        if all(r in ranks for r in block) and low - 1 not in ranks and low + 2 not in ranks:
            gain += 2 * ranks.count(low) * ranks.count(low + 1)
    acc = score_hand(hand, starter, crib=crib).total
    assert score_hand(hand, starter, crib=crib, scoring=Scoring(run_min=2)).total == acc + gain
