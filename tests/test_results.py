"""Results derived from the journal equal an independent recount; the exports round-trip."""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cli import main
from boardctl.demo.game import DemoGame
from boardctl.errors import EntryError, ResultsError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.game.setup import members
from boardctl.results.export import read_csv, read_rows, write_csv, write_jsonl
from boardctl.results.model import FIELDS, FORMAT, GameResult
from boardctl.results.source import load_games, parse_since
from boardctl.store.journal import Journal
from tests.results_oracle import recount
from tools.random_player import random_command

COMPARED = ("match", "game", "names", "scores", "winner", "spread", "skunk", "match_points",
            "match_winner", "start", "end", "first_seq", "won_seq", "seq", "crc",
            "final")  # fmt: skip


def save(keeper: Scorekeeper, path: Path) -> None:
    """A memory scorekeeper's events into a journal file, in one transaction (fast)."""
    with Journal.open(path) as journal:
        journal.append_all((row["event"], row["at"]) for row in keeper.history(all_games=True))


def demo_journal(path: Path, seeds: range, *, undo_wins: bool = True) -> None:
    """Demo games (real cards) into one journal; some winning entries undone and redone."""
    keeper = Scorekeeper.memory()
    for seed in seeds:
        names = ("Ann", "Bo") if seed % 2 else ("Cy", "Ann")
        DemoGame(seed=seed, names=names, keeper=keeper).play()
        if undo_wins and seed % 3 == 0:
            keeper.apply(parse_command({"op": "undo"}))  # the winning count is taken back...
            keeper.apply(
                parse_command({"op": "redo"})
            )  # ...and put back: the game ends at the redo
        if undo_wins and seed % 3 == 1:
            keeper.apply(
                parse_command({"op": "undo"})
            )  # taken back, and the board moves on: no result
            keeper.apply(parse_command({"op": "new_game"}))
    save(keeper, path)


def random_journal(path: Path, seed: int, commands: int) -> None:
    """The engine's random player (undo, redo, mistakes) over matches to 7 game points."""
    rng = random.Random(seed)
    keeper = Scorekeeper.memory({"variant": "six-card", "match": 7, "names": ["Ann", "Bo"]})
    for _ in range(commands):
        with contextlib.suppress(EntryError):
            keeper.apply(random_command(keeper.state, rng))
    save(keeper, path)


def compare(path: Path) -> int:
    games = load_games(path, board="test")
    expected = recount(path)
    assert [{k: getattr(g.result, k) for k in COMPARED} for g in games] == [
        {k: e[k] for k in COMPARED} for e in expected
    ]
    previous: dict[tuple[int, int], int] = {}  # (match, track) -> game points so far
    for game, exp in zip(games, expected, strict=True):
        got = tuple((e.seq, e.track, e.kind, e.points) for e in game.entries)
        assert got == exp["entries"]
        r = game.result
        before = previous.get((r.match, r.winner), 0)
        assert r.game_points == r.match_points[r.winner] - before
        previous.update(((r.match, t), p) for t, p in enumerate(r.match_points))
    return len(games)


def test_demo_games_match_an_independent_recount(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    demo_journal(path, range(9))
    assert compare(path) == 6  # 9 games, 3 of them abandoned after the win was undone
    games = load_games(path, board="test")
    assert all(g.result.final for g in games[:-1])
    assert not games[-1].result.final  # the last game: the board has not moved on
    redone = games[0].result  # seed 0: the win was undone and redone
    assert redone.won_seq == redone.seq  # the redo is the event that won
    assert {r.result.variant for r in games} == {"six-card"}


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_random_play_with_undo_matches_an_independent_recount(seed: int) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.sqlite"
        random_journal(path, seed, 1200)
        assert compare(path) >= 1


def test_match_points_accumulate_and_the_match_ends(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    random_journal(path, 4, 3000)
    results = [g.result for g in load_games(path, board="test")]
    assert len({r.match for r in results}) >= 2
    for r in results:
        assert r.match_format == "points:7"
        assert (r.match_winner is not None) == (max(r.match_points) >= 7)
        assert r.game_points in (2, 3)
        assert r.skunk == (1 if r.game_points == 3 else 0) or r.skunk > 1


def test_partnership_names_split_into_players() -> None:
    assert members("Alice & Carol", 2) == ("Alice", "Carol")
    assert members("Al, Bea & Cy", 3) == ("Al", "Bea", "Cy")
    assert members("Reds", 2) == ("Reds",)
    assert members("Tom & Jerry", 1) == ("Tom & Jerry",)


def test_four_player_game_has_teams(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path) as keeper:
        DemoGame(seed=3, variant="four-player", keeper=keeper).play()
    (game,) = load_games(path, board="b")
    assert game.result.players == (("Alice", "Carol"), ("Bob", "Dave"))
    assert game.seat_players == ("Alice", "Bob", "Carol", "Dave")
    hands = [e for e in game.entries if e.kind == "hand"]
    assert hands and all(e.seat is not None and e.track == e.seat % 2 for e in hands)


# --- the exports ------------------------------------------------------------------

#: any text, with the characters that end a line somewhere (U+2028 ends one for str.splitlines)
names = st.text(
    st.characters(exclude_categories=["Cs"]) | st.sampled_from('\r\n\x85\u2028\u2029,"'),
    min_size=1,
    max_size=24,
)
ints = st.integers(-(10**6), 10**6)


@st.composite
def results(draw: st.DrawFn) -> GameResult:
    tracks = draw(st.integers(1, 5))
    per = st.lists(ints, min_size=tracks, max_size=tracks).map(tuple)
    return GameResult(
        format=FORMAT,
        board=draw(names),
        match=draw(ints),
        game=draw(ints),
        variant=draw(names),
        rules=draw(names),
        target=draw(ints),
        mode=draw(names),
        preset=draw(names),
        match_format=draw(names),
        names=tuple(draw(st.lists(names, min_size=tracks, max_size=tracks))),
        players=tuple(tuple(draw(st.lists(names, min_size=1, max_size=3))) for _ in range(tracks)),
        scores=draw(per),
        winner=draw(ints),
        winner_name=draw(st.text()),
        spread=draw(ints),
        skunk=draw(ints),
        game_points=draw(ints),
        match_points=draw(per),
        match_winner=draw(st.none() | ints),
        deals=draw(ints),
        start=draw(st.text()),
        end=draw(st.text()),
        first_seq=draw(ints),
        won_seq=draw(ints),
        seq=draw(ints),
        crc=draw(st.text()),
        final=draw(st.booleans()),
        confirm=draw(st.booleans()),
        confirmed=tuple(draw(st.lists(st.integers(0, 4), max_size=tracks))),
        key=draw(st.text()),
        hmac=draw(st.text()),
    )


def read_jsonl(lines: Iterable[str]) -> list[GameResult]:
    """The results of a JSON-lines export (blank lines skipped)."""
    return [GameResult.from_dict(json.loads(line)) for line in lines if line.strip()]


@settings(max_examples=150, deadline=None)
@given(st.lists(results(), max_size=4))
def test_csv_round_trips(rows: list[GameResult]) -> None:
    out = io.StringIO(newline="")
    write_csv(rows, out)
    assert list(read_csv(io.StringIO(out.getvalue(), newline=""))) == rows


@settings(max_examples=150, deadline=None)
@given(st.lists(results(), max_size=4))
def test_jsonl_round_trips(rows: list[GameResult]) -> None:
    out = io.StringIO()
    write_jsonl(rows, out)
    assert read_jsonl(io.StringIO(out.getvalue())) == rows
    assert read_rows(out.getvalue()) == [row.to_dict() for row in rows]  # as `results --verify`


def test_csv_header_is_the_documented_one(repo_root: Path) -> None:
    doc = (repo_root / "docs" / "results.md").read_text()
    out = io.StringIO()
    write_csv([], out)
    header = out.getvalue().strip()
    assert header == ",".join(FIELDS)
    assert f"`{header}`" in doc  # the docs show the exact header
    for name in FIELDS:
        assert f"| `{name}` |" in doc  # and describe every column


def test_malformed_rows_are_refused() -> None:
    good = io.StringIO()
    write_csv([], good)
    with pytest.raises(ResultsError, match="header"):
        list(read_csv(io.StringIO("a,b\r\n1,2\r\n")))
    with pytest.raises(ResultsError, match="cells"):
        list(read_csv(io.StringIO(good.getvalue() + "1,2\r\n")))
    with pytest.raises(ResultsError, match="not JSON"):
        read_rows("{nope\n")
    with pytest.raises(ResultsError, match="lacks"):
        GameResult.from_dict({"format": FORMAT})


# --- the command line -------------------------------------------------------------


def test_cli_results_csv_and_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "journal.sqlite"
    demo_journal(path, range(4), undo_wins=False)
    assert main(["results", "--csv", "--journal", str(path), "--board-id", "club-7"]) == 0
    rows = list(read_csv(io.StringIO(capsys.readouterr().out)))
    assert [r.seq for r in rows] == [r.seq for r in (g.result for g in load_games(path, board="x"))]
    assert {r.board for r in rows} == {"club-7"}
    assert main(["results", "--jsonl", "--journal", str(path), "--player", " bo "]) == 0
    bo = read_jsonl(io.StringIO(capsys.readouterr().out))
    assert len(bo) == 2 and all("Bo" in r.names for r in bo)
    assert main(["results", "--journal", str(path), "--since", "2999-01-01"]) == 0
    assert capsys.readouterr().out.strip() == "no finished games"
    assert main(["results", "--journal", str(path)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert len(table) == 4 and "by" in table[0]
    assert main(["results", "--journal", str(path), "--since", "yesterday"]) == 1
    assert "not a date" in capsys.readouterr().err


def test_since_is_utc_unless_told() -> None:
    assert parse_since("2026-12-01") == "2026-12-01T00:00:00.000Z"
    assert parse_since("2026-12-01T19:30+01:00") == "2026-12-01T18:30:00.000Z"


def test_board_id_file_beside_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    demo_journal(path, range(1), undo_wins=False)
    (derived,) = load_games(path)
    assert derived.result.board.startswith(("mid-", "host-"))
    (tmp_path / "board-id").write_text("club-board-3\n")
    (stored,) = load_games(path)
    assert stored.result == replace(derived.result, board="club-board-3")
