"""``boardctl confirm TRACK``: one side signs off the finished game (with confirm_result on)."""

from __future__ import annotations

import argparse

from boardctl.cli.verbs import add_target_options, send

NAME = "confirm"
HELP = "confirm the finished game's result for TRACK (1-based), when confirm_result is on"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """TRACK."""
    parser.add_argument("track", type=int, help="track number, 1 = the first track")
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    """Send one confirm command."""
    from boardctl.errors import ControlError

    if args.track < 1:
        raise ControlError(f"track numbers start at 1, not {args.track}")
    return send(args, {"op": "confirm", "track": args.track - 1})
