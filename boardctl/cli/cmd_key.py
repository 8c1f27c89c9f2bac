"""``boardctl key init``: make the board key that signs results (``key id`` names it)."""

from __future__ import annotations

import argparse
from pathlib import Path

NAME = "key"
HELP = "the board key that signs results: `boardctl key init` makes it, `key id` names it"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``init`` or ``id``; where the state folder is."""
    parser.add_argument("action", choices=["init", "id"], help="init: make the key; id: show it")
    parser.add_argument("--force", action="store_true", help="init: replace an existing key")
    parser.add_argument("--key", metavar="FILE", help="the key file (default: board.key in the "
                        "board's state folder, beside the journal)")  # fmt: skip
    parser.add_argument("--journal", metavar="PATH", help="the board's journal (its folder)")
    parser.add_argument("--config", metavar="PATH", help="configuration file")


def run(args: argparse.Namespace) -> int:
    """Write a new key (and pin the board id beside it), or print the key's id."""
    from boardctl.results.board import ID_FILE, board_id
    from boardctl.results.sign import KEY_FILE, key_id, read_key, write_key

    if args.key is not None:
        path = Path(args.key)
    else:
        journal = args.journal
        if journal is None:
            from boardctl.cli.cmd_history import service_journal

            journal = service_journal(args.config)
        path = Path(journal).parent / KEY_FILE
    if args.action == "id":
        print(f"{key_id(read_key(path))}  {path}")
        return 0
    key = write_key(path, force=args.force)
    id_file = path.parent / ID_FILE
    if not id_file.exists():  # pin the board id, so the signed rows keep naming this board
        id_file.write_text(board_id(path.parent) + "\n", encoding="utf-8")
    print(
        f"board key {key_id(key)} written to {path} (mode 0600), board id {board_id(path.parent)}"
    )
    print("copy the key file to the machine that checks results: boardctl results --verify "
          "--key FILE < results.csv")  # fmt: skip
    return 0
