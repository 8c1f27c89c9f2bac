from __future__ import annotations

import argparse

HELP = "install the LED controller firmware on the Pico (needs mpremote)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    install = sub.add_parser("install", help="copy the firmware files onto the Pico, then reset it")
    install.add_argument(
        "--port", default="auto", help="the Pico's serial port (default: mpremote's auto)"
    )
    install.add_argument(
        "--firmware",
        metavar="DIR",
        help="a firmware/ folder (default: the files installed with boardctl, or this checkout's)",
    )
    install.add_argument("--mpremote", metavar="CMD", help="the mpremote program to run")
    install.add_argument(
        "--dry-run", action="store_true", help="print the mpremote command, run nothing"
    )
    install.add_argument(
        "--no-update-mode",
        action="store_true",
        help="do not ask the running controller for its REPL first (it is in safe mode)",
    )


def run(args: argparse.Namespace) -> int:
    import shlex
    from pathlib import Path

    from boardctl.link.firmware import install_command, request_update_mode, run_install

    folder = Path(args.firmware) if args.firmware else None
    command = install_command(args.port, folder, args.mpremote)
    print(shlex.join(command))
    if args.dry_run:
        return 0
    if not args.no_update_mode:
        request_update_mode(args.port)
    run_install(command)
    print("firmware installed; the Pico restarts with the new files")
    return 0
