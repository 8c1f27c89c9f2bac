"""The quick-reference card for the board's lid: every gesture and every LED sign, written from
the tables the code runs on (so it cannot drift), drawn with Pillow at 4 x 6 in, 300 dpi."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from boardctl.board import signs
from boardctl.board.rulesign import rule_legend

DPI = 300
SIZE = (4 * DPI, 6 * DPI)  # the card: 4 x 6 in at 300 dots per inch
MARGIN = 60
COLUMNS = 76  # characters per line at the body font size BODY_SIZE
BODY_SIZE = 28  # body font size in pixels; smaller (to MIN_BODY_SIZE) if the text would not fit
MIN_BODY_SIZE = 20

#: The board's signs other than the refusals (renderer and overlay), as the card says them.
OTHER_SIGNS: tuple[tuple[str, str], ...] = (
    ("dealer LED steady", "this track deals (owns the crib)"),
    ("dealer LED blinking", "this track counts now"),
    ("hole blinking ahead of a peg", "an amount pending, not yet committed"),
    ("game-point LEDs", "one a game point; a blinking one counts two"),
    ("skunk line blinking at the end", "the loser failed it: 1 blink skunk, 2 double, 3 triple"),
    ("comet along a track", "this track won the game"),
    (signs.ASK_SIGN, signs.ASK_MEANING),
    ("start holes blinking red", "new game? menu confirms, undo cancels"),
    ("start holes steady purple", "the journal was damaged and recovered"),
    (signs.LINK_LOST_SIGN, signs.LINK_LOST_MEANING),
    (signs.LINK_ENDED_SIGN, signs.LINK_ENDED_MEANING),
    (signs.UNDO_SENT_SIGN, signs.UNDO_SENT_MEANING),
    ("board dark, start holes vermilion", "the journal cannot be opened: nothing is saved"),
    (signs.STUCK_SIGN, signs.STUCK_MEANING),
)


def card_lines() -> list[tuple[str, str]]:
    """The card as (style, text) lines: ``title``, ``head`` or ``body``."""
    from boardctl.inputs.panel import GESTURES

    return [
        ("title", "boardctl: quick reference"),
        ("head", "Buttons"),
        *(("body", f"{gesture}: {meaning}") for gesture, meaning in GESTURES),
        ("head", "Refused: start holes flash, holes 1-N stay lit"),
        *(
            ("body", f"{refusal.value.replace('_', ' ')}: {sign}; {meaning}")
            for refusal, sign, meaning in signs.legend()
        ),
        ("head", "Rule set (settings, last item): holes 1-N of track 2"),
        ("body", "; ".join(f"{name}: {sign}" for name, sign, _title in rule_legend())),
        ("head", "Other signs"),
        *(("body", f"{sign}: {meaning}") for sign, meaning in OTHER_SIGNS),
    ]


def card_text() -> str:
    """The card's words, one line each (what the picture shows)."""
    return "\n".join(text for _style, text in card_lines()) + "\n"


def _rows(body: int) -> list[tuple[str, str, int]]:
    """The card's rows as (style, text, y) at body font size ``body`` (wrapped to fit)."""
    columns = COLUMNS * BODY_SIZE // body
    rows: list[tuple[str, str, int]] = []
    y = MARGIN
    for style, text in card_lines():
        if style == "head":
            y += 18
        wrapped = (
            textwrap.wrap(text, columns, subsequent_indent="    ") if style == "body" else [text]
        )
        for row in wrapped:
            rows.append((style, row, y))
            y += {"title": 70, "head": 50, "body": body + 4}[style]
    return rows


def draw_card() -> Any:
    """The card as a Pillow image (white, black text), the body text as large as fits."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(image)
    sizes = range(BODY_SIZE, MIN_BODY_SIZE, -1)  # the largest whose rows fit the card
    body = next((b for b in sizes if _rows(b)[-1][2] + b + 4 <= SIZE[1] - MARGIN), MIN_BODY_SIZE)
    sized = {"title": 56, "head": 40, "body": body}
    fonts = {style: ImageFont.load_default(size=size) for style, size in sized.items()}
    for style, text, y in _rows(body):
        draw.text((MARGIN, y), text, fill="black", font=fonts[style])
    return image


def save_card(path: Path) -> list[Path]:
    """Write the card as PNG and PDF next to each other (``path`` without its suffix)."""
    from boardctl.board.snapshot import PictureError

    image = draw_card()
    png, pdf = path.with_suffix(".png"), path.with_suffix(".pdf")
    try:
        image.save(png, dpi=(DPI, DPI))
        image.save(pdf, resolution=float(DPI))
    except OSError as exc:
        raise PictureError(f"{png}: cannot write the card ({exc.strerror or exc})") from None
    return [png, pdf]
