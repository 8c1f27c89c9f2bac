from __future__ import annotations

import argparse

from boardctl.cli.verbs import add_target_options

HELP = "run the board service (systemd runs this; off a Pi: the virtual board)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_target_options(
        parser,
        "journal file (default $STATE_DIRECTORY/journal.sqlite or "
        "~/.local/state/boardctl/journal.sqlite)",
        socket="control socket (default $RUNTIME_DIRECTORY/control.sock, "
        "$XDG_RUNTIME_DIR/boardctl/control.sock or ~/.local/state/boardctl/run/control.sock)",
        config="configuration file (default /etc/boardctl/config.toml; missing = all defaults)",
    )
    parser.add_argument(
        "--display",
        choices=("auto", "terminal", "none"),
        default="auto",
        help="draw the virtual board on the terminal; auto = when there are no GPIO pins "
        "and stdout is a terminal (default auto)",
    )
    parser.add_argument(
        "--print-config",
        action="store_true",
        help="print a commented configuration file with every default, then exit",
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from boardctl.config import default_config_text, load_config

    if args.print_config:
        print(default_config_text(), end="")
        return 0
    from boardctl.service import app, paths

    app.setup_logging()
    config = load_config(args.config)
    journal = Path(args.journal) if args.journal else paths.journal_path(config.service)
    socket_path = Path(args.socket) if args.socket else paths.socket_path(config.service)
    board = app.build(config, journal=journal, socket_path=socket_path, display=args.display)
    return app.serve(board)
