"""``boardctl redo``: put back what undo took back."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

NAME = "redo"
HELP = "put back what undo took back"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Only the target options."""
    from boardctl.cli.verbs import add_target_options

    add_target_options(parser)


def run(args: argparse.Namespace) -> int:
    """Send the command."""
    from boardctl.cli.verbs import send

    return send(args, {"op": "redo"})
