"""PNG pictures of the board like the terminal's, drawn with Pillow (the ``png`` extra, imported
when saving; docs/board.md, "Pictures"); :class:`Picture` gives every LED's position."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardctl.board.frame import RGB, Frame, pixel
from boardctl.board.geometry import GROUP_HOLES, board_rows, caption_parts, lines_in_row, view_lines
from boardctl.board.layout import LINE_KEYS, Layout
from boardctl.board.theme import display_colour
from boardctl.errors import BoardError
from boardctl.view import BoardView

WOOD: RGB = (121, 82, 50)
HOLE: RGB = (38, 26, 17)
INK: RGB = (246, 234, 208)
PAINT: RGB = (226, 210, 170)


class PictureError(BoardError, RuntimeError):
    """A picture cannot be made (Pillow missing, file not writable)."""


@dataclass
class Picture:
    """Where everything sits in the PNG of ``view`` on ``layout``."""

    layout: Layout
    view: BoardView
    scale: int = 2
    leds: dict[int, tuple[int, int]] = field(default_factory=dict)  # LED -> centre
    texts: list[tuple[tuple[int, int], str]] = field(default_factory=list)
    rules: list[tuple[int, int, int]] = field(default_factory=list)  # x0, x1, y of painted lines
    ticks: list[tuple[int, int, int]] = field(default_factory=list)  # x, y0, y1: lines in a row
    width: int = 0
    height: int = 0

    @property
    def radius(self) -> int:
        return 5 * self.scale

    def __post_init__(self) -> None:
        s = self.scale
        pitch, group_gap = 16 * s, 8 * s
        left = 110 * s
        first_hole_x = left + 2 * pitch
        view, layout = self.view, self.layout
        ntracks = len(view.tracks)
        lines = view_lines(view)

        def hole_x(n: int) -> int:
            return first_hole_x + n * pitch + (n // GROUP_HOLES) * group_gap

        right = hole_x(29) + pitch * 2 + group_gap
        y = 40 * s
        self.texts.append(((8 * s, 12 * s), self._title()))
        for r, row in enumerate(board_rows(view.target)):
            for line in lines_in_row(row, lines):
                band = y + 7 * s
                column = row.index(line.hole)
                if column == 0:  # between the rows: a painted rule across the board
                    self.rules.append((first_hole_x - pitch // 2, hole_x(29) + pitch // 2, band))
                else:  # inside the row: a painted tick down the rows, before its hole
                    x = (hole_x(column - 1) + hole_x(column)) // 2
                    self.ticks.append((x, band, band + 7 * s + ntracks * pitch))
                for i, led in enumerate(layout.markers.get(LINE_KEYS[line.index], ())):
                    self.leds[led] = (left - i * pitch, band)
                self.texts.append(((right, band - 6 * s), f"{line.name} line ({line.hole})"))
                y += 14 * s
            for t in range(ntracks):
                cy = y + pitch // 2
                track = layout.tracks[t]
                for n, hole in enumerate(row):
                    self.leds[track.holes[hole]] = (hole_x(n), cy)
                self.texts.append(((8 * s, cy - 6 * s), view.tracks[t].name[:12]))
                if r > 0 and t == 0:
                    label = f"holes {row[0]}-{row[-1]}" if len(row) > 1 else f"game hole {row[0]}"
                    self.texts.append(((right, cy - 6 * s), label))
                if r == 0:
                    self.leds[track.holes[0]] = (left, cy)
                    if track.dealer is not None:
                        self.leds[track.dealer] = (left - pitch - 4 * s, cy)
                    for k, led in enumerate(track.game_points):
                        self.leds[led] = (right + k * pitch, cy)
                    score_x = right + len(track.game_points) * pitch
                    self.texts.append(((score_x, cy - 6 * s), self._score(t)))
                y += pitch
            y += 6 * s
        if layout.status is not None:
            self.leds[layout.status] = (right + 15 * pitch, 16 * s)
            self.texts.append(((right + 11 * pitch, 10 * s), "status"))
        self.width = right + 16 * pitch
        self.height = y + 8 * s

    def _title(self) -> str:
        return "  ·  ".join(caption_parts(self.view))

    def _score(self, t: int) -> str:
        view = self.view
        track = view.tracks[t]
        text = f"{track.front} (back {track.back})"
        if track.pending and view.winner is None:
            text += f" {track.pending:+d}?"
        if view.match_target:
            text += f"  games {track.game_points}/{view.match_target}"
        return text


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1: fixed-size bitmap font
        return ImageFont.load_default()


def pillow() -> tuple[Any, Any]:
    """Pillow's ``Image`` and ``ImageDraw``; :class:`PictureError` when it is not installed."""
    try:
        from PIL import Image, ImageDraw
    except ImportError as exc:
        raise PictureError(
            "PNG pictures need Pillow: pip install 'boardctl[png]' (or pip install Pillow)"
        ) from exc
    return Image, ImageDraw


def draw_png(view: BoardView, frame: Frame, layout: Layout, *, scale: int = 2) -> Any:
    """The picture as a Pillow ``Image`` (RGB)."""
    Image, ImageDraw = pillow()
    picture = Picture(layout, view, scale=scale)
    image = Image.new("RGB", (picture.width, picture.height), WOOD)
    draw = ImageDraw.Draw(image)
    font = _font(11 * scale)
    for x0, x1, y in picture.rules:
        draw.line([(x0, y), (x1, y)], fill=PAINT, width=max(1, scale))
    for x, y0, y1 in picture.ticks:
        draw.line([(x, y0), (x, y1)], fill=PAINT, width=max(1, scale))
    rad = picture.radius
    glow = rad * 8 // 5
    for led, (x, y) in picture.leds.items():  # light spilling onto the wood around lit holes
        colour = pixel(frame, led)
        if any(colour):
            glow_level = 0.35 * max(colour) / 255  # the wood's colour mixed with the light's
            light = display_colour(colour)
            halo = tuple(round(w + (c - w) * glow_level) for w, c in zip(WOOD, light, strict=True))
            draw.ellipse([x - glow, y - glow, x + glow, y + glow], fill=halo)
    for led, (x, y) in picture.leds.items():
        colour = pixel(frame, led)
        fill = display_colour(colour) if any(colour) else HOLE
        draw.ellipse([x - rad, y - rad, x + rad, y + rad], fill=fill, outline=HOLE)
    for (x, y), text in picture.texts:
        draw.text((x, y), text, fill=INK, font=font)
    return image


def save_png(
    view: BoardView, frame: Frame, layout: Layout, path: str | Path, *, scale: int = 2
) -> Path:
    """Draw ``frame`` (rendered from ``view`` on ``layout``) to a PNG file."""
    return save_image(draw_png(view, frame, layout, scale=scale), path)


def save_image(image: Any, path: str | Path) -> Path:
    """Write a Pillow ``image`` to a PNG file (:class:`PictureError` if it cannot be)."""
    target = Path(path)
    try:
        image.save(target, format="PNG", optimize=True)
    except OSError as exc:
        raise PictureError(f"{target}: cannot write the picture ({exc})") from exc
    return target
