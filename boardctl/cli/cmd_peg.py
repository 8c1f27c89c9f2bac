"""``boardctl peg TRACK POINTS``: enter points for a track, as the buttons do."""

from __future__ import annotations

import argparse

NAME = "peg"
HELP = "peg POINTS on TRACK (1-based), e.g. `boardctl peg 1 12 --kind hand`"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TRACK POINTS [--kind KIND]."""
    from boardctl.cli.choices import Names
    from boardctl.cli.verbs import add_target_options

    parser.add_argument("track", type=int, help="track number, 1 = the first track")
    parser.add_argument("points", type=int, help="points to peg")
    parser.add_argument(
        "--kind",
        choices=Names("boardctl.game.entries", "KINDS"),
        metavar="KIND",
        help="what the points are for: %(choices)s (default: what the guided phase expects)",
    )
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    """Send one peg command."""
    from boardctl.cli.verbs import send
    from boardctl.errors import ControlError

    if args.track < 1:
        raise ControlError(f"track numbers start at 1, not {args.track}")
    command: dict[str, object] = {"op": "peg", "track": args.track - 1, "points": args.points}
    if args.kind:
        command["kind"] = args.kind
    return send(args, command)
