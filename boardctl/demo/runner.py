"""``boardctl demo`` put together: choose where to show the game, then play it."""

from __future__ import annotations

import argparse
import random
import sys
from contextlib import ExitStack
from itertools import count
from typing import TextIO

from boardctl.cribbage.variants import get_variant
from boardctl.demo import log
from boardctl.demo.display import (
    Board,
    LedTable,
    Pacer,
    Table,
    TerminalTable,
    TextTable,
    layout_for,
)
from boardctl.demo.game import DemoGame
from boardctl.errors import BoardError

# Beats the finished game stays up (the game-over animation) before the next one or the end.
BETWEEN_GAMES = 15.0


def make_table(
    args: argparse.Namespace, stream: TextIO, tracks: int, target: int, stack: ExitStack
) -> Table:
    """Where to show the game, from ``--display`` and whether ``stream`` is a terminal."""
    live = args.display == "leds" or (args.display == "terminal" and stream.isatty())
    pacer = Pacer((1.0 if live else 0.0) if args.speed is None else args.speed)  # paced if watched
    if args.display == "leds":  # the command line's options win over the configuration
        from boardctl.config import link_options, load_config
        from boardctl.link import open_link

        config = load_config(args.config)
        kind = args.link or config.link.kind
        link = open_link(kind, **link_options(config, kind, args.device))
        stack.callback(link.close)
        layout = config.board.layout
        board = Board(
            layout or layout_for(tracks, target),
            brightness=int(config.board.brightness),
            power_ma=float(config.board.power_budget_ma),
        )
        if len(board.layout.tracks) < tracks:
            raise BoardError(
                f"the board's layout ({layout}) has {len(board.layout.tracks)} tracks and "
                f"{args.variant} needs {tracks}; use --display none for this variant"
            )
        return LedTable(TextTable(stream, pacer), board, link)
    if live:
        try:
            layout_name = layout_for(tracks, target)
        except BoardError:
            stream.write(f"(No virtual board shows {tracks} tracks: the play-by-play only.)\n")
            return TextTable(stream, pacer)
        return TerminalTable(stream, pacer, Board(layout_name))
    return TextTable(stream, pacer)


def run_demo(args: argparse.Namespace, stream: TextIO | None = None) -> int:
    out = stream or sys.stdout
    variant = get_variant(args.variant)
    if args.games < 0:
        raise BoardError(f"--games must be 0 (forever) or more, not {args.games}")
    # An unseeded demo gets a fresh seed (printed, so the game can be replayed).
    seed = random.SystemRandom().randrange(1_000_000) if args.seed is None else args.seed
    names = [name.strip() for name in (args.names or "").split(",") if name.strip()] or None
    if args.names and not names:
        raise BoardError("--names needs comma-separated names, e.g. --names Ann,Ben")
    style = log.style_for(getattr(out, "encoding", None))
    with ExitStack() as stack:
        table = make_table(args, out, variant.tracks, variant.target, stack)
        keeper = None
        if args.journal:
            from boardctl.game.keeper import Scorekeeper

            keeper = stack.enter_context(Scorekeeper.open(args.journal))
        for played in count():
            game = DemoGame(
                seed=seed + played,
                variant=variant.name,
                rules=args.rules,
                names=names,
                keeper=keeper,
                table=table,
                style=style,
            )
            if played == 0 and isinstance(table, LedTable):
                table.self_test(game.track_names)
            result = game.play()
            last = played + 1 == args.games  # 0: for ever
            if isinstance(table, LedTable | TerminalTable) or not last:
                table.pause(BETWEEN_GAMES)  # the game-over sign, before the next game
            if last:
                break
        if isinstance(table, TerminalTable):
            table.settle()
            port = led_board_port()  # a real board is plugged in: say so
            if port:
                out.write(
                    f"An LED board is connected ({port}): "
                    "boardctl demo --display leds plays on it.\n"
                )
        again = f"boardctl demo --seed {result.seed}"  # how to replay the last game
        if result.variant != "six-card":
            again += f" --variant {result.variant}"
        if result.rules != "acc":
            again += f" --rules {result.rules}"
        out.write(f"Replay this game: {again}\n")
        out.flush()
    return 0


def led_board_port() -> str | None:
    """The serial device of a connected LED board (a Pico), if there is one."""
    try:
        from boardctl.link.serial_link import PICO_MICROPYTHON, find_port

        return find_port(PICO_MICROPYTHON)
    except (ImportError, OSError):
        return None
