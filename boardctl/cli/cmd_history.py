"""``boardctl history``: the events of the game (or of every game) with their times."""

from __future__ import annotations

from boardctl.cli.verbs import service_config, socket_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable, Mapping
    from pathlib import Path
    from typing import Any

#: Seconds ``--all`` waits for the service: its first answer after a start waits for a thread
#: of the service to replay the whole journal (about 4.6 s for 200 games at the Pi-class quota).
ALL_TIMEOUT = 300.0

NAME = "history"
HELP = "list the journal's events with their times (this game, or --all)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options: --json, --all, --journal PATH, --socket PATH, --config PATH."""
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--all", action="store_true", dest="all_games", help="every event, not just this game's"
    )
    parser.add_argument(
        "--journal",
        metavar="PATH",
        help="read this journal file (default: ask the running service, else read its journal)",
    )
    parser.add_argument(
        "--socket", metavar="PATH", help="the service's control socket (default: the running one's)"
    )
    parser.add_argument(
        "--config", metavar="PATH", help="configuration file (default /etc/boardctl/config.toml)"
    )


def service_journal(config: str | None = None) -> Path:
    """The journal the CLI verbs read: configured, systemd's, the system service's, the user's."""
    from boardctl.service.paths import client_journal

    return client_journal(service_config(config))


def run(args: argparse.Namespace) -> int:
    """Ask the running service for the events (it has them replayed), else read the journal."""
    import json

    rows = None if args.journal else _from_service(args)
    if rows is None and not args.all_games:
        from boardctl.cli.verbs import journal_name, read_journal

        rows = read_journal(journal_name(args), "history")
    elif rows is None:
        from boardctl.game.keeper import Scorekeeper

        path = args.journal or service_journal(args.config)
        with Scorekeeper.open(path, readonly=True) as keeper:
            rows = keeper.history(all_games=True)
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        print(format_history(rows))
    return 0


def _from_service(args: argparse.Namespace) -> Any:
    """The service's history rows, or ``None`` when no service answers on its socket."""
    from boardctl.service.client import ServiceDown, request, request_ready

    ask = request_ready if args.all_games else request  # --all: built by a thread of the service
    timeout = ALL_TIMEOUT if args.all_games else 5.0
    try:
        return ask(socket_path(args), {"op": "history", "all": args.all_games}, timeout=timeout)
    except ServiceDown:
        return None


def format_history(rows: Iterable[Mapping[str, object]]) -> str:
    """A plain-text table of history rows, one line each."""
    lines = []
    for row in rows:
        scores = "-".join(str(s) for s in row["scores"])  # type: ignore[attr-defined]
        lines.append(f"{row['seq']:>6}  {row['time']}  {row['text']:<48}  {scores}")
    if not lines:
        return "no events yet"
    return "\n".join(lines)
