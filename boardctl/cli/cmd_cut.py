from __future__ import annotations

import argparse

from boardctl.cli.verbs import add_target_options, card_text, index_of, send
from boardctl.errors import ControlError

HELP = (
    "choose the first dealer: `boardctl cut` draws at random, `boardctl cut 2` sets seat 2,"
    " `boardctl cut --cards QH 3S` takes the cut cards (lowest deals);"
    " `boardctl cut --starter 5S` names the deal's starter"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "seat",
        type=int,
        nargs="?",
        help="the dealer's seat, 1 = the first player (partners: seats alternate between"
        " the tracks); leave out for a random draw",
    )
    parser.add_argument(
        "--cards",
        nargs="+",
        metavar="CARD",
        help="the cards the players cut, one per player in seat order, e.g. QH 3S: the lowest"
        " deals (ace low); a tie for the lowest is refused (cut again)",
    )
    parser.add_argument(
        "--starter",
        metavar="CARD",
        help="the deal's starter card, e.g. 5S (alone once the dealer is known: the deal's"
        " hand and crib counts then need only their cards)",
    )
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    command: dict[str, object] = {"op": "cut"}
    if args.seat is not None:
        command["dealer"] = index_of(args.seat, "seat")
    if args.cards is not None:
        if args.seat is not None:
            raise ControlError("give the dealer's seat or the cut cards (--cards), not both")
        command["cards"] = list(args.cards)
    if args.starter is not None:
        command["starter"] = card_text(args.starter)
    return send(args, command)
