"""The web page's configuration: ``/etc/boardctl/web.toml``, every key optional (docs/web.md);
127.0.0.1 only unless ``allow_public = true``."""

from __future__ import annotations

import datetime
import ipaddress
import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from boardctl.config import between, one_of
from boardctl.config_file import Check, read_table, read_toml
from boardctl.errors import ConfigError, unknown
from boardctl.standings import BEST_OF, BY

DEFAULT_WEB_CONFIG = Path("/etc/boardctl/web.toml")


@dataclass(frozen=True, slots=True)
class WebConfig:
    listen: tuple[str, ...] = ("127.0.0.1",)
    port: int = 8121
    hostnames: tuple[str, ...] = ()
    allow_public: bool = False
    state: str = ""
    poll_interval: float = 0.25
    results: str = ""
    header_timeout: float = 10.0
    idle_timeout: float = 15.0
    connections_per_address: int = 32
    standings: StandingsOptions = field(default_factory=lambda: StandingsOptions())
    source: str = field(default="(defaults)", compare=False)


@dataclass(frozen=True, slots=True)
class StandingsOptions:
    """What the standings page ranks, as ``boardctl standings``' options (docs/standings.md)."""

    by: str = "entrant"
    since: str = ""
    playoffs_since: str = ""
    best_of: int = 3
    manual: str = ""
    keyring: str = ""
    count_unverified: bool = False


def _time(text: str) -> str | None:
    """None if ``text`` is empty, a date or an ISO 8601 time (what ``--since`` takes)."""
    try:
        if text:
            datetime.datetime.fromisoformat(text if "T" in text else text + "T12:00:00")
    except ValueError:
        return "must be a date or a time, e.g. 2026-12-01T19:00"
    return None


_PORT = between(1, 65535)
# (listen is checked as addresses once allow_public is known)
_WEB_CHECKS: dict[str, Check | None] = {
    f.name: None for f in fields(WebConfig) if f.name not in ("standings", "source")
} | {
    "port": _PORT,
    "poll_interval": between(0.02, 10),
    "results": lambda value: None if value in ("", "mqtt") else 'must be "mqtt" or "" (no results)',
    "header_timeout": between(1, 300),
    "idle_timeout": between(1, 300),
    "connections_per_address": between(4, 1024),
}
_STANDINGS_CHECKS: dict[str, Check | None] = {f.name: None for f in fields(StandingsOptions)} | {
    "by": one_of(BY),
    "since": _time,
    "best_of": one_of(BEST_OF),
}


def check_address(address: str, *, allow_public: bool, where: str = "listen") -> str:
    """``address`` as given, if the page may listen there; else a :class:`ConfigError`."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        raise ConfigError(
            f"{where}: {address!r} is not an IP address (give the Pi's address, e.g. 192.168.1.20)"
        ) from None
    if allow_public:
        return address
    if ip.is_unspecified:
        raise ConfigError(
            f"{where}: {address} listens on every network; give the LAN address instead "
            "(or set allow_public = true)"
        )
    if not (ip.is_loopback or ip.is_private or ip.is_link_local):
        raise ConfigError(
            f"{where}: {address} is a public address; the page is for the local network "
            "(set allow_public = true to allow it)"
        )
    return address


def parse_web_config(data: dict[str, Any], source: str = "(web config)") -> WebConfig:
    """Check a parsed ``web.toml`` and fill in the defaults."""
    strange = [k for k in data if k not in ("web", "standings")]
    if strange:
        raise ConfigError(
            f"{source}: {unknown('section or key', strange[0], ('web', 'standings'))}"
        )
    values = read_table(data.get("web", {}), "web", WebConfig, _WEB_CHECKS, source)
    if "standings" in data:
        options = read_table(
            data["standings"], "standings", StandingsOptions, _STANDINGS_CHECKS, source
        )
        values["standings"] = StandingsOptions(**options)
    config = WebConfig(source=source, **values)
    for address in config.listen:
        check_address(address, allow_public=config.allow_public, where=f"{source}: web.listen")
    if not config.listen:
        raise ConfigError(f"{source}: web.listen is empty; give at least one address")
    return config


def load_web_config(path: str | os.PathLike[str] | None = None) -> WebConfig:
    """Read ``web.toml`` (``None``: :data:`DEFAULT_WEB_CONFIG`, where a missing file is fine)."""
    file, data = read_toml(path, str(DEFAULT_WEB_CONFIG))
    if data is None:
        return WebConfig(source=f"{file} (missing: all defaults)")
    return parse_web_config(data, file)


def with_overrides(
    config: WebConfig, *, listen: list[str] | None = None, port: int | None = None
) -> WebConfig:
    """The configuration with command-line ``--listen``/``--port`` applied (and checked)."""
    if listen:
        for address in listen:
            check_address(address, allow_public=config.allow_public, where="--listen")
        config = replace(config, listen=tuple(listen))
    if port is not None:
        if problem := _PORT(port):
            raise ConfigError(f"--port {problem} (got {port!r})")
        config = replace(config, port=port)
    return config


SYSTEM_STATE = Path("/var/lib/boardctl-web")


def state_dir(
    config: WebConfig, env: dict[str, str] | None = None, *, system: Path = SYSTEM_STATE
) -> Path:
    """Where the tokens live: ``web.state``, ``$STATE_DIRECTORY``, the system unit's
    ``/var/lib/boardctl-web`` when it exists (``sudo boardctl web pair``), else per user."""
    env = dict(os.environ) if env is None else env
    if config.state:
        return Path(config.state)
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":", 1)[0])
    if system.is_dir():
        return system
    base = env.get("XDG_STATE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local/state")
    return Path(base) / "boardctl-web"
