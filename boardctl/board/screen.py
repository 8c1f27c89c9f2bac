"""The virtual board's whole screen: the largest board that fits the terminal, a note, the key
help and the latest logs, never wrapped (docs/board.md, "Sized to the terminal")."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace

from boardctl.board.frame import Frame
from boardctl.board.layout import Layout
from boardctl.board.signs import ask_question
from boardctl.board.terminal import (
    NAME_WIDTH,
    ColorMode,
    Style,
    clip,
    draw_board,
    refusal_rows,
    visible_len,
)
from boardctl.inputs.keys import SHORT_HELP
from boardctl.view import BoardView

LARGE_NAMES = 24  # the widest name column of the large board


def mode_note(view: BoardView) -> str:
    """What the board's mode (settings, a confirm, the sign-off, a lost link, the board's
    question) asks of the players, in words (lines apart by ``\\n``; "": none)."""
    extra = view.extra
    if extra.settings is not None:
        return f"settings: {extra.settings.item} = {extra.settings.value}"
    if extra.confirm:
        return "new game? m = yes, u = no"
    if extra.undo_confirm:
        return "undo again? m = yes, u = no"
    if extra.signoff is not None:
        return "confirm the result: each side presses one of its buttons"
    if extra.link_lost:  # a joined board (boardctl.remote): the white start holes
        return "link lost: the host cannot be reached; entries wait and go when it is back"
    if extra.link_ended:  # boardctl.remote: the start holes' slow white blink
        return "link ended (remote leave): this board no longer plays the linked game"
    ask = extra.ask
    if ask is None:
        return ""
    track = ask.track
    name = view.tracks[track].name if track < len(view.tracks) else f"track {track + 1}"
    question = ask_question(name, ask.points, ask.kind, ask.other)
    return (
        f"the board asks: {question}\n"
        f"U (undo held) = {ask.other} · the next entry keeps {ask.kind} · u takes it back"
    )


@dataclass(frozen=True, slots=True)
class Fitted:
    """A board drawn for a terminal: which style, its rows, and what it needed."""

    style: str  # large, normal, compact, narrow; "too-small" when none fits
    rows: list[str]
    help: list[str]


def styles(view: BoardView, columns: int) -> list[tuple[str, Style]]:
    """The board styles to try for ``view`` on ``columns`` columns, largest first."""
    longest = max((len(track.name) for track in view.tracks), default=0)
    wide_names = max(NAME_WIDTH, min(longest, NAME_WIDTH + max(0, columns - 80)))
    normal = Style(columns=max(columns, 1), name_width=wide_names)
    large = replace(normal, name_width=max(NAME_WIDTH, min(longest, LARGE_NAMES)), hole_width=2)
    return [
        ("large", replace(large, detail=True)),
        ("normal", normal),
        ("compact", replace(normal, game_row=False)),
        ("narrow", replace(normal, game_row=False, name_width=6)),
    ]


def fit(
    view: BoardView,
    frame: Frame,
    layout: Layout,
    *,
    columns: int,
    lines: int,
    reserved: int = 0,
    help_lines: Sequence[str] = (),
    color: ColorMode | str = "auto",
) -> Fitted:
    """The largest board (with the help) that fits ``columns`` x ``lines``, each style drawn
    and measured; ``reserved`` rows are kept for a note, the last row for the cursor."""
    room = lines - 1 - reserved
    full, short_help = list(help_lines), SHORT_HELP
    ask = view.extra.ask
    if ask is not None:  # U files the asked entry as the other kind, not redo
        full = [line.replace("U redo", f"U = {ask.other}") for line in help_lines]
        short_help = SHORT_HELP.replace("U:redo", f"U:{ask.other}")
    short = [short_help] if help_lines else []
    width = height = 0  # the size the last board tried needs
    for name, style in styles(view, columns):
        rows = draw_board(view, frame, layout, color=color, style=style).rstrip("\n").split("\n")
        for help_rows in (full, short) if name in ("compact", "narrow") else (full,):
            width = max(map(visible_len, [*rows, *help_rows]))
            height = len(rows) + len(help_rows)
            if width <= columns and height <= room:
                return Fitted(name, rows, help_rows)
    # none fits: why, the size needed, the score
    message = (
        f"The terminal ({columns}x{room + 1}) is too small for the virtual board: "
        f"{layout.name} with {len(view.tracks)} tracks needs at least {width}x{height + 1}. "
        "Make the window larger; the game goes on (boardctl status shows it)."
    )
    out = textwrap.wrap(message, max(columns, 10))
    score = " · ".join(
        f"{t.name} {t.front}" + (f" (+{t.pending} pending)" if t.pending else "")
        for t in view.tracks
    )
    out.append(f"{score} · {view.phase}")
    out.extend(refusal_rows(view, max(columns, 10)))
    return Fitted("too-small", [clip(row, columns) for row in out[: max(room, 1)]], [])


def compose(
    view: BoardView,
    frame: Frame,
    layout: Layout,
    *,
    columns: int,
    lines: int,
    note: str = "",
    help_lines: Sequence[str] = (),
    logs: Sequence[str] = (),
    color: ColorMode | str = "auto",
) -> str:
    """The whole screen: the board that fits, the note (its lines), the help, the latest logs."""
    notes = [clip(line, columns) for line in note.split("\n")] if note else []
    fitted = fit(
        view,
        frame,
        layout,
        columns=columns,
        lines=lines,
        reserved=len(notes),
        help_lines=help_lines,
        color=color,
    )
    head = [*fitted.rows, *notes, *fitted.help]
    room = max(0, lines - 1 - len(head))
    shown = list(logs)[len(logs) - room :] if room else []
    return "".join(f"{row}\n" for row in [*head, *(clip(line, columns - 1) for line in shown)])
