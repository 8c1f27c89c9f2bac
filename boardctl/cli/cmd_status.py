"""``boardctl status``: the score, from the service (or the journal when it is down)."""

from __future__ import annotations

import argparse

NAME = "status"
HELP = "show the score, phase and dealer (--json for scripts)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options: --json, --config, --socket, --journal."""
    from boardctl.cli.verbs import add_target_options

    parser.add_argument("--json", action="store_true", help="print the status as JSON")
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    """Ask the service (or read the journal) and print."""
    import json
    import sys

    from boardctl.cli.verbs import call, format_status

    status, live = call(args, {"op": "status"})
    if args.json:
        print(json.dumps(status, indent=2, ensure_ascii=False))
    else:
        print(format_status(status))
        if not live:
            print("(the service is not running: read from the journal)", file=sys.stderr)
    return 0
