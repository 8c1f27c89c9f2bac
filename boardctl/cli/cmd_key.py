from __future__ import annotations

import argparse
from pathlib import Path

from boardctl.cli.verbs import add_target_options, journal_path
from boardctl.errors import OptionError

HELP = (
    "the board key that signs results: `key init` makes it, `key id` names it; "
    "`key add BOARD FILE` gives a director a board's key"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=["init", "id", "add", "list"],
        help="init: make the key; id: show it; add BOARD FILE: a director files a board's key; "
        "list: the boards whose keys the director holds",
    )
    parser.add_argument("board", nargs="?", metavar="BOARD", help="add: the board id")
    parser.add_argument("file", nargs="?", metavar="FILE", help="add: a copy of its board.key")
    parser.add_argument("--force", action="store_true", help="init: replace an existing key")
    parser.add_argument("--key", metavar="FILE", help="the key file (default: board.key in the "
                        "board's state folder, beside the journal)")  # fmt: skip
    add_target_options(parser, "the board's journal (its folder)", socket=None)
    parser.add_argument(
        "--keyring",
        metavar="PATH",
        help="add, list: the director's board keys (default "
        "~/.local/state/boardctl/board-keys.json)",
    )


def run(args: argparse.Namespace) -> int:
    from boardctl.results.board import ID_FILE, board_id
    from boardctl.results.sign import KEY_FILE, key_id, read_key, write_key

    if args.action in ("add", "list"):
        return _director(args)
    if args.board is not None:
        raise OptionError(f"key {args.action} takes no board id (key add BOARD FILE does)")
    path = Path(args.key) if args.key is not None else journal_path(args).parent / KEY_FILE
    if args.action == "id":
        print(f"{key_id(read_key(path))}  {path}")
        return 0
    key = write_key(path, force=args.force)
    board, id_file = board_id(path.parent), path.parent / ID_FILE
    if not id_file.exists():  # pin the board id, so the signed rows keep naming this board
        id_file.write_text(board + "\n", encoding="utf-8")
    print(f"board key {key_id(key)} written to {path} (mode 0600), board id {board}")
    print(f"copy the key file to the director's machine: boardctl key add {board} FILE")
    return 0


def _director(args: argparse.Namespace) -> int:
    from boardctl.mqtt.topics import check_level
    from boardctl.results.sign import key_id, read_key
    from boardctl.standings import keyring

    path = keyring.default_path(args.keyring)
    if args.action == "list":
        keys = keyring.load(path)
        for board, key in sorted(keys.items()):
            print(f"{board}  {key_id(key)}")
        if not keys:
            print(f"no board keys in {path} (boardctl key add BOARD FILE)")
        return 0
    if args.board is None or args.file is None:
        raise OptionError("key add needs the board id and a copy of its key: key add BOARD FILE")
    board = check_level(args.board)
    key = read_key(Path(args.file))
    keyring.add(path, board, key)
    print(f"board {board}: key {key_id(key)} added to {path}")
    return 0
