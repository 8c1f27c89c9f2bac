"""The virtual board: a frame drawn as text, laid out like the wooden board (docs/board.md,
"Pictures"); a refusal's reason under it in at most :data:`REASON_ROWS` rows.

>>> from boardctl.board.layout import builtin_layout
>>> from boardctl.board.render import Renderer
>>> from boardctl.view import BoardView, TrackView
>>> layout = builtin_layout("two-61")
>>> view = BoardView(61, (TrackView("Ann", 7, 2), TrackView("Bo", 0, 0)))
>>> text = draw_board(view, Renderer(layout).render(view, 0.0), layout, color="none")
>>> print(text.splitlines()[2])
Ann        .  .a... .A... ..... ..... ..... .....   1-30      7  back 2
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from dataclasses import dataclass
from typing import Literal, TextIO, get_args

from boardctl.board.frame import RGB, Frame, pixel
from boardctl.board.geometry import (
    GROUP_HOLES,
    Line,
    board_rows,
    caption_parts,
    lines_in_row,
    view_lines,
)
from boardctl.board.layout import LINE_KEYS, Layout
from boardctl.board.signs import SIGN_HOLES
from boardctl.board.theme import display_colour
from boardctl.errors import OptionError
from boardctl.refusals import MEANINGS, Refusal
from boardctl.view import BoardView, skunked

ColorMode = Literal["auto", "truecolor", "256", "none"]

TRACK_LETTERS = "ABCDEF"
NAME_WIDTH = 10
SCREEN_COLUMNS = 80  # the width the board is drawn for (the header and the reason keep to it)
REASON_ROWS = 2  # rows the reason of a refusal may take under the board
PLAIN_LIT = 32  # raw channel value above which plain text calls an LED lit
_RESET = "\x1b[0m"
_DARK: RGB = (70, 70, 70)


@dataclass(frozen=True, slots=True)
class Style:
    """How large the board is drawn (:mod:`boardctl.board.screen` picks one for the terminal);
    the default is the 80-column board of ``boardctl snapshot --text``."""

    columns: int = SCREEN_COLUMNS  # the width the header, the notes and the reason keep to
    name_width: int = NAME_WIDTH  # longer names are shortened (fit_name)
    hole_width: int = 1  # 2: a space after every hole (the large board)
    game_row: bool = True  # False: the game hole ends the last row (a row per track saved)
    detail: bool = False  # a line with the rule set, the skunk lines and the match


DEFAULT_STYLE = Style()


def resolve_color_mode(mode: str = "auto", stream: TextIO | None = None) -> str:
    """``auto`` -> ``truecolor``, ``256`` or ``none`` from the environment."""
    if mode not in get_args(ColorMode):
        raise OptionError(f"color must be auto, truecolor, 256 or none, not {mode!r}")
    if mode != "auto":
        return mode
    plain = os.environ.get("NO_COLOR") or os.environ.get("TERM", "") in ("", "dumb")
    if plain or not (stream or sys.stdout).isatty():
        return "none"
    if os.environ.get("COLORTERM", "").lower() in ("truecolor", "24bit"):
        return "truecolor"
    return "256"


# Stand-ins for the board's and the demo log's symbols on a terminal that cannot show them.
_PLAIN = str.maketrans({"·": ".", "●": "o", "→": "->", "…": "..."})


def printable(text: str, encoding: str | None) -> str:
    """``text`` as ``encoding`` can print it: symbols replaced, anything else as ``?``.

    >>> printable("A ·●· → x", "ascii")
    'A .o. -> x'
    """
    codec = encoding or "utf-8"
    try:
        text.encode(codec)
    except UnicodeEncodeError:
        return text.translate(_PLAIN).encode(codec, "replace").decode(codec)
    except LookupError:
        return text.encode("ascii", "replace").decode("ascii")
    return text


def xterm256(colour: RGB) -> int:
    """The nearest colour of the xterm 6x6x6 cube or grey ramp."""
    r, g, b = colour
    if max(r, g, b) - min(r, g, b) < 12:  # grey: use the finer grey ramp
        grey = (r + g + b) // 3
        return 16 if grey < 8 else 231 if grey > 238 else 232 + min(23, (grey - 8) // 10)

    def level(v: int) -> int:
        return 0 if v < 48 else 1 if v < 115 else (v - 35) // 40

    return 16 + 36 * level(r) + 6 * level(g) + level(b)


def _led(mode: str, frame: Frame, led: int | None, plain: str = "*") -> str:
    """One LED in colour ``mode`` (``none``: ``plain`` if lit); None: none there."""
    if led is None:
        return " "
    colour = pixel(frame, led)
    if mode == "none":
        return plain if max(colour) >= PLAIN_LIT else "."
    glyph, (r, g, b) = ("●", display_colour(colour)) if any(colour) else ("·", _DARK)
    if mode == "truecolor":
        return f"\x1b[38;2;{r};{g};{b}m{glyph}{_RESET}"
    return f"\x1b[38;5;{xterm256((r, g, b))}m{glyph}{_RESET}"


def draw_board(
    view: BoardView,
    frame: Frame,
    layout: Layout,
    *,
    color: ColorMode | str = "auto",
    style: Style = DEFAULT_STYLE,
) -> str:
    """The board as text: ``frame`` (rendered from ``view`` on ``layout``) drawn."""
    mode = resolve_color_mode(color)
    rows = board_rows(view.target)
    if not style.game_row and len(rows) > 1:  # the game hole ends the last row
        rows = [*rows[:-2], rows[-2] + rows[-1]]
    lines = view_lines(view)
    body_width = max(_body_width(row, style) for row in rows)
    status = "" if layout.status is None else f"   status {_led(mode, frame, layout.status, '!')}"
    caption = [layout.name, *caption_parts(view)]
    while len(caption) > 2 and len(" · ".join(caption)) > style.columns - visible_len(status):
        caption.pop(0)  # the layout's name goes first, then the target: the phase stays
    out = [" · ".join(caption) + status]
    if style.detail:  # the large board's line: the rule set, the skunk lines, the match
        skunk = ", ".join(f"{LINE_KEYS[line.index]} {line.hole}" for line in lines) or "none"
        detail = [f"rules {view.extra.rules or 'acc'}", f"skunk lines: {skunk}"]
        if view.match_target:
            detail.append(f"match to {view.match_target} game points")
        out.append(clip(" · ".join(detail), style.columns, "~"))
    group = GROUP_HOLES * style.hole_width + 1  # the ruler: the number of each group's first hole
    ruler = "".join(f"{n:<{group}}" for n in range(1, 31, GROUP_HOLES)).rstrip()
    out.append(" " * (style.name_width + 1) + "start " + ruler)
    notes_width = style.columns - (style.name_width + body_width + 13)
    spread = [
        _spread(_beside(view, frame, layout, mode, t), len(rows), notes_width)
        for t in range(len(view.tracks))
    ]
    names = [fit_name(track.name, style.name_width) for track in view.tracks]
    for r, row in enumerate(rows):
        for line in lines_in_row(row, lines):
            out.append(_line_separator(line, row.index(line.hole), frame, layout, mode, style))
        for t in range(len(view.tracks)):
            glyphs = []
            for n, hole in enumerate(row):
                if n and n % GROUP_HOLES == 0:
                    glyphs.append("|" if any(line.hole == hole for line in lines) else " ")
                glyphs += [_hole(view, frame, layout, mode, t, hole), " " * (style.hole_width - 1)]
            start = _hole(view, frame, layout, mode, t, 0) if r == 0 else " "
            label = f"{row[0]}-{row[-1]}" if len(row) > 1 else "game"
            pad = " " * (body_width - _body_width(row, style))
            text = f"{names[t]:<{style.name_width}} {start}  {''.join(glyphs)}{pad}   {label:<6}"
            out.append((text + spread[t][0][r]).rstrip())
    for t, (_rows_notes, left) in enumerate(spread):  # notes with no room beside the rows
        if left:
            out.append(f"{names[t]:<{style.name_width}}    " + "  ".join(left))
    out.extend(refusal_rows(view, style.columns))
    # a reset followed by the colour just reset is dropped (runs of one colour)
    return _RUN.sub(lambda run: run[0].replace(_RESET + run[1], ""), "\n".join(out) + "\n")


def _body_width(row: list[int], style: Style) -> int:
    """Columns the holes of ``row`` take (a gap or a line's bar between groups of five)."""
    return len(row) * style.hole_width + max(0, (len(row) - 1) // GROUP_HOLES)


def fit_name(name: str, width: int) -> str:
    """``name`` in ``width`` columns: as it is, a team's members shortened alike, or cut.

    >>> fit_name("Alice & Carol", 10), fit_name("Bo", 10), fit_name("Bartholomew", 6)
    ('Alic&Carol', 'Bo', 'Bartho')
    """
    if len(name) <= width:
        return name
    members = [part.strip() for part in name.split("&")]
    if len(members) < 2 or width < 2 * len(members) - 1:
        return name[:width]
    room = width - (len(members) - 1)  # one "&" between members
    while sum(map(len, members)) > room:
        longest = max(range(len(members)), key=lambda i: len(members[i]))
        members[longest] = members[longest][:-1]
    return "&".join(members)


_ESCAPE = re.compile(r"(\x1b\[[0-9;]*m)")
# A colour, then each reset followed by that same colour again (a run of one colour).
_RUN = re.compile(r"(\x1b\[(?!0m)[0-9;]*m)[^\x1b]*(?:\x1b\[0m\1[^\x1b]*)+")


def _hole(view: BoardView, frame: Frame, layout: Layout, mode: str, track: int, hole: int) -> str:
    led = layout.led_of(track, hole)
    if mode != "none":
        return _led(mode, frame, led)
    track_view = view.tracks[track]
    front = min(max(track_view.front, 0), view.target)
    letter = TRACK_LETTERS[track % len(TRACK_LETTERS)]
    if hole == front:
        return letter
    if hole == min(max(track_view.back, 0), view.target):
        return letter.lower()
    lit = _led(mode, frame, led) == "*"
    if lit and track_view.pending and hole == min(max(front + track_view.pending, 0), view.target):
        return "+"
    return "*" if lit else "."


def _line_separator(
    line: Line, column: int, frame: Frame, layout: Layout, mode: str, style: Style
) -> str:
    """The line above its row: a rule ``-- skunk line (91) --`` at a row's first hole, else a
    ``v`` above the first hole past it (46 in a game to 61 under ``fraction-lines``)."""
    markers = layout.markers.get(LINE_KEYS[line.index], ())
    lamp = " ".join(_led(mode, frame, led, "!") for led in markers)
    indent = " " * (style.name_width + 4)
    if column == 0:
        text = f"-- {line.name} line ({line.hole}) --"
        return indent + (f"{lamp} {text}" if lamp else text)
    offset = column * style.hole_width + column // GROUP_HOLES
    text = f"v {line.name} line ({line.hole})"
    return indent + " " * offset + (f"{text} {lamp}" if lamp else text)


def visible_len(text: str) -> int:
    """The columns ``text`` takes on a terminal (its colour escapes take none)."""
    return len(_ESCAPE.sub("", text))


def _spread(parts: list[str], rows: int, width: int) -> tuple[list[str], list[str]]:
    """The notes beside a track packed onto its rows within ``width``, and those left over
    (a board of very few rows: they go on a line of their own under the board)."""
    out = [""] * rows
    left: list[str] = []
    r = 0
    for part in parts:
        piece = "  " + part
        while out[r] and visible_len(out[r] + piece) > width and r < rows - 1:
            r += 1
        if out[r] and visible_len(out[r] + piece) > width:
            left.append(part)
        else:
            out[r] += piece
    return out, left


def _beside(view: BoardView, frame: Frame, layout: Layout, mode: str, t: int) -> list[str]:
    """Score, back peg, dealer, whose count, pending and game points of track ``t``."""
    track_view = view.tracks[t]
    track = layout.tracks[t]
    parts = [f"{track_view.front:>3}  back {track_view.back}"]
    if track_view.pending and view.winner is None:
        parts.append(f"pending {track_view.pending:+d}")
    if t in view.extra.undoing:  # a joined board's undo on its way to the host
        parts.append("undo sent")
    if view.dealer == t:
        parts.append(f"{_led(mode, frame, track.dealer, 'D')} dealer".lstrip())
    if view.to_count == t and view.phase != "over":
        parts.append(f"{_led(mode, frame, track.dealer, 'C')} to count".lstrip())
    if view.winner == t:
        parts.append("WINNER")
    failed = view.line_failed(t) if view.winner is not None else 0
    if failed:
        parts.append(skunked(failed))
    if view.match_target or track_view.game_points:
        lamps = "".join(_led(mode, frame, led, "o") for led in track.game_points)
        of = f"/{view.match_target}" if view.match_target else ""
        games = f"games {track_view.game_points}{of}"
        parts.append(f"{lamps} {games}" if lamps else games)
        if view.match_winner == t and view.match_target:  # a single game is no match
            parts.append("MATCH")
    return parts


def refusal_rows(view: BoardView, columns: int = SCREEN_COLUMNS) -> list[str]:
    """The reason of the refusal in the view, wrapped to ``columns`` (none: no rows)."""
    reason = view.extra.refused
    refusal = view.extra.refusal
    if not reason and refusal is None:
        return []
    sign = SIGN_HOLES[refusal] if refusal is not None else 0
    head = f"REFUSED ({sign} lit)" if sign else "REFUSED"
    text = f"{head}: {reason or MEANINGS[refusal or Refusal.OTHER]}"
    rows = textwrap.wrap(text, columns, subsequent_indent="  ")
    if len(rows) > REASON_ROWS:
        rows = [*rows[: REASON_ROWS - 1], clip(" ".join(rows[REASON_ROWS - 1 :]), columns, "~")]
    return rows


def clip(text: str, columns: int, mark: str = "…") -> str:
    """``text`` in ``columns`` visible columns, a cut one ending in ``mark`` (colour escapes
    kept, and reset after the cut)."""
    if visible_len(text) <= columns:
        return text
    room = max(columns - len(mark), 0)
    out: list[str] = []
    for token in _ESCAPE.split(text):
        if _ESCAPE.fullmatch(token):
            out.append(token)
        elif room <= 0:
            break
        else:
            out.append(token[:room])
            room -= len(token)
    return "".join(out) + mark + (_RESET if _ESCAPE.search(text) else "")
