"""The ``boardctl`` command line: one module ``cmd_<verb>.py`` per verb, with ``HELP``,
``add_arguments(parser)``, ``run(args) -> int`` (the engine stays inside it, so a verb the service
answers never loads it) and maybe ``NICE``, the CPU priority its process takes once the verb is
known (docs/performance.md, "The verbs that read the whole journal run at nice 10")."""

from __future__ import annotations

import argparse
import sys

from boardctl import __version__
from boardctl.errors import BoardError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType


def _import(name: str) -> ModuleType:
    """Sub-command module ``name`` (``__import__``: :mod:`importlib` imports :mod:`warnings`)."""
    __import__(f"{__name__}.{name}")
    return sys.modules[f"{__name__}.{name}"]


def command_modules(verb: str | None = None) -> list[ModuleType]:
    """The module of ``verb`` alone if there is one (nothing else is read), else all, sorted."""
    name = f"cmd_{verb}".replace("-", "_")
    if verb is not None and name.isidentifier():
        try:
            return [_import(name)]
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    import pkgutil

    names = sorted(i.name for i in pkgutil.iter_modules(__path__) if i.name.startswith("cmd_"))
    return [_import(name) for name in names]


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
        name = module.__name__.rpartition(".cmd_")[2].replace("_", "-")
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the process exit status."""
    own = argv is None  # the process's own command line (a call from Python keeps its priority)
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if getattr(args, "_run", None) is None:
        parser.print_help()
        return 2
    nice = getattr(sys.modules[args._run.__module__], "NICE", 0)
    if own and nice:
        import os

        os.setpriority(os.PRIO_PROCESS, 0, max(nice, os.getpriority(os.PRIO_PROCESS, 0)))
    try:
        return int(args._run(args))
    except BoardError as exc:
        print(f"boardctl: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
