"""The ``boardctl`` command line.

Each sub-command lives in its own module ``boardctl/cli/cmd_<name>.py`` that
defines::

    NAME: str                      # the verb, e.g. "score"
    HELP: str                      # one line for ``boardctl --help``
    def add_arguments(parser: argparse.ArgumentParser) -> None: ...
    def run(args: argparse.Namespace) -> int: ...

Modules are discovered by file name (``new-game`` is ``cmd_new_game``), so
adding a verb touches no other file. A command line naming a verb imports
that verb's module only; ``boardctl --help`` (or an unknown verb) imports them
all to list them. Command modules keep heavy imports inside ``run`` so that
start-up stays fast (a cold ``boardctl score`` must stay well under 0.3 s on
a Pi).
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


def _module_names() -> list[str]:
    """The sub-command modules' names (``cmd_...``), sorted, without importing them."""
    return sorted(i.name for i in pkgutil.iter_modules(__path__) if i.name.startswith("cmd_"))


def _command_modules(verb: str | None = None) -> list[ModuleType]:
    """The module of ``verb`` alone when there is one, else every sub-command module."""
    names = _module_names()
    if verb is not None:
        name = "cmd_" + verb.replace("-", "_")
        if name in names:
            names = [name]
    return [importlib.import_module(f"{__name__}.{name}") for name in names]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: for the verb ``argv`` names, else with every sub-command."""
    parser = argparse.ArgumentParser(
        prog="boardctl",
        description="Electronic cribbage pegboard: rules, scorekeeping and LEDs.",
    )
    parser.add_argument("--version", action="version", version=f"boardctl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    verb = argv[0] if argv and not argv[0].startswith("-") else None
    for module in _command_modules(verb):
        p = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status."""
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
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
