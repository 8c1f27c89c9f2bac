from __future__ import annotations

import argparse
import sys

from boardctl.cli.verbs import add_target_options, target_paths

HELP = "publish this board's state and results on an MQTT broker (docs/mqtt.md)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        nargs="?",
        choices=["run", "decommission"],
        default="run",
        help="run the bridge (default), or remove this board from the broker",
    )
    parser.add_argument("--board", metavar="ID", help="board id (default: [mqtt] board_id)")
    parser.add_argument(
        "--acks",
        metavar="PATH",
        help="acknowledged results file (default: mqtt-acks.json beside the journal)",
    )
    parser.add_argument(
        "--results",
        action="store_true",
        help="decommission: also remove the board's retained results",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log every connection")
    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    import logging
    import signal
    from pathlib import Path

    from boardctl.config import load_config
    from boardctl.mqtt.bridge import Bridge, Paths
    from boardctl.mqtt.decommission import decommission
    from boardctl.mqtt.topics import check_level
    from boardctl.results.board import board_id

    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="boardctl mqtt: %(message)s",
        stream=sys.stderr,
    )
    config = load_config(args.config)
    socket_file, journal = target_paths(args)
    board = check_level(args.board or config.mqtt.board_id or board_id(journal.parent))
    if args.action == "decommission":
        count = decommission(config.mqtt, board, results=args.results)
        print(f"removed {count} retained messages of board {board}")
        return 0
    acks = Path(args.acks) if args.acks else journal.parent / "mqtt-acks.json"
    bridge = Bridge(config.mqtt, Paths(socket_file, journal, acks), board)
    signal.signal(signal.SIGTERM, lambda *_: bridge.stop())
    try:
        bridge.run()
    except KeyboardInterrupt:
        bridge.stop()
    return 0
