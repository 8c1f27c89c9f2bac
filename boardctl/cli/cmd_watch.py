from __future__ import annotations

import argparse

from boardctl.cli.verbs import add_target_options, socket_path
from boardctl.errors import OptionError

HELP = "print every state change and committed entry of the running board (JSON lines)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--count",
        type=int,
        default=0,
        metavar="N",
        help="stop after N lines (the snapshot counts as one; default: never)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="give up when nothing comes for this long (default: wait for ever)",
    )
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    import json

    from boardctl.service.client import watch

    if args.timeout is not None and not 0 < args.timeout < float("inf"):  # nan fails both
        raise OptionError(f"--timeout must be a number of seconds above 0, not {args.timeout}")
    if args.count < 0:
        raise OptionError(f"--count must be 0 (never stop) or more, not {args.count}")
    for printed, message in enumerate(watch(socket_path(args), timeout=args.timeout), 1):
        print(json.dumps(message, separators=(",", ":"), ensure_ascii=False), flush=True)
        if args.count and printed >= args.count:
            break
    return 0
