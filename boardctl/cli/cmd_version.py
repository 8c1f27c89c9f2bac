"""``boardctl version``: print the package version."""

from __future__ import annotations

import argparse

HELP = "print the boardctl version"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    from boardctl import __version__

    print(f"boardctl {__version__}")
    return 0
