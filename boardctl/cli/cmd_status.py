"""``boardctl status``: the score, from the service (or the journal when it is down), and what the
board shows without words (the count due, skunks, the winner)."""

from __future__ import annotations

import sys

from boardctl.cli.verbs import add_target_options, call, format_status, read_journal
from boardctl.errors import ControlError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

HELP = "show the score, phase and dealer (--json for scripts)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the status as JSON")
    add_target_options(parser)


def summary_lines(status: dict[str, Any]) -> list[str]:
    """What is due and how the game ended, in words (none for a game in the play)."""
    from boardctl.view import skunked  # (not for ``status --json``)

    tracks = status.get("tracks") or []

    def name(index: object) -> str:
        if isinstance(index, int) and 0 <= index < len(tracks):
            return str(tracks[index].get("name", f"track {index + 1}"))
        return "?"

    lines = []
    to_count = status.get("to_count")
    if status.get("winner") is None and isinstance(to_count, int):
        what = "the crib" if status.get("crib_due") else "a hand"
        lines.append(f"to count: {what}, {name(to_count)}'s")
    ask = status.get("ask")
    if isinstance(ask, dict):  # the board's white blink (boardctl.game.entries.ask_about)
        lines.append(
            f"the board asks: is {name(ask.get('track'))}'s {ask.get('points')} "
            f"{ask.get('kind')} or {ask.get('other')}? (undo held on the board files it as "
            f"{ask.get('other')}; the next entry keeps it)"
        )
    winner = status.get("winner")
    if isinstance(winner, int):
        points = status.get("won_points")
        paid = f" ({points} game point{'s' if points != 1 else ''})" if points else ""
        lines.append(f"game won by {name(winner)}{paid}")
        for i, track in enumerate(tracks):
            failed = int(track.get("lines_failed") or 0)
            if i != winner and failed:
                lines.append(f"{name(i)} {skunked(failed)}")
    match_winner = status.get("match_winner")
    if isinstance(match_winner, int) and status.get("match_target"):
        lines.append(f"match won by {name(match_winner)}")
    if status.get("stuck"):  # the running board's stuck contacts (boardctl.board.signs)
        from boardctl.board.signs import stuck_line

        lines.append(stuck_line(status["stuck"]))
    return lines


def run(args: argparse.Namespace) -> int:
    import json

    if args.journal:  # read-only: a service may run
        from boardctl.store.journal_file import kept_here

        if not kept_here(args.journal):
            raise ControlError(f"there is no journal at {args.journal}")
        status, live = dict(read_journal(args.journal, "status")), False
    else:
        status, live = call(args, {"op": "status"})
    if args.json:
        print(json.dumps(status, indent=2, ensure_ascii=False))
    else:
        print("\n".join([format_status(status), *summary_lines(status)]))
        if args.journal:
            print(f"(read from the journal {args.journal}, not from a service)", file=sys.stderr)
        elif not live:
            print("(the service is not running: read from the journal)", file=sys.stderr)
    return 0
