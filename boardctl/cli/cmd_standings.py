from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from boardctl.standings import BEST_OF, BY

if TYPE_CHECKING:
    from boardctl.standings.games import Game
    from boardctl.standings.verify import Checked

HELP = "ACC standings from every board's results on the broker (add, schedule: docs/standings.md)"
MANUAL_HELP = "games entered by hand (default: ~/.local/state/boardctl/standings-manual.jsonl)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", help="configuration file ([mqtt] broker)")
    parser.add_argument(
        "--from",
        dest="sources",
        metavar="FILE",
        action="append",
        default=[],
        help="read results from a JSON-lines file instead of the broker (repeatable)",
    )
    parser.add_argument("--manual", metavar="PATH", help=MANUAL_HELP)
    parser.add_argument(
        "--keyring",
        metavar="PATH",
        help="the board keys that verify the results (boardctl key add; default "
        "~/.local/state/boardctl/board-keys.json)",
    )
    parser.add_argument(
        "--count-unverified",
        action="store_true",
        help="also count results that are not signed, or from a board whose key you have not "
        "added (marked; results failing verification never count)",
    )
    parser.add_argument("--since", metavar="TIME", help="only games that ended at or after TIME")
    parser.add_argument(
        "--event",
        dest="events",
        metavar="DATE",
        action="append",
        default=[],
        help="only this event's results (a club night, e.g. 2026-12-01; repeatable; default: "
        "every event the broker keeps, or those since --since)",
    )
    parser.add_argument(
        "--archives", metavar="DIR", help="the events' archives (~/.local/state/boardctl/events)"
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--csv", action="store_true", help="CSV instead of a table")
    output.add_argument("--json", action="store_true", help="JSON (for a web page)")
    output.add_argument("--games", action="store_true", help="list the games counted (JSON lines)")
    output.add_argument(
        "--records",
        action="store_true",
        help="every readable record as the broker holds it (JSON lines, for results --verify)",
    )
    parser.add_argument(
        "--playoffs-since",
        metavar="TIME",
        help="the play-offs began at TIME: rank the games before, bracket the games after",
    )
    parser.add_argument("--best-of", type=int, choices=BEST_OF, default=3, help="play-off matches")
    parser.add_argument(
        "--by",
        choices=BY,
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
    add.add_argument("--manual", metavar="PATH", default=argparse.SUPPRESS, help=MANUAL_HELP)
    plan = sub.add_parser("schedule", help="a round-robin schedule: PLAYER ... --boards N")
    plan.add_argument("players", nargs="+", metavar="PLAYER")
    plan.add_argument("--boards", type=int, default=1, help="boards in the room (1)")
    close = sub.add_parser("close", help="archive an event's results and clear them: DATE")
    close.add_argument("event", metavar="DATE")
    league = sub.add_parser("season", help="season standings from the events' archives")
    league.add_argument("season_events", nargs="*", metavar="DATE", help="default: every archive")
    league.add_argument("--roster", metavar="FILE", help="players' other spellings (TOML)")


def run(args: argparse.Namespace) -> int:
    actions = {"add": _add, "schedule": _schedule, "close": _close, "season": _season}
    return actions.get(args.action, _show)(args)


def _archives(args: argparse.Namespace) -> Path:
    from boardctl.standings import archive

    return Path(args.archives) if args.archives else archive.default_dir()


def _close(args: argparse.Namespace) -> int:
    from boardctl.config import load_config
    from boardctl.standings import archive

    config = load_config(args.config).mqtt
    path, kept, cleared = archive.close(config, args.event, _archives(args), timeout=args.timeout)
    print(f"closed {args.event}: {kept} results in {path}; {cleared} topics cleared")
    return 0


def _season(args: argparse.Namespace) -> int:
    from boardctl.standings import StandingsError, keyring, season

    folder = _archives(args)
    events = args.season_events or season.archived(folder)
    if not events:
        raise StandingsError(f"no event archived in {folder} (boardctl standings close DATE)")
    keys = keyring.load(keyring.default_path(args.keyring))
    checked = season.season(events, folder, keys)
    players = season.load_roster(Path(args.roster)) if args.roster else {}
    if note := checked.note():
        print(f"boardctl standings: {note}", file=sys.stderr)
    games = [*checked.counted(unverified=args.count_unverified), *_manual(args)]
    _print(args, [season.named(g, players) for g in games], checked)
    return 0


def _add(args: argparse.Namespace) -> int:
    from boardctl.standings import by_hand

    path = Path(args.manual) if getattr(args, "manual", None) else by_hand.default_path()
    entries = [by_hand.parse_entry(text) for text in args.entries]
    game = by_hand.manual_game(entries, target=args.target, board=args.board, end=args.end)
    by_hand.add(path, game)
    print(f"added {game.id}: {game.names[game.winner]} won ({path})")
    return 0


def _schedule(args: argparse.Namespace) -> int:
    from boardctl.standings.formats import schedule_text
    from boardctl.standings.roundrobin import schedule

    print(schedule_text(schedule(args.players, args.boards)))
    return 0


def _show(args: argparse.Namespace) -> int:
    import json

    from boardctl.config import load_config
    from boardctl.mqtt import retention
    from boardctl.standings import StandingsError, by_hand, keyring
    from boardctl.standings.collect import Messages, collect
    from boardctl.standings.verify import check

    manual = _manual(args)
    if args.sources:
        games = [g for source in args.sources for g in by_hand.load(Path(source), missing_ok=False)]
        _print(args, [*games, *manual], None)
        return 0
    config = load_config(args.config).mqtt
    keys = keyring.load(keyring.default_path(args.keyring))
    said = ""

    def show(messages: Messages) -> bool:
        nonlocal said
        checked = check(messages.items(), keys)
        note = checked.note()
        if note and note != said:  # said once, and again only when it changes
            print(f"boardctl standings: {note}", file=sys.stderr)
        said = note
        if args.records:
            for record in checked.records:
                print(json.dumps(record, ensure_ascii=False, sort_keys=True))
        else:
            _print(args, [*checked.counted(unverified=args.count_unverified), *manual], checked)
        sys.stdout.flush()
        return True

    only = args.events
    if not only and args.since:  # the events the broker may keep since then: their topics only
        try:
            only = retention.events_since(args.since, time.time(), config)
        except ValueError:
            message = f"--since {args.since!r}: write a time, e.g. 2026-12-01T19:00"
            raise StandingsError(message) from None
    if args.follow:
        collect(config, timeout=args.timeout, follow=show, only=only)
        return 0
    show(collect(config, timeout=args.timeout, only=only))
    return 0


def _manual(args: argparse.Namespace) -> list[Game]:
    """The games entered by hand: a file named with --manual must exist."""
    from boardctl.standings import by_hand

    if args.manual:
        return by_hand.load(Path(args.manual), missing_ok=False)
    return by_hand.load(by_hand.default_path())


def _print(args: argparse.Namespace, games: list[Game], checked: Checked | None) -> None:
    import json

    from boardctl.standings import formats
    from boardctl.standings.report import report

    done = report(
        games,
        by=args.by,
        since=args.since or "",
        playoffs_since=args.playoffs_since or "",
        best_of=args.best_of,
    )
    apart = [] if checked is None else [*checked.failed, *checked.unverified]
    if args.count_unverified and checked is not None:
        apart = list(checked.failed)
    if args.games:
        for game in done.games:
            print(json.dumps(game.to_record(), ensure_ascii=False, sort_keys=True))
        return
    rows, playoff = done.rows, done.bracket
    if args.csv:
        print(formats.csv_text(rows), end="")
    elif args.json:
        print(formats.json_text(rows, games=len(done.games), bracket=playoff, apart=apart))
    else:
        print(formats.table(rows))
        unverified = {a.game.key for a in checked.unverified} if checked else set()
        counted = sum(g.key in unverified for g in done.games) if args.count_unverified else 0
        print(f"({len(done.games)} games" + (f", {counted} unverified)" if counted else ")"))
        if playoff is not None:
            print("\n" + formats.bracket_text(playoff, args.best_of))
        if apart:
            print("\n" + formats.apart_text(apart))
