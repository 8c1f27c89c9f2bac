from __future__ import annotations

import argparse

from boardctl.choices import Names
from boardctl.cli.verbs import add_target_options, card_text, index_of, send
from boardctl.errors import ControlError

HELP = (
    "peg POINTS on TRACK (1-based), e.g. `boardctl peg 1 12 --kind hand`, "
    "or a count's cards: `boardctl peg 2 --hand 5H 5D JS QC --starter 5S`"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("track", type=int, help="track number, 1 = the first track")
    parser.add_argument(
        "points",
        type=int,
        nargs="?",
        help="points to peg (may be left out with --hand or --crib: the cards' count)",
    )
    parser.add_argument(
        "--kind",
        choices=Names("boardctl.game.entries", "KINDS"),
        metavar="KIND",
        help="what the points are for: %(choices)s (default: what the guided phase expects)",
    )
    cards = parser.add_mutually_exclusive_group()
    cards.add_argument(
        "--hand",
        nargs="+",
        metavar="CARD",
        help="the hand counted (4 cards, 3 in the five-card game), e.g. 5H 5D JS QC",
    )
    cards.add_argument("--crib", nargs="+", metavar="CARD", help="the crib counted (4 cards)")
    parser.add_argument(
        "--starter",
        metavar="CARD",
        help="the starter (cut card), e.g. 5S; may be left out once the deal's is entered;"
        " with --kind heels, the jack",
    )
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    command: dict[str, object] = {"op": "peg", "track": index_of(args.track)}
    if args.points is not None:
        command["points"] = args.points
    kind = args.kind
    shown = args.hand if args.hand is not None else args.crib
    if shown is not None:
        counted = "hand" if args.hand is not None else "crib"
        if kind not in (None, counted):
            raise ControlError(f"--{counted} names a {counted}'s cards, not a {kind} entry")
        kind = counted
        from boardctl.cribbage.cards import format_card, parse_cards

        command["cards"] = [format_card(c) for c in parse_cards(" ".join(shown), unique=False)]
    if args.starter is not None:
        command["starter"] = card_text(args.starter)
    if args.points is None and shown is None and args.starter is None:
        raise ControlError("give the POINTS, or the cards counted (--hand or --crib)")
    if kind:
        command["kind"] = kind
    return send(args, command)
