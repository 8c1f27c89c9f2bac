"""The verbs' :mod:`argparse` parser.

A line naming a verb builds that verb's parser only; ``boardctl --help`` (or
an unknown verb) builds every verb's, to list them.
"""

from __future__ import annotations

import argparse

from boardctl import __version__
from boardctl.cli import command_modules

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: for the verb ``argv`` names, else with every sub-command."""
    parser = argparse.ArgumentParser(
        prog="boardctl",
        description="Electronic cribbage pegboard: rules, scorekeeping and LEDs.",
    )
    parser.add_argument("--version", action="version", version=f"boardctl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    verb = argv[0] if argv and not argv[0].startswith("-") else None
    for module in command_modules(verb):
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser
