"""Import the web server's libraries without what a plain-HTTP page never uses.

``ssl`` is hidden while ``asyncio`` and ``aiohttp`` are imported (no TLS client contexts) and
frozenlist's C++ extension is switched off (docs/web.md, "Figures": the RSS each saves).
"""

from __future__ import annotations

import contextlib
import os
import sys

_FROZENLIST_SWITCH = "FROZENLIST_NO_EXTENSIONS"


def prepare() -> None:
    """Import ``asyncio`` and ``aiohttp.web`` without TLS contexts and without C++ (above)."""
    hide_ssl = "ssl" not in sys.modules  # an imported ssl is left alone
    if hide_ssl:
        sys.modules["ssl"] = None  # type: ignore[assignment]  # Python's "not importable" mark
    before = os.environ.get(_FROZENLIST_SWITCH)
    os.environ[_FROZENLIST_SWITCH] = "1"
    try:
        import asyncio  # noqa: F401

        # aiohttp imports frozenlist; without the web extra, the server's import says so
        with contextlib.suppress(ImportError):
            import aiohttp.web  # noqa: F401
    finally:
        if hide_ssl and sys.modules.get("ssl", 0) is None:
            del sys.modules["ssl"]
        if before is None:
            os.environ.pop(_FROZENLIST_SWITCH, None)
        else:
            os.environ[_FROZENLIST_SWITCH] = before
