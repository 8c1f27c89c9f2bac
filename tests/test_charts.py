"""The season picture: a game's peg tracks by deal with the skunk lines, and win % bars."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from PIL import Image

from boardctl.board.theme import DEFAULT_THEME
from boardctl.cli import main
from boardctl.demo.game import DemoGame
from boardctl.game.keeper import Scorekeeper
from boardctl.results.charts import PAPER, SeasonChart, draw_chart
from boardctl.results.records import records
from boardctl.results.source import load_games
from boardctl.store.journal import Journal


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("charts") / "journal.sqlite"
    keeper = Scorekeeper.memory()
    for seed, names in enumerate((("Ann", "Bo"), ("Bo", "Cy"), ("Cy", "Ann"), ("Ann", "Bo"))):
        DemoGame(seed=seed, names=names, keeper=keeper).play()
    with Journal.open(path) as file:
        file.append_all((row["event"], row["at"]) for row in keeper.history(all_games=True))
    return path


def test_geometry_spans_the_game(journal: Path) -> None:
    games = load_games(journal, board="t")
    game = games[-1]
    chart = SeasonChart(game, records(games))
    left, top, right, bottom = chart.plot
    assert (chart.x_of(0), chart.x_of(len(game.entries))) == (left, right)
    assert (chart.y_of(0), chart.y_of(game.result.target)) == (bottom, top)
    for track, line in enumerate(chart.track_lines()):
        assert line[0] == (left, bottom)
        assert line[-1] == (right, chart.y_of(game.result.scores[track]))
        assert all(x0 <= x1 for (x0, _), (x1, _) in itertools.pairwise(line))
    assert [label for _, _, label in chart.skunk_rows()] == [
        "skunk 91",
        "double skunk 61",
        "triple skunk 31",
    ]
    deals = [deal for _, deal in chart.deal_starts()]
    assert deals == list(range(1, game.result.deals + 1))


def test_pixels_show_tracks_skunk_lines_and_bars(journal: Path) -> None:
    games = load_games(journal, board="t")
    chart = SeasonChart(games[0], records(games))
    image = draw_chart(chart)
    assert image.size == (chart.width, chart.height)
    left = chart.plot[0]
    for track, line in enumerate(chart.track_lines()):
        x, y = line[-1]
        assert image.getpixel((x - 1, y)) == DEFAULT_THEME.track_colour(track)
    for y, index, _ in chart.skunk_rows():
        assert image.getpixel((left + 2, y)) == DEFAULT_THEME.lines[index]
    bars = chart.bars
    percents = [b.percent for b in bars]
    assert percents == sorted(percents, reverse=True) and len(bars) == 3
    widths = {b.name: b.box[2] - b.box[0] for b in bars}
    span = chart.width - 56 - bars[0].box[0]
    for bar in bars:
        assert abs(widths[bar.name] - span * bar.percent / 100) <= 1
        x0, y0, x1, y1 = bar.box
        if x1 > x0:
            assert image.getpixel(((x0 + x1) // 2, (y0 + y1) // 2)) == DEFAULT_THEME.track_colour(1)
        assert image.getpixel((x1 + 3, (y0 + y1) // 2)) == PAPER


def test_cli_png(journal: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "season.png"
    assert (
        main(["stats", "players", "--journal", str(journal), "--png", str(out), "--game", "2"]) == 0
    )
    with Image.open(out) as picture:
        assert picture.format == "PNG" and picture.width == 960
    assert "wrote" in capsys.readouterr().err
    assert (
        main(["stats", "players", "--journal", str(journal), "--png", str(out), "--game", "9"]) == 1
    )
    assert "there are 4 games" in capsys.readouterr().err
