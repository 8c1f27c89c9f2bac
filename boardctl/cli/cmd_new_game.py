from __future__ import annotations

import argparse

from boardctl.choices import Names
from boardctl.cli.verbs import add_rules_options, add_target_options, send

HELP = (
    "start a new game: --variant, --players, --names, --target, --preset, --mode, "
    "--match N|best-of-N"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", help="six-card, five-card, three-player, four-player, ...")
    parser.add_argument("--players", type=int, help="2-6 (picks the usual variant)")
    from boardctl.cribbage.variants import TARGET_HELP

    parser.add_argument("--target", type=int, help=TARGET_HELP)
    parser.add_argument("--preset", help="skunk points: acc, casual, lurch, ...")
    parser.add_argument(
        "--mode",
        choices=Names("boardctl.game.setup", "MODES"),
        metavar="MODE",
        help="%(choices)s: guided phases or free pegging",
    )
    parser.add_argument(
        "--match", help="N game points win the match (0 = one game), or best-of-N games"
    )
    add_rules_options(parser)
    parser.add_argument(
        "--names",
        metavar="NAMES",
        help="the players, Ann,Bob (four in partnerships make two teams); left out: a game "
        "seated as the last one keeps its names, any other starts with none",
    )
    parser.add_argument(
        "--points",
        metavar="JSON",
        help='game points of the custom preset, e.g. \'{"win": 1, "skunk": 2}\'',
    )
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    from boardctl.cli.cmd_set import parse_value

    command: dict[str, object] = {"op": "new_game"}
    for key in ("variant", "players", "target", "preset", "mode", "rules", "house_rules"):
        if getattr(args, key) is not None:
            command[key] = getattr(args, key)
    if args.match is not None:
        from boardctl.game.setup import parse_match

        command.update(parse_match(args.match))
    for key in ("names", "points"):
        if getattr(args, key) is not None:
            command[key] = parse_value(key, getattr(args, key))
    if args.points is not None:
        command.setdefault("preset", "custom")  # points are the custom preset's
    return send(args, command)
