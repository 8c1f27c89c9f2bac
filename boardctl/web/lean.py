"""Import the web server's libraries without what a plain-HTTP page never uses.

``boardctl web`` serves plain HTTP on the LAN (docs/web.md), yet importing
``aiohttp`` costs memory for two things it never needs:

- **TLS client contexts**: ``aiohttp.connector`` builds two ``ssl.SSLContext``
  objects when imported (one loads the system's CA certificates), and
  ``asyncio`` imports ``ssl`` for its TLS transports: 3.7 MB of RSS here with
  OpenSSL's libraries and the parsed certificates. :func:`prepare` imports
  ``asyncio`` and ``aiohttp`` while ``ssl`` is hidden, so they take the path
  they already have for a Python without ``ssl``; ``ssl`` is then visible
  again, so the results' MQTT client can still use TLS when ``[mqtt]`` asks
  for it (it then loads OpenSSL itself).
- **frozenlist's C++ extension**: the only C++ in the process; it maps
  ``libstdc++`` (1.1 MB of RSS here) for the few lists aiohttp freezes once
  at start-up (its signal handlers). Its pure-Python twin (chosen with the
  package's own ``FROZENLIST_NO_EXTENSIONS`` switch) does the same.

Called by ``boardctl web serve`` before the server is imported; a process that
has already imported these libraries keeps them as they are.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

_FROZENLIST_SWITCH = "FROZENLIST_NO_EXTENSIONS"


@contextlib.contextmanager
def _hidden(module: str) -> Iterator[None]:
    """``import module`` raises ImportError inside the block (unless already imported)."""
    if module in sys.modules:
        yield
        return
    sys.modules[module] = None  # type: ignore[assignment]  # Python's "not importable" mark
    try:
        yield
    finally:
        if sys.modules.get(module, 0) is None:
            del sys.modules[module]


@contextlib.contextmanager
def _environment(name: str, value: str) -> Iterator[None]:
    """``os.environ[name]`` is ``value`` inside the block only."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before


def prepare() -> None:
    """Import ``asyncio`` and ``aiohttp.web`` without TLS contexts and without C++ (above)."""
    with _hidden("ssl"), _environment(_FROZENLIST_SWITCH, "1"):
        import asyncio  # noqa: F401

        # aiohttp imports frozenlist; without the web extra, the server's import says so
        with contextlib.suppress(ImportError):
            import aiohttp.web  # noqa: F401
