from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING

from boardctl.choices import Names
from boardctl.cli.verbs import add_target_options, journal_path
from boardctl.errors import ConfigError

if TYPE_CHECKING:
    from boardctl.view import BoardView

HELP = "draw the board as a PNG picture (or as text): the current game, a demo or a state"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", help="PNG file to write (omit with --text)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--demo",
        nargs="?",
        const="mid-game",
        choices=Names("boardctl.board.demo", "DEMOS"),
        metavar="NAME",
        help="a demonstration position (default mid-game; one of %(choices)s)",
    )
    source.add_argument(
        "--state",
        metavar="JSON",
        help="a board view as JSON (target, tracks, ...): a file, - for standard input (e.g."
        " `boardctl status --json`), or the JSON text itself",
    )
    source.add_argument(
        "--journal",
        nargs="?",
        const="",
        metavar="PATH",
        help="the current game of a journal (default: the service's journal; this is also"
        " what is drawn when no source is given and that journal exists)",
    )
    add_target_options(parser, None, socket=None)
    parser.add_argument(
        "--layout",
        help="built-in layout name or layout file (default two-121, three-121 for three tracks)",
    )
    parser.add_argument(
        "--at", type=float, metavar="SECONDS", help="monotonic time to draw (animations)"
    )
    parser.add_argument("--brightness", type=int, default=255, help="global brightness 0-255")
    parser.add_argument("--scale", type=int, default=2, help="PNG pixels per unit (default 2)")
    parser.add_argument("--text", action="store_true", help="print the board as text too")
    parser.add_argument(
        "--color",
        default="auto",
        choices=("auto", "truecolor", "256", "none"),
        help="colours of --text (default: from the terminal)",
    )


def view_from_args(args: argparse.Namespace) -> tuple[BoardView, float]:
    """The position to draw and the time to draw it at."""
    from boardctl.board.demo import demo_view
    from boardctl.board.viewjson import view_from_dict
    from boardctl.store.journal_file import kept_here

    journal = None if args.state or args.demo else journal_path(args)
    if args.state:
        data, source = _read_state(args.state)
        view = view_from_dict(data, source=source)
        now = data.get("now") if isinstance(data, dict) else None
        when = float(now) if isinstance(now, int | float) else time.monotonic()
    elif journal is not None and (args.journal is not None or kept_here(journal)):
        from boardctl.game.keeper import Scorekeeper

        with Scorekeeper.open(journal, readonly=True) as keeper:  # read without writing
            view, when = keeper.view(), time.monotonic()
    else:
        if journal is not None:
            print(
                f"boardctl: no journal at {journal} and no --state given,"
                " drawing the demo position 'mid-game'",
                file=sys.stderr,
            )
        view, when = demo_view(args.demo or "mid-game")
    return view, when if args.at is None else args.at


def _read_state(text: str) -> tuple[object, str]:
    """The JSON of ``--state`` (inline when it starts with ``{``, ``-`` for stdin, else a file)."""
    import json
    from pathlib import Path

    inline = text.lstrip().startswith("{")
    source = "--state" if inline else "standard input" if text == "-" else text
    try:
        raw = text if inline else sys.stdin.read() if text == "-" else Path(text).read_text("utf-8")
        return json.loads(raw), source
    except OSError as exc:
        raise ConfigError(f"{text}: cannot read ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{source}: not valid JSON ({exc})") from exc


def emit(view: BoardView, now: float, args: argparse.Namespace) -> int:
    """Render ``view`` at ``now`` and write the PNG and/or print the text board."""
    from boardctl.board.layout import load_layout
    from boardctl.board.render import Renderer

    if not args.file and not args.text:
        raise ConfigError("give a PNG file to write, or --text to print the board")
    if not 0 <= args.brightness <= 255:
        raise ConfigError(f"--brightness must be 0-255, not {args.brightness}")
    if not 1 <= args.scale <= 8:
        raise ConfigError(f"--scale must be 1-8, not {args.scale}")
    layout = load_layout(args.layout or ("three-121" if len(view.tracks) == 3 else "two-121"))
    frame = Renderer(layout, brightness=args.brightness).render(view, now)
    if args.text:
        from boardctl.board.terminal import draw_board, printable

        text = draw_board(view, frame, layout, color=args.color)
        text = text if text.endswith("\n") else text + "\n"
        sys.stdout.write(printable(text, getattr(sys.stdout, "encoding", None)))
    if args.file:
        from boardctl.board.snapshot import save_png

        path = save_png(view, frame, layout, args.file, scale=args.scale)
        print(f"wrote {path}", file=sys.stderr)
    return 0


def run(args: argparse.Namespace) -> int:
    return emit(*view_from_args(args), args)
