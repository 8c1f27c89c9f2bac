"""Pictures of the season (docs/results.md, "Pictures"): :class:`SeasonChart` works out every
coordinate (pure, tested without pixels); :func:`draw_chart` paints it with Pillow."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any

from boardctl.board.frame import RGB
from boardctl.board.snapshot import _font, pillow, save_image
from boardctl.board.theme import DEFAULT_THEME
from boardctl.results.model import PlayedGame
from boardctl.results.records import Records
from boardctl.view import SKUNK_NAMES, skunk_lines

WIDTH = 960
MARGIN = 56
TITLE = 40
PLOT_HEIGHT = 320
BAR = 20
BAR_GAP = 8
LABEL_WIDTH = 260
PAPER: RGB = (255, 255, 255)
INK: RGB = (40, 40, 40)
GRID: RGB = (215, 215, 215)


@dataclass(frozen=True)
class Bar:
    """One player's win-% bar: its box and its label."""

    name: str
    percent: float
    box: tuple[int, int, int, int]  # x0, y0, x1, y1 (x1 = x0 when 0 %)
    label: str


@dataclass
class SeasonChart:
    """Where everything goes: ``game`` (None = no game panel) and the players' records."""

    game: PlayedGame | None
    recs: Records
    width: int = WIDTH

    @property
    def plot(self) -> tuple[int, int, int, int]:
        """The game panel's box: left, top, right, bottom."""
        return (MARGIN, TITLE, self.width - MARGIN // 2, TITLE + PLOT_HEIGHT)

    def x_of(self, step: int) -> int:
        """The x of the score after entry ``step`` (0 = the start of the game)."""
        left, _, right, _ = self.plot
        steps = len(self.game.entries) if self.game else 0
        return left + round(step * (right - left) / max(steps, 1))

    def y_of(self, score: int) -> int:
        """The y of a score (0 at the bottom, the target at the top)."""
        _, top, _, bottom = self.plot
        target = self.game.result.target if self.game else 121
        return bottom - round(score * (bottom - top) / target)

    def track_lines(self) -> list[list[tuple[int, int]]]:
        """Each track's score as a stepped line through every standing entry."""
        if self.game is None:
            return []
        lines: list[list[tuple[int, int]]] = []
        for track in range(len(self.game.result.scores)):
            points = [(self.x_of(0), self.y_of(0))]
            score = 0
            for step, entry in enumerate(self.game.entries, start=1):
                x = self.x_of(step)
                points.append((x, self.y_of(score)))
                score = entry.scores[track]
                points.append((x, self.y_of(score)))
            lines.append(points)
        return lines

    def skunk_rows(self) -> list[tuple[int, int, str]]:
        """``(y, line index, label)`` of each skunk line above 0."""
        if self.game is None:
            return []
        return [
            (self.y_of(line), index, f"{SKUNK_NAMES[index]} {line}")
            for index, line in enumerate(skunk_lines(self.game.result.target))
            if line > 0
        ]

    def deal_starts(self) -> list[tuple[int, int]]:
        """``(x, deal)`` where each deal's first standing entry is."""
        if self.game is None:
            return []
        runs = groupby(enumerate(self.game.entries), key=lambda item: item[1].deal)
        return [(self.x_of(next(run)[0]), deal) for deal, run in runs]

    @property
    def bars_top(self) -> int:
        """Where the players panel starts."""
        return (TITLE + PLOT_HEIGHT + 2 * MARGIN) if self.game else TITLE

    @functools.cached_property
    def bars(self) -> list[Bar]:
        """Each player's win-% bar, the best first."""
        players = sorted(
            self.recs.players.values(), key=lambda p: (-(p.win_percent or 0), p.name.casefold())
        )
        x0 = MARGIN + LABEL_WIDTH
        span = self.width - MARGIN - x0
        bars = []
        for row, player in enumerate(players):
            percent = player.win_percent or 0.0
            y0 = self.bars_top + TITLE // 2 + row * (BAR + BAR_GAP)
            label = f"{player.name}  {percent:.0f}%  ({player.wins}/{player.games})"
            x1 = x0 + round(span * percent / 100)
            bars.append(Bar(player.name, percent, (x0, y0, x1, y0 + BAR), label))
        return bars

    @property
    def height(self) -> int:
        """The picture's height."""
        return self.bars_top + TITLE // 2 + len(self.bars) * (BAR + BAR_GAP) + MARGIN // 2

    def title(self) -> str:
        """The game panel's title: who played, the score, the date."""
        if self.game is None:
            return ""
        r = self.game.result
        scores = "-".join(str(s) for s in r.scores)
        return f"{' v '.join(r.names)}  {scores}  ({r.end[:10]}, match {r.match} game {r.game})"


def draw_chart(chart: SeasonChart) -> Any:
    """The chart as a Pillow ``Image`` (RGB)."""
    Image, ImageDraw = pillow()
    image = Image.new("RGB", (chart.width, chart.height), PAPER)
    draw = ImageDraw.Draw(image)
    font = _font(14)
    if chart.game is not None:
        _draw_game(draw, chart, font)
    draw.text((MARGIN, chart.bars_top), "win % per player", fill=INK, font=font)
    for bar in chart.bars:
        x0, y0, x1, y1 = bar.box
        if x1 > x0:
            draw.rectangle([x0, y0, x1, y1], fill=DEFAULT_THEME.track_colour(1))
        draw.text((MARGIN, y0 + 2), bar.label, fill=INK, font=font)
    return image


def _draw_game(draw: Any, chart: SeasonChart, font: Any) -> None:
    assert chart.game is not None
    left, top, right, bottom = chart.plot
    draw.text((left, 10), chart.title(), fill=INK, font=font)
    for x, deal in chart.deal_starts():
        draw.line([(x, top), (x, bottom)], fill=GRID)
        draw.text((x + 2, bottom + 4), str(deal), fill=INK, font=font)
    draw.text((left - 52, bottom + 4), "deal", fill=INK, font=font)
    for y, index, label in chart.skunk_rows():
        colour = DEFAULT_THEME.lines[index]
        for x in range(left, right, 12):  # dashed
            draw.line([(x, y), (min(x + 6, right), y)], fill=colour, width=2)
        draw.text((right - 110, y - 16), label, fill=INK, font=font)
    draw.rectangle([left, top, right, bottom], outline=INK)
    draw.text((left - 40, top - 8), str(chart.game.result.target), fill=INK, font=font)
    draw.text((left - 16, bottom - 8), "0", fill=INK, font=font)
    for track, points in enumerate(chart.track_lines()):
        draw.line(points, fill=DEFAULT_THEME.track_colour(track), width=3)
    result = chart.game.result
    for track, name in enumerate(result.names):
        y = bottom + 24 + track * 18
        draw.rectangle([left, y + 4, left + 24, y + 12], fill=DEFAULT_THEME.track_colour(track))
        draw.text((left + 32, y), f"{name} {result.scores[track]}", fill=INK, font=font)


def save_chart(chart: SeasonChart, path: str | Path) -> Path:
    """Draw ``chart`` to a PNG file."""
    return save_image(draw_chart(chart), path)
