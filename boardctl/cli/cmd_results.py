"""``boardctl results``: every finished game's result, from the journal (CSV, JSON lines)."""

from __future__ import annotations

import argparse

NAME = "results"
HELP = "the result of every finished game, from the journal: --csv, --jsonl, --since, --player"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Output format, filters, and where the journal is."""
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--csv", action="store_true", help="CSV with a header row (docs/results.md)")
    form.add_argument("--jsonl", action="store_true", help="one JSON object per line")
    parser.add_argument("--since", metavar="DATE", help="games ended on or after DATE (UTC)")
    parser.add_argument("--player", metavar="NAME", help="games NAME played in (any case)")
    parser.add_argument(
        "--board-id", metavar="ID", help="the board id to write (default: see docs/results.md)"
    )
    parser.add_argument(
        "--journal",
        metavar="PATH",
        help="journal file (default: the service's, found as `boardctl status` finds it)",
    )
    parser.add_argument(
        "--config", metavar="PATH", help="configuration file (default /etc/boardctl/config.toml)"
    )


def run(args: argparse.Namespace) -> int:
    """Derive the results from the journal and print them."""
    import sys

    from boardctl.results.export import format_table, write_csv, write_jsonl
    from boardctl.results.source import load_games, parse_since, select

    since = None if args.since is None else parse_since(args.since)
    path = args.journal
    if path is None:
        from boardctl.cli.cmd_history import service_journal

        path = service_journal(args.config)
    games = select(load_games(path, board=args.board_id), since=since, player=args.player)
    results = [game.result for game in games]
    if args.csv:
        write_csv(results, sys.stdout)
    elif args.jsonl:
        write_jsonl(results, sys.stdout)
    else:
        print(format_table(results))
    return 0
