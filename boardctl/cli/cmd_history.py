from __future__ import annotations

import contextlib
import itertools
import sys

from boardctl.cli.verbs import add_target_options, journal_name, read_journal, socket_path
from boardctl.errors import ControlError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterable, Iterator, Mapping
    from typing import Any

#: Seconds ``--all`` waits for each page from the service (a thread makes it: a game and
#: the page, tens of milliseconds here).
ALL_TIMEOUT = 60.0

NICE = 10  # the board's buttons first (boardctl.cli)
HELP = "list the journal's events with their times (this game, or --all)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--all", action="store_true", dest="all_games", help="every event, not just this game's"
    )
    add_target_options(
        parser, "read this journal file (default: ask the running service, else read its journal)"
    )


def run(args: argparse.Namespace) -> int:
    pages: Iterator[list[Any]] = iter(())
    if not args.journal:
        pages = _pages_from_service(args, all_games=args.all_games)
    first = next(pages, None)
    if first is None:  # --journal, or no service answers: the journal read here
        first = read_journal(journal_name(args), "all" if args.all_games else "history")
    _print_rows(itertools.chain([first], pages), as_json=args.json)  # printed as they arrive
    return 0


def _print_rows(pages: Iterator[list[Any]], *, as_json: bool) -> None:
    """Print pages of rows as they come: as one JSON list, or as the table."""
    import json

    printed = 0
    for rows in pages:
        for row in rows:
            if as_json:
                text = json.dumps(row, indent=2, ensure_ascii=False).replace("\n", "\n  ")
                print(("[\n  " if printed == 0 else ",\n  ") + text, end="")
            else:
                print(format_history([row]))
            printed += 1
        sys.stdout.flush()
    if as_json:
        print("\n]" if printed else "[]")
    elif not printed:
        print(format_history([]))


def _pages_from_service(args: argparse.Namespace, *, all_games: bool) -> Iterator[list[Any]]:
    """This game's rows, or every game's a page at a time, from the service (none if no service
    answers); each page asked for by the event it follows (a read: safe to repeat)."""
    from boardctl.service.client import ServiceDown, request, request_ready

    path = socket_path(args)
    if not all_games:
        with contextlib.suppress(ServiceDown):
            yield request(path, {"op": "history"})
        return
    after: int | None = 0
    while after is not None:
        message = {"op": "history", "all": True, "after": after}
        try:
            page = request_ready(path, message, timeout=ALL_TIMEOUT)
        except ServiceDown:
            if after == 0:
                return
            raise
        following = page.get("next") if isinstance(page, dict) else None
        bad_next = following is not None and (not isinstance(following, int) or following <= after)
        if bad_next or not isinstance(page, dict) or not isinstance(page.get("rows"), list):
            raise ControlError(f"{path}: the service sent a malformed history page")
        yield page["rows"]
        after = following


def format_history(rows: Iterable[Mapping[str, Any]]) -> str:
    """A plain-text table of history rows, one line each."""
    lines = [
        f"{row['seq']:>6}  {row['time']}  {row['text']:<48}  {'-'.join(map(str, row['scores']))}"
        for row in rows
    ]
    return "\n".join(lines) or "no events yet"
