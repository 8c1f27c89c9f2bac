"""``boardctl refile [KIND]``: file the entry the board asks about as the other kind, as undo
held on the board does (docs/scorekeeping.md, "The forgotten menu press: the board asks")."""

from __future__ import annotations

import argparse

from boardctl.cli.verbs import add_target_options, index_of, send
from boardctl.errors import ControlError

HELP = "file the entry the board asks about (white start hole) as the other kind"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "kind",
        nargs="?",
        help="the kind to file it as (default: the other kind the board offers;"
        " the kind it was filed as keeps it)",
    )
    parser.add_argument(
        "--track", type=int, help="the track of the entry asked about (1-based), as a check"
    )
    parser.add_argument("--points", type=int, help="its points, as a check")
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    command: dict[str, object] = {"op": "refile"}
    if args.kind:
        command["kind"] = args.kind
    if (args.track is None) != (args.points is None):
        raise ControlError("name the entry asked about with both --track and --points, or neither")
    if args.track is not None:
        command["track"] = index_of(args.track)
        command["points"] = args.points
    return send(args, command)
