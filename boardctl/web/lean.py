"""Import the web server's libraries without what a plain-HTTP page never uses.

``ssl`` is hidden while ``asyncio`` and ``aiohttp`` are imported (no TLS client contexts) and
frozenlist's C++ extension is switched off (docs/web.md, "Figures": the RSS each saves). Called by
``boardctl web serve`` before the server is imported.
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
