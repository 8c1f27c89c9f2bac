"""The configuration file as TOML, and its ``[service]`` section read alone.

:func:`boardctl.config.load_config` reads the file with :func:`read_document`
and checks every section. The CLI verbs that only need to find the service
(``status``, ``peg``, ``history`` and the other game verbs) read the
``[service]`` section alone with :func:`service_section`: the same file, the
same TOML errors and the same checks and messages for ``service.journal`` and
``service.socket``, without building the whole configuration (its dataclasses
and the tables its checks import cost more than the rest of such a verb on a
Pi). The other sections are checked where they are used: by the service when
it starts, and by the verbs that read them (``run``, ``selftest``, ``mqtt``,
``demo``, ``standings``).

A checked ``[service]`` is remembered per user (see "remembering" below), so an
unchanged file is parsed once, not by every verb.

The messages every key check shares are written here, once.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

DEFAULT_CONFIG_PATH = "/etc/boardctl/config.toml"

#: The keys of ``[service]`` (``boardctl.config.ServiceConfig``; a test checks they agree).
SERVICE_KEYS = ("journal", "socket")


def _error(message: str) -> Exception:
    from boardctl.errors import ConfigError

    return ConfigError(message)


def read_document(
    path: str | os.PathLike[str] | None, default: str | os.PathLike[str] = DEFAULT_CONFIG_PATH
) -> tuple[dict[str, Any] | None, str]:
    """The parsed TOML of ``path`` and its name; ``(None, name)`` when the default is missing.

    ``path=None`` means ``default``, which may be missing (all defaults); a
    path given explicitly must exist.
    """
    file = os.fspath(path if path is not None else default)
    try:
        with open(file, "rb") as handle:
            text = handle.read()
    except FileNotFoundError:
        if path is not None:
            raise _error(f"{file}: no such configuration file") from None
        return None, f"{file} (missing: all defaults)"
    except OSError as exc:
        raise _error(f"{file}: cannot read the configuration ({exc.strerror})") from None
    import tomllib  # only when there is a file to read

    try:
        return tomllib.loads(text.decode("utf-8")), file
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise _error(f"{file}: not valid TOML ({exc})") from None
    except RecursionError:  # arrays or inline tables nested thousands deep
        raise _error(f"{file}: not a configuration (its values are nested too deeply)") from None


def type_name(kind: type) -> str:
    """How a key's type is named in the messages."""
    return {int: "an integer", float: "a number", str: "a string", bool: "true or false"}[kind]


def coerce(value: Any, kind: type, where: str, source: str) -> Any:
    """The value as ``kind``, or a ``ConfigError`` (bool is never an int here)."""
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind in (str, bool) and isinstance(value, kind):
        return value
    raise _error(f"{source}: {where} must be {type_name(kind)}, not {value!r}")


def unknown_key(source: str, section: str, key: str, known: str) -> Exception:
    """The error for a key a section does not have."""
    return _error(
        f"{source}: unknown key {f'{section}.{key}'!r} (known keys in [{section}]: {known})"
    )


def not_a_table(source: str, name: str) -> Exception:
    """The error for a section that is not a table."""
    return _error(f"{source}: {name!r} must be a table ([{name}])")


def service_values(raw: Mapping[str, Any], source: str) -> dict[str, str]:
    """The keys ``[service]`` sets, checked (all strings)."""
    out: dict[str, str] = {}
    for key, value in raw.items():
        if key not in SERVICE_KEYS:
            raise unknown_key(source, "service", key, ", ".join(SERVICE_KEYS))
        out[key] = coerce(value, str, f"service.{key}", source)
    return out


class ServiceSection:
    """``[service]`` of a configuration file: the journal and socket paths ("" = the default)."""

    __slots__ = ("journal", "socket", "source")

    def __init__(self, journal: str = "", socket: str = "", source: str = "(defaults)") -> None:
        self.journal = journal
        self.socket = socket
        self.source = source

    @property
    def service(self) -> ServiceSection:
        """Itself: what :mod:`boardctl.service.paths` reads as ``config.service``."""
        return self


def service_section(path: str | os.PathLike[str] | None = None) -> ServiceSection:
    """``[service]`` of the file at ``path`` (default :data:`DEFAULT_CONFIG_PATH`), checked.

    A checked result is remembered in the user's runtime directory (below),
    so an unchanged file is not parsed again.
    """
    file = os.fspath(path if path is not None else DEFAULT_CONFIG_PATH)
    key = _stat_key(file)
    if key is not None:
        known = _remembered(key)
        if known is not None:
            return ServiceSection(*known, source=file)
    section = _read_service(path)
    if key is not None:
        _remember(key, section)
    return section


def _read_service(path: str | os.PathLike[str] | None) -> ServiceSection:
    data, source = read_document(path)
    if not data or "service" not in data:
        return ServiceSection(source=source)
    raw = data["service"]
    if not isinstance(raw, dict):
        raise not_a_table(source, "service")
    return ServiceSection(source=source, **service_values(raw, source))


# --- remembering a checked [service] ---------------------------------------------
# Parsing TOML imports tomllib (and typing, datetime): more than the rest of a verb the
# service answers, on a Pi. The last file's checked [service] is kept in
# $XDG_RUNTIME_DIR/boardctl/config-service.json (the user's own tmpfs directory, mode 0700;
# nothing is kept without it), keyed by the file's absolute path, device, inode, size,
# modification and change times: any write to the file, or another file put in its place,
# changes the key, and the file is read again. Only a file that passed the checks is kept.

CACHE_NAME = "config-service.json"


def _cache_file() -> str | None:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return os.path.join(runtime, "boardctl", CACHE_NAME) if runtime else None


def _stat_key(file: str) -> str | None:
    try:
        st = os.stat(file)
    except OSError:
        return None  # missing (all defaults) or unreadable: read_document says which
    path = os.path.abspath(file)
    return f"{path}|{st.st_dev}|{st.st_ino}|{st.st_size}|{st.st_mtime_ns}|{st.st_ctime_ns}"


def _remembered(key: str) -> tuple[str, str] | None:
    cache = _cache_file()
    if cache is None:
        return None
    import json

    try:
        with open(cache, encoding="utf-8") as handle:
            kept = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("key") != key:
        return None
    journal, socket = kept.get("journal"), kept.get("socket")
    if not isinstance(journal, str) or not isinstance(socket, str):
        return None
    return journal, socket


def _remember(key: str, section: ServiceSection) -> None:
    cache = _cache_file()
    if cache is None:
        return
    import json

    text = json.dumps({"key": key, "journal": section.journal, "socket": section.socket})
    temporary = f"{cache}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(cache), mode=0o700, exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, cache)
    except OSError:  # not kept: the file is read again next time
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(temporary)
