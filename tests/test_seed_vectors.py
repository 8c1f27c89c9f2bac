"""The seed texts' worked examples (tests/data/seed_vectors), each under its seed's own rule set.

Each vector cites its seed file and lines; the files say which cards the
seed gives and which were chosen (the seeds give ranks only, and some
examples give a count without the cards that made it).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from boardctl.cribbage.awards import opening_points
from boardctl.cribbage.census import census
from boardctl.cribbage.hand import score_hand
from boardctl.cribbage.play import PlayState, score_play
from boardctl.cribbage.rules import SEEDS
from boardctl.cribbage.scoring import ACC, Scoring
from boardctl.cribbage.variants import get_variant
from boardctl.game.setup import get_preset
from boardctl.view import lines_failed
from tests.conftest import DATA, scoring_of

VECTORS = DATA / "seed_vectors"
SETS = {
    name: json.loads((VECTORS / f"{name}.json").read_text())
    for name in ("polish", "czech", "finnish", "english")
}


def _cited(vector: dict[str, Any]) -> str:
    return f"{vector['cite']}: {vector['says']}"


def _plays(name: str) -> list[dict[str, Any]]:
    return list(SETS[name].get("plays", ()))


def _run_points(reasons: tuple[str, ...]) -> int:
    runs = [r for r in reasons if r.startswith("a run of")]
    return int(runs[0].rsplit(" ", 1)[1]) if runs else 0


def test_every_cited_seed_exists_and_each_set_names_its_rule_set() -> None:
    for name, data in SETS.items():
        assert data["rules"] == name
        text = json.dumps(data)
        for key in SEEDS:
            if f'"{key}:' in text:
                assert (DATA / "seeds" / SEEDS[key]).exists()


@pytest.mark.parametrize(
    ("name", "vector"),
    [(name, v) for name in SETS for v in _plays(name)],
    ids=lambda v: v if isinstance(v, str) else " ".join(v["cards"]),
)
def test_play_vectors(name: str, vector: dict[str, Any]) -> None:
    scoring = scoring_of(name)
    cards = vector["cards"]
    got = [score_play(cards[: i + 1], scoring=scoring) for i in range(len(cards))]
    detail = _cited(vector) + "".join(
        f"\n  {c}: {s.points} {s.reasons}" for c, s in zip(cards, got, strict=True)
    )
    if "points" in vector:
        assert [s.points for s in got] == vector["points"], detail
    if "run" in vector:
        assert _run_points(got[-1].reasons) == vector["run"], detail
    if "runs" in vector:
        assert [_run_points(s.reasons) for s in got] == vector["runs"], detail
    if "acc_points" in vector:
        assert [score_play(cards[: i + 1]).points for i in range(len(cards))] == vector[
            "acc_points"
        ]


def _show_vectors() -> list[tuple[str, dict[str, Any]]]:
    out = [(name, v) for name in SETS for v in SETS[name].get("shows", ())]
    return out + [(name, v) for name in SETS for v in SETS[name].get("flushes", ())]


@pytest.mark.parametrize(("name", "vector"), _show_vectors(), ids=lambda v: str(v)[:40])
def test_show_vectors(name: str, vector: dict[str, Any]) -> None:
    score = score_hand(
        vector["hand"], vector["starter"], crib=vector["crib"], scoring=scoring_of(name)
    )
    detail = _cited(vector) + "".join(f"\n  {i.kind} {i.points}" for i in score.items)
    assert score.total == vector["total"], detail
    assert sum(item.points for item in score.items) == score.total, detail
    if "acc_total" in vector:
        assert (
            score_hand(vector["hand"], vector["starter"], crib=vector["crib"]).total
            == (vector["acc_total"])
        )


def _play_out(state: PlayState, actions: list[str]) -> list[tuple[int, int]]:
    """Do each action (a card, or "go") for the seat to move; return (seat, points) per action."""
    done = []
    for action in actions:
        seat = state.turn
        assert seat is not None, f"nobody to move before {action}"
        events = state.go() if action == "go" else state.play(action)
        done.append((seat, sum(e.points for e in events if e.seat == seat)))
    return done


@pytest.mark.parametrize("vector", SETS["polish"]["goes"], ids=lambda v: v["cite"])
def test_polish_go_examples(vector: dict[str, Any]) -> None:
    for scoring, key in ((scoring_of("polish"), "points_after_go"), (ACC, "acc_points_after_go")):
        state = PlayState(vector["hands"], dealer=vector["dealer"], scoring=scoring)
        done = _play_out(state, vector["actions"])
        go_at = vector["actions"].index("go")
        assert state.history[go_at].count == vector["count_before_go"]
        assert sum(points for _, points in done[:go_at]) == 0  # the cards before score nothing
        assert [points for _, points in done[go_at + 1 :]] == vector[key], (key, _cited(vector))


def test_polish_25_pips_example_is_four_points_and_three_under_acc() -> None:
    vector = SETS["polish"]["goes"][0]
    assert vector["count_before_go"] == 25
    assert sum(vector["points_after_go"]) == 4
    assert sum(vector["acc_points_after_go"]) == 3


def test_polish_deal_played_through_to_its_scores() -> None:
    deal = SETS["polish"]["deal"]
    scoring = scoring_of("polish")
    variant = get_variant(deal["variant"])
    dealer = deal["dealer"]
    totals = [0, 0]
    for seat, points in opening_points(variant, dealer).items():
        totals[seat] += points
    assert totals == deal["opening"]
    kept = [
        [card for card in dealt if card not in thrown]
        for dealt, thrown in zip(deal["dealt"], deal["discards"], strict=True)
    ]
    assert all(len(hand) == variant.hand_size for hand in kept)
    assert len(kept) == variant.players
    state = PlayState(kept, dealer=dealer, single_count=variant.single_count, scoring=scoring)
    _play_out(state, deal["actions"])
    assert state.done and state.points == deal["play_points"]
    # "GO ! there are 28 pips", then "30 pips altogether and nobody has gained 2 p. for 31 pips"
    assert [event.count for event in state.history[-2:]] == [28, 30]
    hands = [score_hand(hand, deal["starter"], scoring=scoring).total for hand in kept]
    assert hands == deal["hand_points"]
    crib = [card for thrown in deal["discards"] for card in thrown]
    crib_points = score_hand(crib, deal["starter"], crib=True, scoring=scoring).total
    assert crib_points == deal["crib_points"]
    for seat in (0, 1):
        totals[seat] += state.points[seat] + hands[seat]
    totals[dealer] += crib_points
    assert totals == deal["totals"] == [7, 15]


def test_polish_deal_with_the_starter_the_text_shows_does_not_give_its_counts() -> None:
    """The note in the vector: with the 3 shown at 000:202 Danusia's hand would be 5, not 12."""
    deal = SETS["polish"]["deal"]
    danusia = [c for c in deal["dealt"][1] if c not in deal["discards"][1]]
    assert score_hand(danusia, "3D").total == 5 != deal["hand_points"][1]


def test_czech_largest_hand_is_32_under_runs_of_two_not_the_29_the_text_says() -> None:
    largest = SETS["czech"]["largest"]
    scoring = scoring_of("czech")
    assert score_hand(largest["hand"], largest["starter"], scoring=scoring).total == 32
    assert census(4, scoring=scoring).max_score == largest["total"] == 32
    assert census(4).max_score == 29  # what the text says holds under runs of three


def test_finnish_three_player_deal() -> None:
    deal = SETS["finnish"]["deal"]
    variant = get_variant(deal["variant"])
    assert [variant.cards_dealt(offset) for offset in range(3)] == [deal["dealt_each"]] * 3
    assert variant.crib_from_deck == deal["crib_from_deck"]
    assert [variant.discards_of(offset) for offset in range(3)] == [deal["discard_each"]] * 3
    assert variant.hand_size == deal["hand"] and variant.crib_size == deal["crib"]
    play = SETS["finnish"]["play"]
    assert len(play["hands"]) == variant.players
    state = PlayState(
        play["hands"],
        dealer=play["dealer"],
        single_count=variant.single_count,
        scoring=scoring_of("finnish"),
    )
    done = _play_out(state, play["actions"])
    assert [seat for seat, _ in done] == play["turns"]
    assert state.done and state.points == play["points"]
    example = play["count_example"]
    assert score_play(example["cards"]).count == example["count"]


def test_finnish_possible_scores_are_the_texts() -> None:
    possible = SETS["finnish"]["possible"]
    got = census(4, scoring=scoring_of("finnish")).possible()
    assert set(range(30)) - got == set(possible["impossible_below_30"])
    assert max(got) == 29


def test_finnish_runs_of_three() -> None:
    runs = SETS["finnish"]["runs"]
    assert _run_points(score_play(runs["cards"], scoring=scoring_of("finnish")).reasons) == 3


@pytest.mark.parametrize("game", SETS["english"]["lines"]["games"], ids=str)
def test_english_lines_are_fractions_of_the_target(game: dict[str, int]) -> None:
    preset = get_preset(SETS["english"]["rules"])
    points = preset.game_points(game["target"], game["loser"], fractions=True)
    assert points == game["game_points"], game


def test_english_lines_differ_from_the_margins_at_61() -> None:
    assert lines_failed(61, 40, fractions=True) == 1 and lines_failed(61, 40) == 0
    assert lines_failed(61, 30, fractions=True) == 2 and lines_failed(61, 30) == 1


def test_scoring_switches_of_each_rule_set() -> None:
    assert scoring_of("acc") is ACC
    assert scoring_of("polish") == Scoring(go_per_card=True)
    assert scoring_of("czech") == Scoring(run_min=2, crib_four_flush=True)
    assert scoring_of("finnish") is ACC and scoring_of("english") is ACC
