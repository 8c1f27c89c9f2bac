"""Partnerships in the standings: teams ranked as entrants, or every partner credited."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.demo.game import DemoGame
from boardctl.game.keeper import Scorekeeper
from boardctl.results.source import load_games
from boardctl.standings import StandingsError
from boardctl.standings.bracket import bracket, cut
from boardctl.standings.games import Game, entrant_key, from_record, split_team
from boardctl.standings.table import standings

PLAYERS = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]


def team_game(n: int, first: list[str], second: list[str], winner: int, loser: int) -> Game:
    scores = [121, loser] if winner == 0 else [loser, 121]
    skunk = 1 if loser < 91 else 0
    return from_record(
        {
            "id": str(n),
            "board": "b",
            "names": [" & ".join(first), " & ".join(second)],
            "players": [first, second],
            "scores": scores,
            "winner": winner,
            "game_points": 3 if skunk else 2,
            "skunk": skunk,
            "end": f"t{n:03}",
        }
    )


@st.composite
def partner_games(draw: st.DrawFn) -> list[Game]:
    out = []
    for n in range(draw(st.integers(0, 20))):
        four = draw(st.permutations(PLAYERS))[:4]
        out.append(
            team_game(n, four[:2], four[2:], draw(st.integers(0, 1)), draw(st.integers(0, 120)))
        )
    return out


def test_a_team_is_its_set_of_players_whatever_the_order_or_case() -> None:
    assert split_team("Ann & Cat") == ("Ann", "Cat")
    assert split_team("Al, Bea & Cy") == ("Al", "Bea", "Cy")
    assert split_team("Reds") == ("Reds",)
    assert entrant_key(["Ann", "Cat"]) == entrant_key(["cat", " Ann"])
    assert entrant_key(["Ann"]) != entrant_key(["Ann", "Cat"])
    played = [
        team_game(1, ["Ann", "Cat"], ["Bob", "Dan"], 0, 80),  # a skunk: 3 game points
        team_game(2, ["cat", "ann"], ["Eve", "Fay"], 1, 110),  # the same team, names swapped
        team_game(3, ["Bob", "Dan"], ["Eve", "Fay"], 0, 100),
    ]
    rows = standings(played)
    assert [(r.player, r.games, r.wins, r.game_points, r.spread) for r in rows] == [
        ("Ann & Cat", 2, 1, 3, 41 - 11),
        ("Eve & Fay", 2, 1, 2, 11 - 21),
        ("Bob & Dan", 2, 1, 2, -41 + 21),
    ]
    assert rows[0].skunks_given == 1 and rows[2].skunks_taken == 1


def test_by_player_credits_every_partner_with_the_teams_result() -> None:
    played = [
        team_game(1, ["Ann", "Cat"], ["Bob", "Dan"], 0, 80),
        team_game(2, ["Ann", "Bob"], ["Cat", "Dan"], 1, 100),  # partners change
    ]
    rows = {r.player: r for r in standings(played, by="player")}
    assert set(rows) == {"Ann", "Bob", "Cat", "Dan"}
    assert (rows["Ann"].wins, rows["Ann"].game_points, rows["Ann"].spread) == (1, 3, 41 - 21)
    assert (rows["Dan"].wins, rows["Dan"].game_points, rows["Dan"].spread) == (1, 2, -41 + 21)
    assert (rows["Cat"].wins, rows["Cat"].game_points, rows["Cat"].spread) == (2, 5, 62)
    assert rows["Bob"].skunks_taken == 1 and rows["Cat"].skunks_given == 1
    with pytest.raises(StandingsError):
        standings(played, by="seat")


@given(partner_games())
def test_both_ways_agree_with_a_recount(played: list[Game]) -> None:
    teams = standings(played)
    assert sum(r.wins for r in teams) == len(played)
    assert sum(r.games for r in teams) == 2 * len(played)
    people = {r.player: r for r in standings(played, by="player")}
    assert sum(r.games for r in people.values()) == 4 * len(played)
    for name, row in people.items():  # an independent recount of one player
        mine = [(g, t) for g in played for t in (0, 1) if name in g.members(t)]
        won = [g for g, t in mine if t == g.winner]
        assert (row.games, row.wins) == (len(mine), len(won))
        assert row.game_points == sum(g.game_points for g in won)
        assert row.spread == sum(g.margin(t) for g, t in mine)


@given(st.lists(st.tuples(st.sampled_from(PLAYERS), st.sampled_from(PLAYERS)), max_size=10))
def test_in_singles_both_ways_are_the_same_table(pairs: list[tuple[str, str]]) -> None:
    played = [
        Game("b", str(n), (a, b), (121, 100), 0, 2, 0, str(n))
        for n, (a, b) in enumerate(pairs)
        if a != b
    ]
    assert standings(played) == standings(played, by="player")


def test_the_play_off_bracket_matches_teams_by_their_players() -> None:
    qualifying = [
        team_game(1, ["Ann", "Cat"], ["Bob", "Dan"], 0, 100),
        team_game(2, ["Ann", "Cat"], ["Eve", "Fay"], 0, 100),
        team_game(3, ["Bob", "Dan"], ["Eve", "Fay"], 0, 100),
    ]
    seeds = cut(standings(qualifying))
    assert seeds == ["Ann & Cat", "Bob & Dan"]
    final = [
        team_game(10, ["Dan", "Bob"], ["Cat", "Ann"], 0, 110),  # partners named the other way
        team_game(11, ["Cat", "Ann"], ["Bob", "Dan"], 1, 100),
    ]
    (match,) = bracket(seeds, final)[0]
    assert (match.first_wins, match.second_wins, match.winner) == (0, 2, "Bob & Dan")


def test_players_in_a_record_are_checked() -> None:
    good = team_game(1, ["Ann", "Cat"], ["Bob", "Dan"], 0, 100).to_record()
    assert good["players"] == [["Ann", "Cat"], ["Bob", "Dan"]]
    for players in ([["Ann", "Cat"]], [["Ann", "Cat"], []], [["Ann", "Cat"], ["Ann", "Dan"]], "AB"):
        with pytest.raises(StandingsError, match=r"players|two tracks"):
            from_record({**good, "players": players})


def test_a_four_player_game_from_the_journal_ranks_its_teams(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path) as keeper:
        DemoGame(seed=3, variant="four-player", keeper=keeper).play()
    (played,) = load_games(path, board="b")
    game = from_record(played.result.to_dict())  # the record the bridge publishes
    rows = standings([game])
    assert sorted(r.player for r in rows) == ["Alice & Carol", "Bob & Dave"]
    people = standings([game], by="player")
    winners = played.result.players[played.result.winner]
    assert {r.player for r in people if r.wins} == set(winners)
    assert all(r.game_points == played.result.game_points for r in people if r.wins)


def test_the_command_line_ranks_teams_or_players(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardctl.cli import main

    source = tmp_path / "games.jsonl"
    played = [
        team_game(1, ["Ann", "Cat"], ["Bob", "Dan"], 0, 80),
        team_game(2, ["Cat", "Ann"], ["Bob", "Dan"], 1, 119),
    ]
    source.write_text("".join(json.dumps(g.to_record()) + "\n" for g in played))
    (tmp_path / "none.jsonl").write_text("")
    empty = str(tmp_path / "none.jsonl")
    assert main(["standings", "--from", str(source), "--manual", empty, "--csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["player"], r["games"], r["game_points"]) for r in rows] == [
        ("Ann & Cat", "2", "3"),
        ("Bob & Dan", "2", "2"),
    ]
    args = ["standings", "--from", str(source), "--manual", empty, "--csv", "--by", "player"]
    assert main(args) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["player"] for r in rows] == ["Ann", "Cat", "Bob", "Dan"]
    assert main([*args, "--playoffs-since", "t002"]) == 1  # a bracket of single partners
    assert "between teams" in capsys.readouterr().err
