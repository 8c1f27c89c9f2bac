"""Where holes sit on the drawn board (terminal and PNG): rows of 30 holes in groups of 5, the
game hole alone; skunk lines at 31, 61, 91 between rows, others (46) inside theirs."""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.view import SKUNK_NAMES, BoardView, skunk_lines

ROW_HOLES = 30
GROUP_HOLES = 5


@dataclass(frozen=True, slots=True)
class Line:
    """A skunk line: ``index`` 0 skunk, 1 double, 2 triple; first hole past it."""

    index: int
    hole: int

    @property
    def name(self) -> str:
        return SKUNK_NAMES[self.index]


def board_rows(target: int) -> list[list[int]]:
    """Hole numbers per drawn row: ``[[1..30], [31..60], ..., [target]]``."""
    rows = [
        list(range(first, min(first + ROW_HOLES, target))) for first in range(1, target, ROW_HOLES)
    ]
    rows.append([target])
    return rows


def board_lines(target: int, lines: tuple[int, ...] | None = None) -> list[Line]:
    """The skunk lines (``lines``, else target-30, -60, -90) drawn on a board to ``target``:
    only those inside the track after hole 1 (any score crosses a line at hole 1)."""
    holes = skunk_lines(target) if lines is None else lines
    return [Line(i, hole) for i, hole in enumerate(holes) if 1 < hole < target]


def view_lines(view: BoardView) -> list[Line]:
    """The skunk lines drawn for ``view`` (the lines the engine put in it)."""
    return board_lines(view.target, view.skunk_lines)


def lines_in_row(row: list[int], lines: list[Line]) -> list[Line]:
    """Lines whose first hole past the line lies in ``row``, in hole order."""
    return sorted(
        (line for line in lines if row and row[0] <= line.hole <= row[-1]),
        key=lambda line: line.hole,
    )


def caption_parts(view: BoardView) -> list[str]:
    """The words above a drawn board: target, phase, who deals, who counts, who won."""
    parts = [f"game to {view.target}", f"phase {view.phase}"]
    if view.dealer is not None:
        parts.append(f"{view.tracks[view.dealer].name} deals")
    if view.to_count is not None and view.phase != "over":
        parts.append(f"{view.tracks[view.to_count].name} to count")
    if view.winner is not None:
        parts.append(f"{view.tracks[view.winner].name} wins")
    return parts
