"""``boardctl peg TRACK POINTS``: enter points for a track, as the buttons do."""

from __future__ import annotations

import argparse

NAME = "peg"
HELP = "peg POINTS on TRACK (1-based), e.g. `boardctl peg 1 12 --kind hand`"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TRACK POINTS [--kind KIND]."""
    from boardctl.game.entries import KINDS
    from boardctl.service.verbs import add_target_options

    parser.add_argument("track", type=int, help="track number, 1 = the first track")
    parser.add_argument("points", type=int, help="points to peg")
    parser.add_argument(
        "--kind",
        choices=KINDS,
        help="what the points are for (default: what the guided phase expects)",
    )
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    """Send one peg command."""
    from boardctl.errors import ControlError
    from boardctl.service.verbs import send

    if args.track < 1:
        raise ControlError(f"track numbers start at 1, not {args.track}")
    command: dict[str, object] = {"op": "peg", "track": args.track - 1, "points": args.points}
    if args.kind:
        command["kind"] = args.kind
    return send(args, command)
