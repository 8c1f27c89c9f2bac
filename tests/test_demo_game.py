"""Whole demo games: deterministic, complete, and every point both logged and in the engine."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import pairwise

import pytest

from boardctl.cribbage.cards import Card, parse_card, parse_cards
from boardctl.cribbage.hand import score_hand
from boardctl.cribbage.variants import VARIANTS
from boardctl.demo.game import DemoGame, DemoResult
from boardctl.demo.log import Style
from boardctl.game.keeper import Scorekeeper
from tests.test_demo_log import parse_marker

SUPPORTED = ("six-card", "five-card", "three-player", "four-player", "five-player", "six-player")


@dataclass
class Played:
    result: DemoResult
    keeper: Scorekeeper
    track_names: tuple[str, ...]


@cache
def play(seed: int, variant: str = "six-card", unicode: bool = True) -> Played:
    """One finished game (cached: games are deterministic and the tests only read them)."""
    keeper = Scorekeeper.memory()
    game = DemoGame(seed=seed, variant=variant, keeper=keeper, style=Style(unicode=unicode))
    return Played(game.play(), keeper, game.track_names)


def peg_events(keeper: Scorekeeper) -> list[dict[str, object]]:
    return [row["event"] for row in keeper.history() if row["op"] == "peg"]


@dataclass
class Count:
    who: str
    crib: bool
    cards: list[Card]
    starter: Card
    points: int


def shown_counts(lines: list[str]) -> list[Count]:
    """Every hand and crib count the log shows, with the starter of its deal."""
    counts: list[Count] = []
    starter: Card | None = None
    for line in lines:
        start = re.match(r"^The show, starter (\S+):$", line)
        if start:
            starter = parse_card(start[1])
            continue
        if starter is None:
            continue
        parts = line.split(": ", 2)
        if len(parts) != 3 or not re.fullmatch(r"[A-Z][a-z]+('s crib)?", parts[0]):
            starter = None
            continue
        marker = parse_marker(line)
        counts.append(
            Count(
                who=parts[0].removesuffix("'s crib"),
                crib=parts[0].endswith("'s crib"),
                cards=parse_cards(parts[1]),
                starter=starter,
                points=marker[1] if marker else 0,
            )
        )
    return counts


def test_same_seed_same_game_other_seed_other_game() -> None:
    first = DemoGame(seed=42).play()
    again = DemoGame(seed=42).play()
    other = DemoGame(seed=43).play()
    assert first.lines == again.lines
    assert first.lines != other.lines
    assert len(first.lines) > 100


@pytest.mark.parametrize("variant", SUPPORTED)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_variant_plays_to_a_winner_at_the_target(variant: str, seed: int) -> None:
    played = play(seed, variant)
    result, state = played.result, played.keeper.state
    target = VARIANTS[variant].target
    assert state.phase == "over"
    assert result.winner == state.winner
    winner = result.winner
    assert winner is not None
    assert result.scores[winner] == target
    assert all(s < target for t, s in enumerate(result.scores) if t != winner)
    assert result.game_points == state.won_points >= 1
    winner_name = played.track_names[winner]
    team = len(VARIANTS[variant].teams[winner]) > 1  # "Alice & Carol win", plural
    wins, takes = ("win", "take") if team else ("wins", "takes")
    assert result.lines[-1].startswith(f"{winner_name} {wins} (")
    assert f"{takes} {result.game_points} game point" in result.lines[-1]
    assert ("no skunk" in result.lines[-1]) == (result.lines_failed == 0)
    assert "skunk" in result.lines[-1]  # the last line always says whether it was a skunk


@pytest.mark.parametrize("variant", SUPPORTED)
def test_the_log_tells_every_point_the_engine_pegged(variant: str) -> None:
    played = play(4, variant)
    target = VARIANTS[variant].target
    totals: Counter[str] = Counter()
    logged: list[tuple[str, int]] = []
    for line in played.result.lines:
        marker = parse_marker(line)
        if marker is None:
            continue
        name, points, total = marker
        totals[name] = min(totals[name] + points, target)
        assert total == totals[name], line
        logged.append((name, points))
    final = {t.name: t.front for t in played.keeper.view().tracks}
    assert dict(totals) == {name: score for name, score in final.items() if score}
    # The same entries, in the same order, went to the engine (zero counts aside).
    pegged = [
        (played.track_names[int(e["track"])], int(e["points"]))  # type: ignore[call-overload]
        for e in peg_events(played.keeper)
        if e["points"]
    ]
    three_for_last = [(n, p) for n, p in logged if p == 3][:1] if variant == "five-card" else []
    assert three_for_last + pegged == logged


@pytest.mark.parametrize("variant", SUPPORTED)
def test_every_count_is_the_rules_engines_score_and_was_entered(variant: str) -> None:
    played = play(5, variant)
    counts = shown_counts(played.result.lines)
    per_deal = VARIANTS[variant].players + 1  # every hand, then the crib
    assert per_deal * (played.result.deals - 1) <= len(counts) <= per_deal * played.result.deals
    for count in counts:
        score = score_hand(count.cards, count.starter, crib=count.crib)
        assert score.total == count.points, count
    entered = [e for e in peg_events(played.keeper) if e["kind"] in ("hand", "crib")]
    assert [int(e["points"]) for e in entered] == [c.points for c in counts]  # type: ignore[call-overload]
    assert [e["kind"] == "crib" for e in entered] == [c.crib for c in counts]


def test_pegging_go_and_last_card_are_pegging_entries() -> None:
    played = play(6)
    kinds = Counter(str(e["kind"]) for e in peg_events(played.keeper))
    assert set(kinds) <= {"pegging", "hand", "crib", "heels"}
    lines = played.result.lines
    go_points = [line for line in lines if re.search(r": one for (the go|last card)\.", line)]
    assert go_points, "no go or last card in a whole game"
    plays = [line for line in lines if " plays " in line and parse_marker(line)]
    assert kinds["pegging"] == len(go_points) + len(plays)


@pytest.mark.parametrize("variant", SUPPORTED)
def test_the_player_who_pegs_the_go_does_not_say_go_to_themselves(variant: str) -> None:
    seen_after_own_card = False
    for seed in range(4):
        lines = play(seed, variant).result.lines
        for before, line in pairwise(lines):
            pegged = re.match(r"(\w+): one for (the go|last card)\.", line)
            if not pegged:
                continue
            name = pegged.group(1)
            assert before != f"{name}: go.", (seed, before, line)
            said = re.match(r"(\w+): go\.$", before)
            played = re.match(r"(\w+) plays ", before)
            assert said or played, (seed, before, line)
            if said:
                assert said.group(1) != name
            elif pegged.group(2) == "the go":
                assert played and played.group(1) == name
                seen_after_own_card = True
    if variant == "six-card":
        # "Bob: go. Alice plays A (count 29). Alice: one for the go." happens.
        assert seen_after_own_card


def test_some_seed_counts_out_and_the_later_counts_are_not_entered() -> None:
    for seed in range(60):
        played = play(seed)
        lines = played.result.lines
        out = [line for line in lines if " counts out: " in line]
        if not out:
            continue
        # The winning entry was a count, the last the engine took.
        events = peg_events(played.keeper)
        assert events[-1]["kind"] in ("hand", "crib")
        assert played.keeper.state.winner is not None
        # Fewer counts in the last deal than a full show (players' hands and the crib).
        last_show = max(i for i, line in enumerate(lines) if line.startswith("The show"))
        counted = shown_counts(lines[last_show:])
        assert len(counted) < VARIANTS["six-card"].players + 1
        assert "not counted" in out[0]
        return
    pytest.fail("no game in 60 seeds was won by counting out")


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_five_card_three_for_last_is_pegged_once_to_the_first_non_dealer(seed: int) -> None:
    played = play(seed, "five-card")
    lines = played.result.lines
    said = [line for line in lines if "pegs three for last" in line]
    assert len(said) == 1
    first_dealer = re.search(r"(\w+) cuts lowest and deals first", "\n".join(lines))
    assert first_dealer is not None
    assert not said[0].startswith(first_dealer[1])
    assert parse_marker(said[0]) is not None
    assert parse_marker(said[0])[1] == 3  # type: ignore[index]
    # The engine pegged it with the cut for the first deal, and never again.
    rows = played.keeper.history()
    cut = next(row for row in rows if row["op"] == "cut")
    assert sorted(cut["scores"]) == [0, 3]
    assert all(e["kind"] != "last" for e in peg_events(played.keeper))
    # One count only: no play line ever shows a count after a reset.
    for deal in "\n".join(lines).split("\nThe play:")[1:]:
        counts = [int(c) for c in re.findall(r"\(count (\d+)\)", deal.split("The show")[0])]
        assert counts == sorted(counts)


def test_ascii_style_has_no_suit_symbols() -> None:
    played = play(7, "six-card", unicode=False)
    text = "\n".join(played.result.lines)
    assert not re.search(r"[♠♥♦♣→]", text)
    assert re.search(r"\b(10|[2-9AJQK])[SHDC]\b", text)


def test_a_jack_starter_gives_the_dealer_his_heels() -> None:
    for seed in range(20):
        played = play(seed)
        lines = played.result.lines
        for index, line in enumerate(lines):
            turned = re.search(r"(\w+) turns up the starter: J\S+\.$", line)
            if not turned:
                continue
            heels = lines[index + 1]
            assert heels.startswith(f"His heels: {turned[1]} pegs two.")
            assert parse_marker(heels) is not None
            assert parse_marker(heels)[:2] == (turned[1], 2)  # type: ignore[index]
            kinds = [e for e in peg_events(played.keeper) if e["kind"] == "heels"]
            assert kinds and all(e["points"] == 2 for e in kinds)
            return
    pytest.fail("no jack was turned up in 20 games")


def test_game_points_follow_the_acc_preset_and_skunks_are_announced() -> None:
    skunks = 0
    for seed in range(24):
        result = play(seed).result
        loser = min(result.scores)
        assert (result.lines_failed > 0) == (loser < 91)
        assert result.game_points == (3 if loser < 91 else 2)
        assert ("a skunk" in result.lines[-1] or "double skunk" in result.lines[-1]) == (loser < 91)
        skunks += loser < 91
    assert 0 < skunks < 24
