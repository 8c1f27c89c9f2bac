"""Standings, round robin, cut and bracket: the pure parts, with hypothesis properties."""

from __future__ import annotations

import csv
import io
import itertools
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.standings import StandingsError, by_hand, formats
from boardctl.standings.bracket import BYE, bracket, cut, cut_size, seed_order
from boardctl.standings.games import Game, dedupe, from_record
from boardctl.standings.roundrobin import schedule
from boardctl.standings.table import standings

PLAYERS = [f"P{i}" for i in range(16)]


@st.composite
def games(draw: st.DrawFn) -> list[Game]:
    count = draw(st.integers(0, 30))
    out = []
    for n in range(count):
        a, b = draw(st.lists(st.sampled_from(PLAYERS[:8]), min_size=2, max_size=2, unique=True))
        loser = draw(st.integers(0, 120))
        winner = draw(st.integers(0, 1))
        scores = (121, loser) if winner == 0 else (loser, 121)
        skunk = 1 if loser < 91 else 0
        out.append(Game("b1", str(n), (a, b), scores, winner, 3 if skunk else 2, skunk, f"t{n:03}"))
    return out


@given(games(), st.randoms())
def test_standings_do_not_depend_on_the_order_of_the_games(
    played: list[Game], rnd: random.Random
) -> None:
    shuffled = list(played)
    rnd.shuffle(shuffled)
    assert standings(shuffled) == standings(played)


@given(games())
def test_standings_add_up_and_are_ranked_by_points_wins_spread(played: list[Game]) -> None:
    rows = standings(played)
    assert sum(r.wins for r in rows) == len(played)
    assert sum(r.games for r in rows) == 2 * len(played)
    assert sum(r.spread for r in rows) == 0  # two-player games: one's gain is the other's loss
    assert sum(r.game_points for r in rows) == sum(g.game_points for g in played)
    assert sum(r.skunks_given for r in rows) == sum(r.skunks_taken for r in rows)
    keys = [(-r.game_points, -r.wins, -r.spread) for r in rows]
    assert keys == sorted(keys)
    for before, after in itertools.pairwise(rows):
        same = (before.game_points, before.wins, before.spread) == (
            after.game_points,
            after.wins,
            after.spread,
        )
        assert (after.place == before.place) == same
    for row in rows:  # an independent recount of one player
        mine = [g for g in played if row.player in g.names]
        won = [g for g in mine if g.names[g.winner] == row.player]
        assert (row.games, row.wins) == (len(mine), len(won))
        assert row.game_points == sum(g.game_points for g in won)


@given(games())
def test_a_game_delivered_twice_counts_once(played: list[Game]) -> None:
    assert standings(dedupe(played + played)) == standings(played)


def test_acc_tie_breaks_game_points_then_wins_then_spread() -> None:
    played = [
        Game("b", "1", ("Ann", "Bob"), (121, 60), 0, 3, 1, "1"),  # Ann 3 GP (a skunk)
        Game("b", "2", ("Cat", "Dan"), (121, 119), 0, 2, 0, "2"),
        Game("b", "3", ("Cat", "Eve"), (110, 121), 1, 2, 0, "3"),
        Game("b", "4", ("Dan", "Eve"), (121, 100), 0, 2, 0, "4"),
    ]
    rows = {r.player: r for r in standings(played)}
    assert rows["Ann"].place == 1 and rows["Ann"].skunks_given == 1
    assert rows["Bob"].skunks_taken == 1 and rows["Bob"].spread == -61
    # Cat, Dan and Eve: 2 GP and one win each; spread decides:
    # Dan -2 +21 = 19, Cat +2 -11 = -9, Eve +11 -21 = -10
    assert [r.player for r in standings(played)][1:4] == ["Dan", "Cat", "Eve"]
    assert (rows["Dan"].spread, rows["Cat"].spread, rows["Eve"].spread) == (19, -9, -10)


@given(st.integers(2, 15), st.integers(1, 6))
@settings(max_examples=60)
def test_round_robin_every_pair_meets_once_and_nobody_plays_twice_a_round(
    n: int, boards: int
) -> None:
    names = PLAYERS[:n]
    rounds = schedule(names, boards)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    pairs = [frozenset((g.first, g.second)) for r in rounds for g in r.games]
    assert sorted(map(sorted, pairs)) == sorted(
        map(sorted, map(frozenset, itertools.combinations(names, 2)))
    )
    byes = [r.bye for r in rounds]
    if n % 2:
        assert sorted(byes, key=str) == sorted(names)  # each sits out exactly once
    else:
        assert byes == [None] * len(rounds)
    for r in rounds:
        seated = [p for g in r.games for p in (g.first, g.second)]
        assert len(seated) == len(set(seated)) == n - (n % 2)
        slots = [(g.wave, g.board) for g in r.games]
        assert len(set(slots)) == len(slots) and all(1 <= b <= boards for _, b in slots)


def test_round_robin_refuses_what_cannot_be_scheduled() -> None:
    for players, boards in ((["A"], 1), (["A", "a"], 1), (["A", "B"], 0), (["A", " "], 1)):
        with pytest.raises(StandingsError):
            schedule(players, boards)


@given(st.integers(0, 6))
def test_seed_order_pairs_sum_and_keeps_the_top_two_apart(power: int) -> None:
    size = 1 << power
    order = seed_order(size)
    assert sorted(order) == list(range(1, size + 1))
    if size > 1:
        assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))
        half = size // 2
        assert (1 in order[:half]) != (2 in order[:half])


def test_seed_order_of_eight_is_the_usual_one() -> None:
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    with pytest.raises(StandingsError):
        seed_order(6)


@given(st.integers(2, 40))
def test_the_cut_is_the_top_quarter_rounded_up(entrants: int) -> None:
    size = cut_size(entrants)
    assert size >= 2 and size >= entrants / 4 and (size - 1 < entrants / 4 or size == 2)


@given(st.integers(2, 12), st.sampled_from([3, 5]), st.randoms())
@settings(max_examples=60)
def test_a_bracket_played_out_crowns_one_seed_with_byes_to_the_top_seeds(
    n: int, best_of: int, rnd: random.Random
) -> None:
    seeds = PLAYERS[:n]
    size = 1 << (n - 1).bit_length()
    first = bracket(seeds, [], best_of=best_of)[0]
    byes = [m.first if m.second == BYE else m.second for m in first if BYE in (m.first, m.second)]
    assert sorted(byes, key=lambda name: seeds.index(str(name))) == seeds[: size - n]
    played: list[Game] = []
    need = best_of // 2 + 1
    while True:  # play every match that is ready, until the final is decided
        rounds = bracket(seeds, played, best_of=best_of)
        ready = [
            m for r in rounds for m in r if m.winner is None and None not in (m.first, m.second)
        ]
        if not ready:
            break
        for m in ready:
            assert m.first is not None and m.second is not None
            w = rnd.randrange(2)
            played.append(
                Game(
                    "b", str(len(played)), (m.first, m.second), (121, 90)[:: 1 - 2 * w], w, 2, 0, ""
                )
            )
    rounds = bracket(seeds, played, best_of=best_of)
    assert len(rounds) == size.bit_length() - 1
    champion = rounds[-1][0].winner
    assert champion in seeds
    for r in rounds:
        for m in r:
            if BYE not in (m.first, m.second):
                assert max(m.first_wins, m.second_wins) == need
                assert min(m.first_wins, m.second_wins) < need


def test_the_cut_and_a_best_of_three_with_a_bye() -> None:
    played = [
        Game("b", str(i), (a, b), (121, 100), 0, 2, 0, f"{i}")
        for i, (a, b) in enumerate(
            [
                *[("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")],
                *[("A", "E"), ("B", "E"), ("C", "E"), ("D", "E"), ("A", "F"), ("B", "F")],
            ]
        )
    ]
    rows = standings(played)
    assert cut(rows) == ["A", "B"]  # six players: a quarter is 1.5, so two
    three = bracket(["A", "B", "C"], [], best_of=3)
    assert [(m.first, m.second, m.winner) for m in three[0]] == [("A", BYE, "A"), ("B", "C", None)]
    final = bracket(
        ["A", "B", "C"],
        [
            Game("b", "x", ("C", "B"), (121, 99), 0, 2, 0, ""),
            Game("b", "y", ("B", "C"), (121, 99), 0, 2, 0, ""),
            Game("b", "z", ("B", "C"), (80, 121), 1, 3, 1, ""),  # a skunk is still one win
        ],
    )
    assert final[0][1].winner == "C" and (final[0][1].first_wins, final[0][1].second_wins) == (1, 2)
    assert (final[1][0].first, final[1][0].second, final[1][0].winner) == ("A", "C", None)
    with pytest.raises(StandingsError):
        bracket(["A", "B"], [], best_of=4)


def test_result_records_are_checked() -> None:
    good = {
        "id": "1",
        "board": "b",
        "names": ["A", "B"],
        "scores": [121, 80],
        "winner": 0,
        "game_points": 3,
        "skunk": 1,
        "end": "x",
    }
    assert from_record(good).margin(1) == -41
    for change in (
        {"winner": 1},  # not the top score
        {"scores": [121]},
        {"names": ["A", "a"]},
        {"game_points": "2"},
        {"names": "AB"},
        {"game_points": 1_000_000},  # forged: more than any preset gives
        {"game_points": 4, "preset": "acc"},  # ACC gives 3 at most
        {"game_points": 0, "preset": "acc"},
        {"game_points": 100},
        {"scores": [1_000_000, 80]},
        {"scores": [121, 121]},  # two on the top score
        {"target": 121, "scores": [120, 80]},  # the winner short of the target
        {"spread": 100},  # not the scores' spread
        {"winner_name": "B"},
        {"skunk": 4},
        {"names": ["A" * 101, "B"]},
        {"names": ["A", "B", "C", "D", "E", "F", "G"], "scores": [121, 1, 1, 1, 1, 1, 1]},
        {"final": "yes"},
    ):
        with pytest.raises(StandingsError):
            from_record({**good, **change})


def test_manual_games_are_stored_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "manual.jsonl"
    skunked = by_hand.manual_game([("Ann", 121), ("Bob", 80)], end="2026-12-01T19:00:00.000Z")
    close = by_hand.manual_game([("Ann", 115), ("Cat\u2028Lee", 121)], board="table-3")
    assert (skunked.game_points, skunked.skunk, close.game_points, close.skunk) == (3, 1, 2, 0)
    by_hand.add(path, skunked)
    by_hand.add(path, close)
    assert by_hand.load(path) == [skunked, close]
    assert by_hand.load(tmp_path / "none.jsonl") == []
    for bad in ([("Ann", 121)], [("Ann", 121), ("Bob", 121)], [("Ann", 100), ("Bob", 90)]):
        with pytest.raises(StandingsError):
            by_hand.manual_game(bad)
    assert by_hand.parse_entry("Mary Ann=121") == ("Mary Ann", 121)
    with pytest.raises(StandingsError):
        by_hand.parse_entry("Ann 121")
    (tmp_path / "bad.jsonl").write_text('{"names": ["A"]}\n')
    with pytest.raises(StandingsError, match=r"bad\.jsonl:1"):
        by_hand.load(tmp_path / "bad.jsonl")


@given(games())
def test_csv_and_json_carry_the_table(played: list[Game]) -> None:
    rows = standings(played)
    parsed = list(csv.DictReader(io.StringIO(formats.csv_text(rows))))
    assert [(r["player"], int(r["game_points"]), int(r["spread"])) for r in parsed] == [
        (r.player, r.game_points, r.spread) for r in rows
    ]
    document = json.loads(formats.json_text(rows, games=len(played)))
    assert document["games"] == len(played) and len(document["standings"]) == len(rows)
    assert len(formats.table(rows).splitlines()) == len(rows) + 1


def test_the_command_line_adds_ranks_and_schedules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardctl.cli import main

    manual = str(tmp_path / "manual.jsonl")
    assert main(["standings", "--manual", manual, "add", "Ann=121", "Bob=80"]) == 0
    # as docs/standings.md writes it: --manual after the game
    assert main(["standings", "add", "Bob=121", "Cat=100", "--end", "T2", "--manual", manual]) == 0
    assert main(["standings", "--manual", manual, "add", "Bob=100", "Cat=99"]) == 1  # no winner
    capsys.readouterr()
    empty = tmp_path / "none.jsonl"
    missing = str(tmp_path / "missing.jsonl")
    assert main(["standings", "--manual", missing, "--from", str(empty), "--csv"]) == 1
    assert "missing.jsonl: no such file" in capsys.readouterr().err  # not silently no games
    assert main(["standings", "--manual", manual, "--from", str(empty), "--csv"]) == 1
    empty.write_text("")
    assert main(["standings", "--manual", manual, "--from", str(empty), "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["player"], r["game_points"], r["wins"]) for r in rows] == [
        ("Ann", "3", "1"),
        ("Bob", "2", "1"),
        ("Cat", "0", "0"),
    ]
    assert main(["standings", "schedule", "Ann", "Bob", "Cat", "--boards", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("board 1:") == 3 and out.count("bye:") == 3
