"""``boardctl stats hands``: the exact distribution of hand or crib scores."""

from __future__ import annotations

import argparse

from boardctl.cli import stats_players
from boardctl.cli.rules_options import add_rules_options, scoring_from

HELP = "exact score distribution over every hand and starter: boardctl stats hands [--crib]"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``hands`` (``--crib``, ``--cards``, ``--rules``, ``--house-rules``) or ``players``."""
    parser.add_argument("what", choices=["hands", "players"], help="what to count (hands, players)")
    parser.add_argument("--crib", action="store_true", help="crib rules (flush only with 5)")
    parser.add_argument(
        "--cards", type=int, choices=[3, 4], default=4, help="cards in hand (3: five-card game)"
    )
    stats_players.add_arguments(parser)
    add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    """Print ``SCORE COUNT`` from 0 to the maximum, then the mean."""
    if args.what == "players":
        return stats_players.run(args)
    from boardctl.cribbage.census import census

    result = census(args.cards, crib=args.crib, scoring=scoring_from(args))
    for score, count in result.rows():
        print(f"{score} {count}")
    print(f"mean {result.mean:.4f}")
    return 0
