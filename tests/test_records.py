"""Player records over a 200-game journal equal a brute-force recount; the roster names players."""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path

import pytest

from boardctl.cli import main
from boardctl.errors import EntryError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.results.records import records
from boardctl.results.source import load_games
from boardctl.store.journal import Journal
from tests.results_oracle import recount
from tools.random_player import random_command

ROSTER = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"]


def season(path: Path, games: int, seed: int = 7) -> None:
    """``games`` finished games between rotating pairs (names typed in any case), with undos."""
    rng = random.Random(seed)
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "guided"})
    keeper.apply(parse_command({"op": "set", "key": "roster", "value": ROSTER}))
    finished = 0
    while finished < games:
        a, b = rng.sample(ROSTER, 2)
        keeper.apply(
            parse_command({"op": "new_game", "match": 0, "names": [a.lower(), f" {b.upper()} "]})
        )
        while keeper.state.winner is None or rng.random() < 0.2:
            with contextlib.suppress(EntryError):
                if keeper.state.winner is not None:
                    keeper.apply(parse_command({"op": rng.choice(("undo", "redo"))}))
                else:
                    keeper.apply(random_command(keeper.state, rng))
        finished += 1
    with Journal.open(path) as journal:
        journal.append_all((row["event"], row["at"]) for row in keeper.history(all_games=True))


def brute_force(path: Path) -> dict[str, dict[str, object]]:
    """Each player's record, counted game by game from the independent recount."""
    games = recount(path)
    out: dict[str, dict[str, object]] = {}
    for name in ROSTER:
        mine = [(g, g["names"].index(name)) for g in games if name in g["names"]]
        wins = [g for g, t in mine if g["winner"] == t]
        hands = [p for g, t in mine for (_, tr, k, p) in g["entries"] if tr == t and k == "hand"]
        cribs = [p for g, t in mine for (_, tr, k, p) in g["entries"] if tr == t and k == "crib"]
        pegging = sum(
            p for g, t in mine for (_, tr, k, p) in g["entries"] if tr == t and k == "pegging"
        )
        deals = 0
        for g, _ in mine:
            counted = [e for e in g["entries"] if e[2] == "crib"]
            last = g["entries"][-1]
            deals += len(counted) + (0 if last[2] == "crib" else 1)
        out[name] = {
            "games": len(mine),
            "wins": len(wins),
            "game_points": sum(g["match_points"][g["winner"]] for g in wins),
            "skunks_given": sum(1 for g in wins if g["skunk"]),
            "skunks_taken": sum(1 for g, t in mine if g["winner"] != t and g["scores"][t] < 91),
            "spread": sum(g["scores"][t] - g["scores"][1 - t] for g, t in mine),
            "hands": (len(hands), sum(hands)),
            "cribs": (len(cribs), sum(cribs)),
            "pegging": (deals, pegging),
            "big": {n: sum(1 for p in hands + cribs if p == n) for n in (24, 28, 29)},
        }
    return out


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("season") / "journal.sqlite"
    season(path, 200)
    return path


def test_records_over_200_games_equal_a_brute_force_recount(journal: Path) -> None:
    games = load_games(journal, board="t")
    assert len(games) == 200
    recs = records(games)
    expected = brute_force(journal)
    # the roster's spelling, whatever case was typed
    assert set(expected) == {p.name for p in recs.players.values()}
    for record in recs.players.values():
        e = expected[record.name]
        got = {
            "games": record.games,
            "wins": record.wins,
            "game_points": record.game_points,
            "skunks_given": record.skunks_given,
            "skunks_taken": record.skunks_taken,
            "spread": record.spread_total,
            "hands": (record.hands, record.hand_points),
            "cribs": (record.cribs, record.crib_points),
            "pegging": (record.deals, record.pegging_points),
            "big": record.big_hands,
        }
        assert got == e, record.name
    assert sum(p.games for p in recs.players.values()) == 400
    assert sum(sum(p.big_hands.values()) for p in recs.players.values()) > 0


def test_head_to_head_adds_up(journal: Path) -> None:
    recs = records(load_games(journal, board="t"))
    assert sum(h.games for h in recs.pairs.values()) == 200
    for h in recs.pairs.values():
        assert h.first_wins + h.second_wins == h.games
        assert h.first.casefold() < h.second.casefold()
    by_name = {p.name: p for p in recs.players.values()}
    for name, player in by_name.items():
        wins = sum(
            h.first_wins if h.first == name else h.second_wins
            for h in recs.pairs.values()
            if name in (h.first, h.second)
        )
        assert wins == player.wins


def test_cli_stats_players(journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "players", "--journal", str(journal), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {p["name"] for p in data["players"]} == set(ROSTER)
    assert main(["stats", "players", "--journal", str(journal), "--player", "ALICE"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].startswith("player") and "Alice v " in text


def test_roster_makes_names_players(tmp_path: Path) -> None:
    keeper = Scorekeeper.memory({"variant": "four-player"})
    keeper.apply(
        parse_command({"op": "set", "key": "roster", "value": ["Alice", "Bob", "Carol", "Dave"]})
    )
    keeper.apply(
        parse_command({"op": "set", "key": "names", "value": ["alice &  CAROL", "bob, dave"]})
    )
    assert keeper.state.setup.track_names() == ("Alice & Carol", "Bob & Dave")
    with pytest.raises(EntryError, match="'Eve' is not on the roster"):
        keeper.apply(
            parse_command({"op": "set", "key": "names", "value": ["Eve & Alice", "Bob & Dave"]})
        )
    with pytest.raises(EntryError, match="twice"):
        keeper.apply(parse_command({"op": "set", "key": "roster", "value": ["Ann", "ann"]}))
    keeper.apply(parse_command({"op": "new_game"}))  # the roster is kept from game to game
    assert keeper.state.setup.roster == ("Alice", "Bob", "Carol", "Dave")
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup={"variant": "six-card"}) as written:
        written.apply(parse_command({"op": "set", "key": "roster", "value": ["Ann", "Bo"]}))
        written.apply(parse_command({"op": "new_game", "names": ["ann", "bo"]}))
    with Scorekeeper.open(path, readonly=True) as read:  # replayed from the journal
        assert read.state.setup.track_names() == ("Ann", "Bo")
