"""Where the service keeps its journal and its control socket (docs/service.md, 'Paths');
configured paths win over systemd's and the per-user defaults."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from boardctl.config_file import ServiceConfig


JOURNAL_NAME = "journal.sqlite"
SOCKET_NAME = "control.sock"
SYSTEM_SOCKET_NAME = "/run/boardctl/" + SOCKET_NAME
SYSTEM_JOURNAL_NAME = "/var/lib/boardctl/" + JOURNAL_NAME


def _state_dir(env: Mapping[str, str]) -> str:
    if env.get("STATE_DIRECTORY"):  # systemd may list several, colon-separated: ours is the first
        return env["STATE_DIRECTORY"].split(":", 1)[0]
    if env.get("XDG_STATE_HOME"):
        return os.path.join(env["XDG_STATE_HOME"], "boardctl")
    return os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "state", "boardctl")


def _runtime_dir(env: Mapping[str, str]) -> str:
    if env.get("RUNTIME_DIRECTORY"):
        return env["RUNTIME_DIRECTORY"].split(":", 1)[0]
    if env.get("XDG_RUNTIME_DIR"):
        return os.path.join(env["XDG_RUNTIME_DIR"], "boardctl")
    # Not a predictable shared /tmp path (anyone could create it first): the user's own state.
    return os.path.join(_state_dir(env), "run")


def _journal(service: ServiceConfig, env: Mapping[str, str]) -> str:
    return service.journal or os.path.join(_state_dir(env), JOURNAL_NAME)


def _socket(service: ServiceConfig, env: Mapping[str, str]) -> str:
    return service.socket or os.path.join(_runtime_dir(env), SOCKET_NAME)


def client_socket_name(service: ServiceConfig, env: Mapping[str, str] | None = None) -> str:
    """The socket a CLI verb talks to: configured, systemd's, the system service's, the user's."""
    env = os.environ if env is None else env
    if not (service.socket or env.get("RUNTIME_DIRECTORY")) and os.path.exists(SYSTEM_SOCKET_NAME):
        return SYSTEM_SOCKET_NAME
    return _socket(service, env)


def client_journal_name(service: ServiceConfig, env: Mapping[str, str] | None = None) -> str:
    """The journal a CLI verb reads when no service answers (same order as the socket)."""
    env = os.environ if env is None else env
    if not (service.journal or env.get("STATE_DIRECTORY")) and os.path.exists(SYSTEM_JOURNAL_NAME):
        return SYSTEM_JOURNAL_NAME
    return _journal(service, env)


def journal_path(service: ServiceConfig, env: Mapping[str, str] | None = None) -> Path:
    """The journal file: ``service.journal`` or ``<state dir>/journal.sqlite``."""
    return _path(_journal(service, os.environ if env is None else env))


def socket_path(service: ServiceConfig, env: Mapping[str, str] | None = None) -> Path:
    """The control socket: ``service.socket`` or ``<runtime dir>/control.sock``."""
    return _path(_socket(service, os.environ if env is None else env))


def _path(name: str) -> Path:
    from pathlib import Path

    return Path(name)
