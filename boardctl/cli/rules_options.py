"""The ``--rules`` and ``--house-rules`` options of score, stats and discard (checked when the verb
runs: the parser imports no rules)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from boardctl.cribbage.scoring import Scoring


RULES_HELP = "rule set: acc (default), polish, finnish, czech, english (see `boardctl rules`)"


def add_rules_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--rules`` and ``--house-rules``."""
    parser.add_argument("--rules", metavar="NAME", help=RULES_HELP)
    parser.add_argument(
        "--house-rules",
        metavar="LIST",
        help="house rules instead of the rule set's own, e.g. runs-of-two,crib-four-flush (none)",
    )


def scoring_from(args: argparse.Namespace) -> Scoring:
    """The scoring switches the options select."""
    from boardctl.cribbage.rules import scoring_for, selected

    _, house_rules = selected(args.rules, args.house_rules)
    return scoring_for(house_rules)
