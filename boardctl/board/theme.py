"""Colours and light levels of the board: Okabe & Ito's colour-blind-safe palette, and
nothing told by colour alone (pegs by brightness, lines by rhythm, dealer by steadiness)."""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.board.frame import RGB

# Okabe-Ito palette (sRGB).
ORANGE: RGB = (230, 159, 0)
SKY_BLUE: RGB = (86, 180, 233)
BLUISH_GREEN: RGB = (0, 158, 115)
YELLOW: RGB = (240, 228, 66)
BLUE: RGB = (0, 114, 178)
VERMILION: RGB = (213, 94, 0)
REDDISH_PURPLE: RGB = (204, 121, 167)
WHITE: RGB = (255, 255, 255)


@dataclass(frozen=True, slots=True)
class Theme:
    """What each thing on the board looks like; levels are fractions of full colour, ``trail``
    lights the holes behind the back peg faintly."""

    tracks: tuple[RGB, ...] = (ORANGE, SKY_BLUE, REDDISH_PURPLE)
    lines: tuple[RGB, RGB, RGB] = (YELLOW, VERMILION, REDDISH_PURPLE)  # skunk, double, triple
    error: RGB = VERMILION
    status_idle: RGB = BLUISH_GREEN
    front_level: float = 1.0
    back_level: float = 0.25
    trail_level: float = 0.03
    line_level: float = 0.06
    pending_level: float = 0.6
    dealer_level: float = 0.5
    game_point_level: float = 0.35
    status_level: float = 0.1
    trail: bool = False

    def track_colour(self, track: int) -> RGB:
        """The colour of a track (cycling if there are more tracks than colours)."""
        return self.tracks[track % len(self.tracks)]


DEFAULT_THEME = Theme()


def scaled(colour: RGB, level: float) -> RGB:
    """``colour`` at ``level`` (0..1); a lit channel never rounds down to off."""
    r, g, b = (0 if v == 0 or level <= 0 else max(1, min(255, round(v * level))) for v in colour)
    return (r, g, b)


def display_colour(colour: RGB) -> RGB:
    """How an LED colour is drawn in pictures: the brightest channel lifted by a square root
    (a lit LED looks brighter than its sRGB value), the others with it, so hues stay."""
    top = max(colour)
    if top == 0:
        return colour
    gain = (255 / top) ** 0.5
    r, g, b = colour
    return (min(255, round(r * gain)), min(255, round(g * gain)), min(255, round(b * gain)))
