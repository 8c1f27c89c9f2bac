"""The verbs' :mod:`argparse` parser: help, messages, and every line :mod:`.quick` leaves.

A line naming a verb builds that verb's parser only; ``boardctl --help`` (or
an unknown verb) builds every verb's, to list them.
"""

from __future__ import annotations

import argparse
import os
import sys

from boardctl import __version__
from boardctl.cli import command_modules

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, sized to the terminal without importing :mod:`shutil`.

    argparse builds a formatter for every option it adds (to check it), and
    its default asks ``shutil.get_terminal_size``; ``shutil`` pulls in the
    compression modules, a few milliseconds per command on a Pi for a width
    only help text uses. The same width, read the same way: ``$COLUMNS``,
    else the terminal's, else 80.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or _columns() - 2)


def _columns() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: for the verb ``argv`` names, else with every sub-command."""
    parser = argparse.ArgumentParser(
        prog="boardctl",
        description="Electronic cribbage pegboard: rules, scorekeeping and LEDs.",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"boardctl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    verb = argv[0] if argv and not argv[0].startswith("-") else None
    for module in command_modules(verb):
        p = sub.add_parser(
            module.NAME, help=module.HELP, description=module.HELP, formatter_class=_Formatter
        )
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser
