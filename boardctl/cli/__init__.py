"""The ``boardctl`` command line.

Each sub-command lives in its own module ``boardctl/cli/cmd_<name>.py`` that
defines::

    NAME: str                      # the verb, e.g. "score"
    HELP: str                      # one line for ``boardctl --help``
    def add_arguments(parser: argparse.ArgumentParser) -> None: ...
    def run(args: argparse.Namespace) -> int: ...

Modules are discovered at start-up, so adding a verb touches no other file.
Command modules keep heavy imports inside ``run`` so that start-up stays fast
(a cold ``boardctl score`` must stay well under 0.3 s on a Pi).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from boardctl import __version__
from boardctl.errors import BoardError


def _command_modules() -> list[ModuleType]:
    modules = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("cmd_"):
            modules.append(importlib.import_module(f"{__name__}.{info.name}"))
    return modules


def build_parser() -> argparse.ArgumentParser:
    """Build the full argument parser with every discovered sub-command."""
    parser = argparse.ArgumentParser(
        prog="boardctl",
        description="Electronic cribbage pegboard: rules, scorekeeping and LEDs.",
    )
    parser.add_argument("--version", action="version", version=f"boardctl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _command_modules():
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "_run", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args._run(args))
    except BoardError as exc:
        print(f"boardctl: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
