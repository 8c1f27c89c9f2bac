"""``boardctl standings``: ACC standings of every board's results, a schedule, a bracket."""

from __future__ import annotations

import argparse

NAME = "standings"
HELP = "ACC standings from every board's results on the broker (add, schedule: docs/standings.md)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The standings' options; ``add`` and ``schedule`` as sub-commands."""
    parser.add_argument("--config", metavar="PATH", help="configuration file ([mqtt] broker)")
    parser.add_argument(
        "--from",
        dest="sources",
        metavar="FILE",
        action="append",
        default=[],
        help="read results from a JSON-lines file instead of the broker (repeatable)",
    )
    parser.add_argument(
        "--manual", metavar="PATH", help="games entered by hand (default: the standings file)"
    )
    parser.add_argument("--since", metavar="TIME", help="only games that ended at or after TIME")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--csv", action="store_true", help="CSV instead of a table")
    output.add_argument("--json", action="store_true", help="JSON (for a web page)")
    output.add_argument("--games", action="store_true", help="list the games counted (JSON lines)")
    parser.add_argument(
        "--playoffs-since",
        metavar="TIME",
        help="the play-offs began at TIME: rank the games before, bracket the games after",
    )
    parser.add_argument("--best-of", type=int, choices=[3, 5], default=3, help="play-off matches")
    parser.add_argument(
        "--by",
        choices=["entrant", "player"],
        default="entrant",
        help="rank each track's entrant (a player or a team: default) or credit every partner",
    )
    parser.add_argument("--follow", action="store_true", help="print again after every new result")
    parser.add_argument(
        "--timeout", type=float, default=10.0, help="seconds to wait for the broker"
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    add = sub.add_parser("add", help="add a game played on a wooden board: NAME=SCORE ...")
    add.add_argument("entries", nargs="+", metavar="NAME=SCORE")
    add.add_argument("--target", type=int, default=121, help="the game's target (121)")
    add.add_argument("--board", default="wood", help="which board (wood)")
    add.add_argument("--end", metavar="TIME", help="when it ended (default now)")
    plan = sub.add_parser("schedule", help="a round-robin schedule: PLAYER ... --boards N")
    plan.add_argument("players", nargs="+", metavar="PLAYER")
    plan.add_argument("--boards", type=int, default=1, help="boards in the room (1)")


def run(args: argparse.Namespace) -> int:
    """Dispatch to add, schedule or the standings themselves."""
    if args.action == "add":
        return _add(args)
    if args.action == "schedule":
        return _schedule(args)
    return _show(args)


def _add(args: argparse.Namespace) -> int:
    from pathlib import Path

    from boardctl.standings import store

    path = Path(args.manual) if args.manual else store.default_path()
    entries = [store.parse_entry(text) for text in args.entries]
    game = store.manual_game(entries, target=args.target, board=args.board, end=args.end)
    store.add(path, game)
    print(f"added {game.id}: {game.names[game.winner]} won ({path})")
    return 0


def _schedule(args: argparse.Namespace) -> int:
    from boardctl.standings.render import schedule_text
    from boardctl.standings.roundrobin import schedule

    print(schedule_text(schedule(args.players, args.boards)))
    return 0


def _show(args: argparse.Namespace) -> int:
    import sys
    from pathlib import Path

    from boardctl.config import load_config
    from boardctl.standings import store
    from boardctl.standings.collect import Results, collect
    from boardctl.standings.games import from_record

    manual = store.load(Path(args.manual) if args.manual else store.default_path())
    if args.sources:
        games = [g for source in args.sources for g in store.load(Path(source))]
        _print(args, [*games, *manual])
        return 0
    config = load_config(args.config).mqtt

    def show(results: Results) -> bool:
        games = [from_record(record) for record in results.values()]
        _print(args, [*games, *manual])
        sys.stdout.flush()
        return True

    if args.follow:
        collect(config, timeout=args.timeout, follow=show)
        return 0
    show(collect(config, timeout=args.timeout))
    return 0


def _print(args: argparse.Namespace, games: list[object]) -> None:
    import json

    from boardctl.standings import render
    from boardctl.standings.games import Game
    from boardctl.standings.report import report

    done = report(
        (g for g in games if isinstance(g, Game)),
        by=args.by,
        since=args.since or "",
        playoffs_since=args.playoffs_since or "",
        best_of=args.best_of,
    )
    if args.games:
        for game in done.games:
            print(json.dumps(game.to_record(), ensure_ascii=False, sort_keys=True))
        return
    rows = list(done.rows)
    playoff = None if done.bracket is None else [list(r) for r in done.bracket]
    if args.csv:
        print(render.csv_text(rows), end="")
    elif args.json:
        print(render.json_text(rows, games=len(done.games), bracket=playoff))
    else:
        print(render.table(rows))
        print(f"({len(done.games)} games)")
        if playoff is not None:
            print()
            print(render.bracket_text(playoff, args.best_of))
