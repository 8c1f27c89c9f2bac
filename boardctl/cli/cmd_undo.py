"""``boardctl undo``: take back the last entry."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

NAME = "undo"
HELP = "take back the last entry"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Only the target options."""
    from boardctl.cli.verbs import add_target_options

    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    """Send the command."""
    from boardctl.cli.verbs import send

    return send(args, {"op": "undo"})
