from __future__ import annotations

import argparse

from boardctl.cli.verbs import add_target_options, target_paths

HELP = "list the journal's automatic backups, or bring one back (the service must be stopped)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "backup",
        nargs="?",
        metavar="BACKUP",
        help="the number shown by `boardctl restore`, or a backup's file name; "
        "without it, list the backups",
    )
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    from boardctl.service.restore import list_text, restore

    socket_file, journal = target_paths(args)
    print(list_text(journal) if args.backup is None else restore(socket_file, journal, args.backup))
    return 0
