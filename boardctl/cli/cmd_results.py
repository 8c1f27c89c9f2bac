from __future__ import annotations

import argparse
import sys

from boardctl.cli.verbs import add_target_options, journal_path, socket_path
from boardctl.errors import ControlError, ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

NICE = 10  # the board's buttons first (boardctl.cli)
HELP = "the result of every finished game, from the journal: --csv, --jsonl, --since, --verify"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--csv", action="store_true", help="CSV with a header row (docs/results.md)")
    form.add_argument("--jsonl", action="store_true", help="one JSON object per line")
    form.add_argument(
        "--verify",
        nargs="?",
        const="-",
        metavar="FILE",
        help="check the HMAC of every row of a CSV or JSON-lines export, or of the broker's "
        "records (boardctl standings --records): FILE, or - for stdin",
    )
    parser.add_argument("--since", metavar="DATE", help="games ended on or after DATE (UTC)")
    parser.add_argument("--player", metavar="NAME", help="games NAME played in (any case)")
    parser.add_argument(
        "--key",
        metavar="FILE",
        help="board key that signs (default: board.key beside the journal, if readable) "
        "or verifies the rows",
    )
    parser.add_argument(
        "--keyring",
        metavar="PATH",
        help="--verify without --key: the director's board keys (boardctl key add)",
    )
    parser.add_argument(
        "--board-id", metavar="ID", help="the board id to write (default: see docs/results.md)"
    )
    journal = "journal file to read (default: the service's; --csv asks the running service)"
    add_target_options(parser, journal)


def _signing_key(args: argparse.Namespace, journal: Path) -> bytes | None:
    from pathlib import Path

    from boardctl.results.sign import key_beside, read_key

    if args.key is not None:
        return read_key(Path(args.key))
    try:
        return key_beside(journal)
    except ResultsError as exc:
        print(f"boardctl: the results are not signed: {exc}", file=sys.stderr)
        return None


def verify(args: argparse.Namespace) -> int:
    """Check every row of an export or of the broker's records (0 only if all verify) with ``--key
    FILE``, board.key beside ``--journal``, or the director's key per board."""
    from pathlib import Path

    from boardctl.results.export import read_rows
    from boardctl.results.sign import KEY_FILE, check_record, read_key
    from boardctl.standings import keyring

    keys: dict[str, bytes] = {}
    key: bytes | None = None
    if args.key is not None or args.journal is not None:
        key = read_key(Path(args.key) if args.key else Path(args.journal).parent / KEY_FILE)
    else:
        keys = keyring.load(keyring.default_path(args.keyring))
        if not keys:
            raise ResultsError(
                "--verify needs the board's key: --key FILE, or add it with boardctl key add"
            )
    try:
        text = sys.stdin.read() if args.verify == "-" else Path(args.verify).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultsError(f"cannot read {args.verify}: {exc}") from None
    rows = read_rows(text)
    failed = 0
    for number, row in enumerate(rows, start=1):
        names = row.get("names")
        who = " v ".join(map(str, names)) if isinstance(names, list) else "?"
        what = f"row {number}: board {row.get('board')} match {row.get('match')} game "
        what += f"{row.get('game')}, {who}"
        held = key if key is not None else keys.get(str(row.get("board")))
        problem = "no key held for its board" if held is None else check_record(row, held)
        if problem is None:
            print(f"ok      {what}")
        else:
            failed += 1
            print(f"FAILED  {what}: {problem}")
    print(f"{len(rows) - failed} of {len(rows)} rows verify")
    return 0 if rows and not failed else 1


def csv_from_service(args: argparse.Namespace) -> bool:
    """Copy ``results --csv`` as the running service makes it to standard output: its text
    comes as a file passed with the reply (a read: safe to repeat; docs/control-protocol.md).
    False: no service answers."""
    import os

    from boardctl.service.client import ServiceDown, request_ready

    path = socket_path(args)
    files: list[int] = []
    try:
        try:
            answer = request_ready(path, {"op": "results"}, timeout=60.0, since=True, files=files)
        except ServiceDown:
            return False
        size = answer.get("bytes") if isinstance(answer, dict) else None
        if len(files) != 1 or not isinstance(size, int) or os.fstat(files[0]).st_size != size:
            raise ControlError(f"{path}: the service passed no results file, or a wrong one")
        _copy_out(files[0], size)
        return True
    finally:
        for fd in files:
            os.close(fd)


def _copy_out(fd: int, size: int) -> None:
    """``size`` bytes of the file ``fd`` to standard output: by ``sendfile`` where it can
    (nothing copied through this process), else read and written."""
    import errno
    import os

    sys.stdout.flush()
    offset = 0
    try:
        out = sys.stdout.fileno()
    except (OSError, ValueError):  # (io.UnsupportedOperation) an output without a descriptor
        out = -1
    while out >= 0 and offset < size:
        try:
            sent = os.sendfile(out, fd, offset, size - offset)
        except OSError as exc:
            if exc.errno not in (errno.EINVAL, errno.ENOSYS):
                raise
            break  # an output sendfile does not write to (a terminal, a file in append mode)
        if not sent:
            break
        offset += sent
    if offset < size:
        sys.stdout.write(os.pread(fd, size - offset, offset).decode())


def run(args: argparse.Namespace) -> int:
    """Print the results: the running service's CSV export, else derived here from the
    journal (signed when a key is at hand)."""
    if args.verify is not None:
        return verify(args)
    alone = args.key is None and args.board_id is None and args.journal is None
    whole = args.csv and alone and args.since is None and args.player is None
    if whole and csv_from_service(args):  # the running board's own export, signed as it signs
        return 0
    from boardctl.results.export import format_table, write_csv, write_jsonl
    from boardctl.results.sign import sign
    from boardctl.results.source import chosen, load_csv, load_results, parse_since

    since = None if args.since is None else parse_since(args.since)
    path = journal_path(args)
    key = _signing_key(args, path) if args.csv or args.jsonl else None
    filtered = since is not None or args.player is not None
    if args.csv and not filtered:  # the journal keeps these rows' text
        sys.stdout.write(load_csv(path, board=args.board_id, key=key))
        return 0
    results = load_results(path, board=args.board_id)
    results = [r for r in results if chosen(r, since=since, player=args.player)]
    if key is not None:
        results = [sign(result, key) for result in results]
    if args.csv:
        write_csv(results, sys.stdout)
    elif args.jsonl:
        write_jsonl(results, sys.stdout)
    else:
        print(format_table(results))
    return 0
