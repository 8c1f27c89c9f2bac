from __future__ import annotations

import argparse

from boardctl.cli.verbs import add_rules_options, scoring_from

HELP = "rank the ways to discard to the crib: boardctl discard 5H JH 6C 7D KS 2C --dealer"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "cards", nargs="+", metavar="CARD", help="the 6 cards dealt (5 in the five-card game)"
    )
    role = parser.add_mutually_exclusive_group()
    role.add_argument("--dealer", action="store_true", help="you deal: the crib counts for you")
    role.add_argument(
        "--pone", action="store_true", help="you do not deal: the crib counts against"
    )
    parser.add_argument(
        "--keep",
        type=int,
        choices=[3, 4],
        help="cards to keep (default 4 of 6, 3 of 5; --keep 4 with 5 cards: one to the crib)",
    )
    parser.add_argument("--json", action="store_true", help="print the ranking as JSON")
    add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    import json

    from boardctl.cribbage.discard import rank_discards

    options = rank_discards(
        " ".join(args.cards), dealer=not args.pone, keep=args.keep, scoring=scoring_from(args)
    )
    if not (args.dealer or args.pone):
        options.sort(key=lambda option: -option.hand)
    if args.json:
        print(json.dumps([option.as_dict() for option in options]))
        return 0
    print("discard  keep          hand   crib  dealer    pone")
    for option in options:
        hand, crib = option.hand, option.crib
        print(
            f"{' '.join(map(str, option.discard)):8} {' '.join(map(str, option.keep)):12}"
            f" {hand:5.2f}  {crib:5.2f}  {hand + crib:6.2f}  {hand - crib:6.2f}"
        )
    sort = "sorted by hand points (say --dealer or --pone to count the crib)"
    if args.dealer or args.pone:
        sort = f"sorted for the {'dealer' if args.dealer else 'non-dealer'}"
    print(
        f"{sort}; hand: mean over every starter;"
        " crib: mean over all unseen other crib cards and starter"
    )
    return 0
