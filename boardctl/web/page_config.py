"""The web page's configuration: ``/etc/boardctl/web.toml``, every key optional.

::

    [web]
    listen = ["127.0.0.1"]          # addresses to listen on; add the Pi's LAN address
    port = 8121
    hostnames = ["boardctl.local"]  # names phones may use besides the addresses
    allow_public = false            # true allows 0.0.0.0, :: and public addresses
    state = ""                      # tokens and pairing code; "" = $STATE_DIRECTORY
    poll_interval = 0.25            # seconds between polls when the service has no watch
    results = ""                    # "mqtt": results, records and standings from the broker
    header_timeout = 10             # seconds a client has to send a request's headers or body
    idle_timeout = 15               # seconds an idle kept-alive connection stays open
    connections_per_address = 32    # open connections one client address may hold

    [standings]                     # the standings page (/standings), as boardctl standings
    by = "entrant"                  # or "player": credit every partner of a team
    since = ""                      # only games that ended at or after this time
    playoffs_since = ""             # the play-offs began: rank before, bracket after
    best_of = 3                     # play-off matches: 3 or 5
    manual = ""                     # games entered by hand (boardctl standings add's file)
    keyring = ""                    # the board keys (boardctl key add); "" = its default place
    count_unverified = false        # true: count unsigned results too (marked), as the command

By default the page listens on 127.0.0.1 only. A wildcard (``0.0.0.0``,
``::``) or a public address is refused unless ``allow_public = true``: the
page is meant for the local network. An unknown key or a wrong type is a
:class:`~boardctl.errors.ConfigError` naming the file and the key.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from boardctl.errors import ConfigError

DEFAULT_WEB_CONFIG = Path("/etc/boardctl/web.toml")
DEFAULT_PORT = 8121


@dataclass(frozen=True, slots=True)
class WebConfig:
    listen: tuple[str, ...] = ("127.0.0.1",)
    port: int = DEFAULT_PORT
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


_KEYS = (
    "listen",
    "port",
    "hostnames",
    "allow_public",
    "state",
    "poll_interval",
    "results",
    "header_timeout",
    "idle_timeout",
    "connections_per_address",
)
RESULTS_SOURCES = ("", "mqtt")
_STANDINGS_KEYS = (
    "by",
    "since",
    "playoffs_since",
    "best_of",
    "manual",
    "keyring",
    "count_unverified",
)


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


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where} must be a list of strings, not {value!r}")
    return tuple(value)


def _value(key: str, value: Any, where: str) -> Any:
    if key in ("listen", "hostnames"):
        return _strings(value, where)
    if key == "port":
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
            raise ConfigError(f"{where} must be a port number 1-65535, not {value!r}")
        return value
    if key == "allow_public":
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, not {value!r}")
        return value
    if key == "state":
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, not {value!r}")
        return value
    if key == "results":
        if value not in RESULTS_SOURCES:
            raise ConfigError(f'{where} must be "mqtt" or "" (no results), not {value!r}')
        return value
    if key == "connections_per_address":
        if isinstance(value, bool) or not isinstance(value, int) or not 4 <= value <= 1024:
            raise ConfigError(f"{where} must be a whole number 4-1024, not {value!r}")
        return value
    if key in ("header_timeout", "idle_timeout"):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not 1 <= value <= 300:
            raise ConfigError(f"{where} must be a number of seconds 1-300, not {value!r}")
        return float(value)
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    if not ok or not 0.02 <= value <= 10:
        raise ConfigError(f"{where} must be a number of seconds 0.02-10, not {value!r}")
    return float(value)


def _standings(table: Any, source: str) -> StandingsOptions:
    """The ``[standings]`` table."""
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: 'standings' must be a table ([standings])")
    values: dict[str, Any] = {}
    for key, value in table.items():
        where = f"{source}: standings.{key}"
        if key not in _STANDINGS_KEYS:
            known = ", ".join(_STANDINGS_KEYS)
            raise ConfigError(f"{where}: unknown key (known keys in [standings]: {known})")
        if key == "best_of":
            if value not in (3, 5) or isinstance(value, bool):
                raise ConfigError(f"{where} must be 3 or 5, not {value!r}")
        elif key == "count_unverified":
            if not isinstance(value, bool):
                raise ConfigError(f"{where} must be true or false, not {value!r}")
        elif key == "by":
            if value not in ("entrant", "player"):
                raise ConfigError(f'{where} must be "entrant" or "player", not {value!r}')
        elif not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, not {value!r}")
        elif key == "since" and value and not _is_time(value):
            raise ConfigError(f"{where} must be a date or a time, e.g. 2026-12-01T19:00")
        values[key] = value
    return StandingsOptions(**values)


def _is_time(text: str) -> bool:
    """Whether ``text`` is a date or an ISO 8601 time (what ``--since`` takes)."""
    import datetime

    try:
        datetime.datetime.fromisoformat(text if "T" in text else text + "T12:00:00")
    except ValueError:
        return False
    return True


def parse_web_config(data: dict[str, Any], source: str = "(web config)") -> WebConfig:
    """Check a parsed ``web.toml`` and fill in the defaults."""
    unknown = [k for k in data if k not in ("web", "standings")]
    if unknown:
        raise ConfigError(
            f"{source}: unknown section or key {unknown[0]!r} (known: web, standings)"
        )
    table = data.get("web", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: 'web' must be a table ([web])")
    values: dict[str, Any] = {}
    for key, value in table.items():
        where = f"{source}: web.{key}"
        if key not in _KEYS:
            raise ConfigError(f"{where}: unknown key (known keys in [web]: {', '.join(_KEYS)})")
        values[key] = _value(key, value, where)
    if "standings" in data:
        values["standings"] = _standings(data["standings"], source)
    config = WebConfig(source=source, **values)
    for address in config.listen:
        check_address(address, allow_public=config.allow_public, where=f"{source}: web.listen")
    if not config.listen:
        raise ConfigError(f"{source}: web.listen is empty; give at least one address")
    return config


def load_web_config(path: str | os.PathLike[str] | None = None) -> WebConfig:
    """Read ``web.toml`` (``None``: :data:`DEFAULT_WEB_CONFIG`, where a missing file is fine)."""
    file = Path(path) if path is not None else DEFAULT_WEB_CONFIG
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        if path is not None:
            raise ConfigError(f"{file}: no such configuration file") from None
        return WebConfig(source=f"{file} (missing: all defaults)")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: cannot read the configuration ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML ({exc})") from None
    return parse_web_config(data, str(file))


def with_overrides(
    config: WebConfig, *, listen: list[str] | None = None, port: int | None = None
) -> WebConfig:
    """The configuration with command-line ``--listen``/``--port`` applied (and checked)."""
    if listen:
        for address in listen:
            check_address(address, allow_public=config.allow_public, where="--listen")
        config = replace(config, listen=tuple(listen))
    if port is not None:
        config = replace(config, port=_value("port", port, "--port"))
    return config


SYSTEM_STATE = Path("/var/lib/boardctl-web")


def state_dir(
    config: WebConfig, env: dict[str, str] | None = None, *, system: Path = SYSTEM_STATE
) -> Path:
    """Where the tokens live: ``web.state``, systemd's ``$STATE_DIRECTORY``, the system
    unit's ``/var/lib/boardctl-web`` when it exists (so ``sudo boardctl web pair`` pairs
    for the running unit), else per user."""
    env = dict(os.environ) if env is None else env
    if config.state:
        return Path(config.state)
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":", 1)[0])
    if system.is_dir():
        return system
    base = env.get("XDG_STATE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local/state")
    return Path(base) / "boardctl-web"


def board_settings(config_path: str | None) -> tuple[Any, str]:
    """The main configuration (``/etc/boardctl/config.toml``) and its layout name."""
    from boardctl.config import load_config

    main = load_config(config_path)
    return main, str(main.board.layout)
