"""score_play reasons and errors, and the PlayState for 2-6 players."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cribbage.awards import heels_points, opening_points
from boardctl.cribbage.cards import DECK, Card
from boardctl.cribbage.play import PlayEvent, PlayState, score_play
from boardctl.cribbage.scoring import Scoring
from boardctl.cribbage.validation import max_play_points
from boardctl.cribbage.variants import get_variant
from boardctl.errors import PlayError

POLISH = Scoring(go_per_card=True)


def test_score_play_reasons() -> None:
    assert score_play("7H 8S").reasons == ("fifteen for 2",)
    assert score_play("5H 5S 5D").reasons == ("fifteen for 2", "three of a kind for 6")
    assert score_play("KH 9S 8D 4C").reasons == ("thirty-one for 2",)
    assert score_play("3H 5S 4D").reasons == ("a run of 3 for 3",)
    assert score_play("KH").points == 0


def test_score_play_rejects_over_31_and_empty() -> None:
    with pytest.raises(PlayError, match="32"):
        score_play("KH QS JD 2C")
    with pytest.raises(PlayError, match="no card"):
        score_play([])


def _kinds(events: tuple[PlayEvent, ...]) -> list[tuple[str, int, int]]:
    return [(e.kind, e.seat, e.points) for e in events]


def test_two_player_go_and_last_card() -> None:
    # Seat 1 (non-dealer) leads.
    state = PlayState(["KH QH 5C 4C", "KS QS JS 2D"], dealer=0)
    assert state.turn == 1
    assert _kinds(state.play("KS")) == [("card", 1, 0)]
    assert state.turn == 0
    state.play("KH")  # 20
    state.play("2D")  # 22
    assert state.count == 22
    state.play("5C")  # 27
    assert state.legal_plays() == []  # seat 1 holds QS JS
    with pytest.raises(PlayError, match="seat 1's turn, not seat 0's"):
        state.play("4C", seat=0)
    assert _kinds(state.go()) == [("go", 1, 0)]
    assert state.turn == 0
    assert _kinds(state.play("4C")) == [("card", 0, 2)]  # 31 for 2, count ends, no extra point
    assert state.count == 0
    assert state.turn == 1  # left of the player who made 31
    state.play("QS")
    state.play("QH")
    assert state.points == [6, 0]  # pair of kings, 31, pair of queens: all seat 0
    # Seat 1 lays the jack: 30. Seat 0 has no cards; the play ends, last card to seat 1.
    events = state.play("JS")
    assert _kinds(events) == [("card", 1, 0), ("last", 1, 1)]
    assert state.done and state.turn is None
    assert state.points == [6, 1]


def test_last_card_is_one_when_everyone_says_go() -> None:
    state = PlayState(["KH QH 9C", "KS QS 8D"], dealer=1)
    state.play("KH")  # seat 0 leads: 10
    state.play("KS")  # 20 pair
    state.play("9C")  # 29
    assert _kinds(state.go()) == [("go", 1, 0)]
    assert state.turn == 0
    assert _kinds(state.go()) == [("go", 0, 0), ("last", 0, 1)]
    assert state.count == 0
    assert state.turn == 1  # left of the last player to lay a card
    assert state.points == [1, 2]


def test_errors_change_nothing() -> None:
    state = PlayState(["KH QH 9C 8C", "KS QS JD TD"], dealer=1)
    with pytest.raises(PlayError, match="does not hold KS"):
        state.play("KS")
    with pytest.raises(PlayError, match="cannot say go"):
        state.go()
    with pytest.raises(PlayError, match="seat 0's turn"):
        state.play("KS", seat=1)
    state.play("KH")
    state.play("KS")
    state.play("QH")
    with pytest.raises(PlayError, match="may not pass 31"):
        state.play("QS")
    assert state.count == 30 and state.hands[1] == [c for c in state.hands[1]]
    assert len(state.hands[1]) == 3 and state.turn == 1


def test_bad_tables() -> None:
    with pytest.raises(PlayError, match="2-6 hands"):
        PlayState(["KH"])
    with pytest.raises(PlayError, match="2-6 hands"):
        PlayState([["KH"]] * 7)
    with pytest.raises(ValueError, match="duplicate card KH"):
        PlayState(["KH QH", "KH 2C"])
    with pytest.raises(PlayError, match="dealer seat 3"):
        PlayState(["KH", "QH"], dealer=3)


def test_five_card_game_is_one_count_to_31() -> None:
    variant = get_variant("five-card")
    assert variant.single_count and variant.players == 2
    state = PlayState(["KH QH 5C", "KS 6S 4D"], dealer=0, single_count=True)
    state.play("KS")  # 10
    state.play("KH")  # 20
    state.play("6S")  # 26
    state.play("5C")  # 31 for 2, and the play is over
    assert state.done
    assert state.cards_left == 2  # QH and 4D are never played
    assert state.points == [4, 0]  # pair of kings, then 31


def test_five_card_game_ends_at_go_with_last_card() -> None:
    state = PlayState(["KH QH 9C", "KS JS 8D"], dealer=0, single_count=True)
    state.play("KS")
    state.play("KH")
    state.play("8D")  # 28
    state.go()
    events = state.go()
    assert _kinds(events) == [("go", 1, 0), ("last", 1, 1)]
    assert state.done and state.cards_left == 3


def test_three_players_continue_after_a_go() -> None:
    state = PlayState(["KH 5D", "QS 9H", "TD AC"], dealer=2)
    assert state.turn == 0
    state.play("KH")  # 10
    state.play("QS")  # 20
    state.play("TD")  # 30
    state.go()  # seat 0: 5D does not fit
    state.go()  # seat 1: 9H does not fit
    assert state.turn == 2
    assert _kinds(state.play("AC")) == [("card", 2, 2)]  # 31
    assert state.turn == 0
    state.play("5D")
    state.play("9H")  # 14, seat 2 has no cards, so seat 0 ... has none: seat 1 took last card
    assert state.done
    assert state.points == [0, 1, 2]


def _random_game(data: st.DataObject, players: int, single: bool) -> PlayState:
    deck = data.draw(st.permutations(DECK))
    size = 4 if players <= 3 else 5
    hands = [deck[i * size : (i + 1) * size] for i in range(players)]
    dealer = data.draw(st.integers(0, players - 1))
    state = PlayState(hands, dealer=dealer, single_count=single)
    pile: list[Card] = []
    while not state.done:
        legal = state.legal_plays()
        if legal:
            card = data.draw(st.sampled_from(legal))
            pile.append(card)
            events = state.play(card)
            assert events[0].points == score_play(pile).points
        else:
            events = state.go()
        for event in events:
            assert event.points >= 0
            assert 0 <= event.count <= 31
        if state.count == 0:
            pile = []
        assert state.count == sum(c.value for c in pile) <= 31
    return state


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(2, 6), st.booleans())
def test_any_legal_play_keeps_count_and_points_sane(
    data: st.DataObject, players: int, single: bool
) -> None:
    state = _random_game(data, players, single)
    total = sum(e.points for e in state.history)
    assert total == sum(state.points) >= 0
    if not single:
        assert state.cards_left == 0
    lasts = [e for e in state.history if e.kind == "last"]
    assert all(e.points == 1 and e.count < 31 for e in lasts)
    assert all(e.points <= max_play_points() for e in state.history if e.kind == "card")


def test_heels_and_three_for_last() -> None:
    assert heels_points("JD") == 2 and heels_points("QD") == 0
    assert opening_points(get_variant("five-card"), dealer=0) == {1: 3}
    assert opening_points(get_variant("five-card"), dealer=1) == {0: 3}
    assert opening_points(get_variant("six-card"), dealer=0) == {}


@settings(max_examples=200, deadline=None)
@given(st.data(), st.integers(2, 6), st.booleans())
def test_a_point_per_card_after_a_go_against_acc(
    data: st.DataObject, players: int, single: bool
) -> None:
    """The same plays under polish and ACC: polish adds 1 per card laid after a go that does not
    make 31, and drops the last-card point of a count that such a card ended."""
    seed = data.draw(st.integers(0, 2**32))
    rng = random.Random(seed)
    deck = list(DECK)
    rng.shuffle(deck)
    size = 4 if players <= 3 else 5
    hands = [deck[i * size : (i + 1) * size] for i in range(players)]
    dealer = rng.randrange(players)
    polish = PlayState(hands, dealer=dealer, single_count=single, scoring=POLISH)
    acc = PlayState(hands, dealer=dealer, single_count=single)
    go_cards = dropped_lasts = 0
    last_after_go = False  # the last card laid pegged a go point under polish
    while not acc.done:
        assert polish.turn == acc.turn and polish.count == acc.count
        legal = acc.legal_plays()
        if legal:
            card = legal[rng.randrange(len(legal))]
            last_after_go = bool(acc.said_go) and acc.count + card.value < 31
            go_cards += last_after_go
            polish_events, acc_events = polish.play(card), acc.play(card)
        else:
            polish_events, acc_events = polish.go(), acc.go()
        if any(e.kind == "last" for e in acc_events) and last_after_go:
            dropped_lasts += 1
            assert not any(e.kind == "last" for e in polish_events)
    assert polish.done
    assert sum(polish.points) == sum(acc.points) + go_cards - dropped_lasts


def test_runs_of_two_in_the_play() -> None:
    czech = Scoring(run_min=2)
    assert score_play("3H 4S", scoring=czech).reasons == ("a run of 2 for 2",)
    assert score_play("3H 5S 4D", scoring=czech).points == 3
    assert score_play("4H 4S 5D", scoring=czech).points == 2  # the 5 and the last 4
    assert score_play("3H 4S").points == 0
