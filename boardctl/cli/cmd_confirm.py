from __future__ import annotations

import argparse

from boardctl.cli.verbs import add_target_options, index_of, send

HELP = "confirm the finished game's result for TRACK (1-based), when confirm_result is on"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("track", type=int, help="track number, 1 = the first track")
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    return send(args, {"op": "confirm", "track": index_of(args.track)})
