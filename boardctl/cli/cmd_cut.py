"""``boardctl cut [SEAT]``: choose the first dealer of a guided game, by a draw or by hand."""

from __future__ import annotations

import argparse

NAME = "cut"
HELP = "choose the first dealer: `boardctl cut` draws at random, `boardctl cut 2` sets seat 2"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """[SEAT]."""
    from boardctl.cli.verbs import add_target_options

    parser.add_argument(
        "seat",
        type=int,
        nargs="?",
        help="the dealer's seat, 1 = the first player (partners: seats alternate between"
        " the tracks); leave out for a random draw",
    )
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    """Send one cut command."""
    from boardctl.cli.verbs import send
    from boardctl.errors import ControlError

    command: dict[str, object] = {"op": "cut"}
    if args.seat is not None:
        if args.seat < 1:
            raise ControlError(f"seat numbers start at 1, not {args.seat}")
        command["dealer"] = args.seat - 1
    return send(args, command)
