from __future__ import annotations

import argparse

from boardctl.choices import Names
from boardctl.cli.verbs import RULES_HELP

HELP = "watch computer players play a whole game on the virtual board (or the LEDs)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed", type=int, metavar="N", help="replay the game of this seed (default: a new one)"
    )
    parser.add_argument(
        "--variant",
        default="six-card",
        metavar="V",
        help="six-card (default), five-card, three-player, four-player, five-player, six-player",
    )
    parser.add_argument("--rules", default="acc", metavar="R", help=RULES_HELP)
    parser.add_argument(
        "--speed",
        type=float,
        metavar="X",
        help="pace: 2 = twice as fast, 0 = no pauses (default 1 on a terminal or LEDs, else 0)",
    )
    parser.add_argument(
        "--display",
        choices=("terminal", "none", "leds"),
        default="terminal",
        help="terminal: the virtual board (plain log when not a terminal); none: log only; "
        "leds: the real board through the LED link",
    )
    parser.add_argument(
        "--journal",
        metavar="PATH",
        help="keep the game in this journal file (default: in memory only)",
    )
    parser.add_argument("--names", metavar="A,B", help="player names, comma-separated")
    parser.add_argument(
        "--games",
        type=int,
        default=1,
        metavar="N",
        help="play N games one after the other, 0 = forever (attract mode on the LEDs)",
    )
    leds = parser.add_argument_group("LEDs (with --display leds)")
    leds.add_argument(
        "--config",
        metavar="PATH",
        help="service config file for the link and layout (default /etc/boardctl/config.toml)",
    )
    leds.add_argument(
        "--link",
        choices=Names("boardctl.link", "KINDS"),
        metavar="KIND",
        help="link kind: %(choices)s (default from config)",
    )
    leds.add_argument("--device", help="serial device (default: found by USB id)")


def run(args: argparse.Namespace) -> int:
    from boardctl.demo.runner import run_demo

    return run_demo(args)
