"""Where the service keeps its journal and its control socket.

systemd sets ``$STATE_DIRECTORY`` and ``$RUNTIME_DIRECTORY`` for the unit
(``StateDirectory=``/``RuntimeDirectory=``); outside systemd the per-user
defaults are ``~/.local/state/boardctl`` and ``$XDG_RUNTIME_DIR/boardctl``
(or ``~/.local/state/boardctl/run``, never a guessable shared ``/tmp`` path).
Configured paths win over both.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from boardctl.config import Config

JOURNAL_NAME = "journal.sqlite"
SOCKET_NAME = "control.sock"


def _first_dir(value: str) -> str:
    # systemd may list several directories separated by colons; ours is the first.
    return value.split(":", 1)[0]


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """The directory for the journal."""
    env = os.environ if env is None else env
    if env.get("STATE_DIRECTORY"):
        return Path(_first_dir(env["STATE_DIRECTORY"]))
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "boardctl"
    return Path(env.get("HOME") or Path.home()) / ".local" / "state" / "boardctl"


def runtime_dir(env: Mapping[str, str] | None = None) -> Path:
    """The directory for the control socket."""
    env = os.environ if env is None else env
    if env.get("RUNTIME_DIRECTORY"):
        return Path(_first_dir(env["RUNTIME_DIRECTORY"]))
    if env.get("XDG_RUNTIME_DIR"):
        return Path(env["XDG_RUNTIME_DIR"]) / "boardctl"
    # Not a predictable shared /tmp path (anyone could create it first): the user's own state.
    return state_dir(env) / "run"


def journal_path(config: Config, env: Mapping[str, str] | None = None) -> Path:
    """The journal file: ``service.journal`` or ``<state dir>/journal.sqlite``."""
    if config.service.journal:
        return Path(config.service.journal)
    return state_dir(env) / JOURNAL_NAME


def socket_path(config: Config, env: Mapping[str, str] | None = None) -> Path:
    """The control socket: ``service.socket`` or ``<runtime dir>/control.sock``."""
    if config.service.socket:
        return Path(config.service.socket)
    return runtime_dir(env) / SOCKET_NAME


SYSTEM_SOCKET = Path("/run/boardctl") / SOCKET_NAME
SYSTEM_JOURNAL = Path("/var/lib/boardctl") / JOURNAL_NAME


def client_socket(config: Config, env: Mapping[str, str] | None = None) -> Path:
    """The socket a CLI verb talks to: configured, systemd's, the system service's, the user's."""
    env = os.environ if env is None else env
    if config.service.socket or env.get("RUNTIME_DIRECTORY"):
        return socket_path(config, env)
    if SYSTEM_SOCKET.exists():
        return SYSTEM_SOCKET
    return socket_path(config, env)


def client_journal(config: Config, env: Mapping[str, str] | None = None) -> Path:
    """The journal a CLI verb reads when no service answers (same order as the socket)."""
    env = os.environ if env is None else env
    if config.service.journal or env.get("STATE_DIRECTORY"):
        return journal_path(config, env)
    if SYSTEM_JOURNAL.exists():
        return SYSTEM_JOURNAL
    return journal_path(config, env)
