from __future__ import annotations

import argparse

HELP = "show the fault sign on the LEDs (run by boardctl-fault.service when the service failed)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="configuration file (default /etc/boardctl/config.toml; unreadable = defaults)",
    )


def run(args: argparse.Namespace) -> int:
    """Send one frame: the board dark, start holes and status LED vermilion; the Pico keeps it."""
    from boardctl.service.fault_sign import show_fault_sign

    print(show_fault_sign(args.config))
    return 0
