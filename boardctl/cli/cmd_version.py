from __future__ import annotations

import argparse

from boardctl import __version__

HELP = "print the boardctl version"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    print(f"boardctl {__version__}")
    return 0
