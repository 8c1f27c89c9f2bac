from __future__ import annotations

import argparse

from boardctl.errors import OptionError

HELP = "write the quick-reference card of gestures and LED signs (PNG and PDF, 4x6 in)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", nargs="?", default="boardctl-card", help="where to write PATH.png and PATH.pdf"
    )
    parser.add_argument("--text", action="store_true", help="print the card's words instead")


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from boardctl.board.card import card_text, save_card

    if args.text:
        print(card_text(), end="")
        return 0
    try:
        written = save_card(Path(args.path))
    except ImportError:
        raise OptionError("boardctl card needs Pillow: pip install 'boardctl[png]'") from None
    for path in written:
        print(f"wrote {path}")
    return 0
