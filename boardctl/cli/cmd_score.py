from __future__ import annotations

import argparse

from boardctl.cli.verbs import add_rules_options, scoring_from
from boardctl.errors import CardError

HELP = "count a hand or crib: boardctl score 5H 5C 5S JD 5D (the last card is the starter)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "cards",
        nargs="+",
        metavar="CARD",
        help="4 hand cards (3 in the five-card game) then the starter, e.g. 5H 10d TD JS A♠",
    )
    parser.add_argument("--crib", action="store_true", help="score as the crib (flush only with 5)")
    parser.add_argument("--json", action="store_true", help="print the breakdown as JSON")
    add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    import json

    from boardctl.cribbage.cards import parse_cards
    from boardctl.cribbage.hand import score_typed
    from boardctl.cribbage.speech import say_count

    cards = parse_cards(" ".join(args.cards))
    if len(cards) == 4 and args.crib:
        raise CardError(
            "a crib holds 4 cards (every variant): give its 4 cards and the starter, got 4 cards"
        )
    score = score_typed(cards, crib=args.crib, scoring=scoring_from(args))
    if args.json:
        print(json.dumps(score.as_dict(), ensure_ascii=False))
        return 0
    what = "crib" if args.crib else "hand"
    if len(cards) == 4:  # a 4-card hand with its starter forgotten would count wrong: say it
        print(
            f"4 cards: a 3-card hand (the five-card game) with the starter {score.starter}; "
            "a 4-card hand needs its starter as a 5th card"
        )
    print(f"{what} {' '.join(map(str, score.hand))}  starter {score.starter}")
    for item in score.items:
        print(f"  {item.kind:8} {' '.join(map(str, item.cards)):15} {item.points:2}")
    print(say_count(score))
    print(f"total {score.total}")
    return 0
