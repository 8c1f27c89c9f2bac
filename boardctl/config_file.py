"""The configuration file read as TOML, the checks every section's keys go through, and the
``[service]`` section: what a CLI verb reads to find the service, without the rest of
:mod:`boardctl.config` (its dataclasses, with ``inspect``, cost a verb more than reading the
file does)."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from boardctl.errors import ConfigError

DEFAULT_CONFIG_PATH = "/etc/boardctl/config.toml"
Check = Callable[[Any], str | None]  # returns a problem, or None when the value is fine


class ServiceConfig(NamedTuple):
    """``[service]``: where the journal and the control socket are ("": the defaults of
    :mod:`boardctl.service.paths`)."""

    journal: str = ""
    socket: str = ""


SERVICE_CHECKS: dict[str, Check | None] = dict.fromkeys(ServiceConfig._fields)


def coerce(value: Any, kind: type, where: str) -> Any:
    """The value as ``kind`` (a tuple: of strings), or a ``ConfigError`` (bool is never an int)."""
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind in (str, bool) and isinstance(value, kind):
        return value
    if kind is tuple and isinstance(value, str):
        return (value,)
    if kind is tuple and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        bool: "true or false",
        tuple: "a list of strings",
    }
    raise ConfigError(f"{where} must be {names[kind]}, not {value!r}")


def read_table(
    raw: object, name: str, cls: type, checks: Mapping[str, Check | None], source: str
) -> dict[str, Any]:
    """The keyword arguments for ``cls`` from the TOML table ``[name]``: every key known,
    of its default's type and passing its check, else a ``ConfigError`` naming it."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: {name!r} must be a table ([{name}])")
    defaults = cls()
    out: dict[str, Any] = {}
    for key, value in raw.items():
        where = f"{name}.{key}"
        if key not in checks:
            known = ", ".join(checks)
            raise ConfigError(f"{source}: unknown key {where!r} (known keys in [{name}]: {known})")
        value = coerce(value, type(getattr(defaults, key)), f"{source}: {where}")
        check = checks[key]
        problem = check(value) if check else None
        if problem:
            raise ConfigError(f"{source}: {where} {problem} (got {value!r})")
        out[key] = value
    return out


def read_toml(
    path: str | os.PathLike[str] | None, default: str
) -> tuple[str, dict[str, Any] | None]:
    """The file's name and its TOML document; None if ``path`` is None and ``default`` is missing
    (a path given explicitly must exist). Anything unreadable is a ``ConfigError``."""
    file = os.fspath(path if path is not None else default)
    try:
        with open(file, "rb") as handle:
            text = handle.read()
    except FileNotFoundError:
        if path is not None:
            raise ConfigError(f"{file}: no such configuration file") from None
        return file, None
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read the configuration ({exc.strerror})") from None
    try:
        return file, tomllib.loads(text.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{file}: not valid TOML ({exc})") from None
    except RecursionError:  # arrays or inline tables nested thousands deep
        problem = "not a configuration (its values are nested too deeply)"
        raise ConfigError(f"{file}: {problem}") from None


def load_service(path: str | os.PathLike[str] | None = None) -> ServiceConfig:
    """``[service]`` of the configuration file at ``path`` (None: :data:`DEFAULT_CONFIG_PATH`,
    where a missing file gives the defaults), checked as :func:`boardctl.config.load_config`
    checks it; the other sections are left unread."""
    file, data = read_toml(path, DEFAULT_CONFIG_PATH)
    if data is None or "service" not in data:
        return ServiceConfig()
    return ServiceConfig(
        **read_table(data["service"], "service", ServiceConfig, SERVICE_CHECKS, file)
    )
