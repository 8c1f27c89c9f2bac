"""``boardctl stats hands``: the exact distribution of hand or crib scores; ``stats players``:
every player's record and head to head, from the journal."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from boardctl.cli.verbs import (
    add_rules_options,
    add_target_options,
    journal_path,
    scoring_from,
    socket_path,
)
from boardctl.errors import ControlError, ResultsError

if TYPE_CHECKING:
    from typing import Any

NICE = 10  # the board's buttons first (boardctl.cli)
HELP = "exact score distribution over every hand and starter: boardctl stats hands [--crib]"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", choices=["hands", "players"], help="what to count (hands, players)")
    parser.add_argument("--crib", action="store_true", help="crib rules (flush only with 5)")
    parser.add_argument(
        "--cards", type=int, choices=[3, 4], default=4, help="cards in hand (3: five-card game)"
    )
    # the options of players (ignored by hands)
    parser.add_argument("--json", action="store_true", help="players: print JSON")
    parser.add_argument("--since", metavar="DATE", help="players: games ended on or after DATE")
    parser.add_argument("--player", metavar="NAME", help="players: only games NAME played in")
    add_target_options(
        parser,
        "players: the journal file to read itself (default: ask the running service)",
        socket="players: the service's control socket (default: the running one's)",
    )
    parser.add_argument(
        "--png", metavar="FILE", help="players: also draw a game's peg tracks and the win %% bars"
    )
    parser.add_argument(
        "--game",
        type=int,
        metavar="N",
        help="players: the game the picture shows, N-th of the games selected (default: the last)",
    )
    add_rules_options(parser)


def run(args: argparse.Namespace) -> int:
    """Print ``SCORE COUNT`` from 0 to the maximum, then the mean; or the players' records."""
    if args.what == "players":
        return _players(args)
    from boardctl.cribbage.census import census

    result = census(args.cards, crib=args.crib, scoring=scoring_from(args))
    for score, count in result.rows():
        print(f"{score} {count}")
    print(f"mean {result.mean:.4f}")
    return 0


def _players(args: argparse.Namespace) -> int:
    """Print the records of the journal's finished games: the running service's (``records``),
    else derived here from the journal."""
    import json

    from boardctl.results.records_text import format_records

    every_game = args.since is None and args.player is None and not args.png
    data = None
    if every_game and args.journal is None:
        data = records_from_service(args)  # the service's reader keeps them
    if data is None:
        data = _records_here(args, every_game)
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print(format_records(data))
    return 0


def records_from_service(args: argparse.Namespace) -> dict[str, Any] | None:
    """The running service's ``records`` (None: no service answers), as ``Records.to_dict``."""
    from boardctl.service.client import ServiceDown, request_ready

    path = socket_path(args)
    try:
        reply = request_ready(path, {"op": "records"}, timeout=60.0, since=True)
    except ServiceDown:
        return None
    if not isinstance(reply, dict):
        raise ControlError(f"{path}: the service sent malformed records")
    return {"players": reply.get("players", []), "head_to_head": reply.get("head_to_head", [])}


def _records_here(args: argparse.Namespace, every_game: bool) -> dict[str, Any]:
    """The records derived in this process from the journal (and drawn with ``--png``)."""
    from boardctl.results.records import records
    from boardctl.results.source import load_games, load_records, parse_since, select

    path = journal_path(args)
    if every_game:
        return load_records(path).to_dict()  # every game: the running totals the journal keeps
    since = None if args.since is None else parse_since(args.since)
    games = select(load_games(path, board="-"), since=since, player=args.player)
    recs = records(games)
    if args.png:
        from boardctl.results.charts import SeasonChart, save_chart

        game = None
        if games:
            number = len(games) if args.game is None else args.game
            if not 1 <= number <= len(games):
                raise ResultsError(
                    f"--game {number}: there are {len(games)} games (1-{len(games)})"
                )
            game = games[number - 1]
        drawn = save_chart(SeasonChart(game, recs), args.png)
        print(f"wrote {drawn}", file=sys.stderr)
    return recs.to_dict()
