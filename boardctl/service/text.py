"""Text from outside (control socket, CLI) made safe to store and to print
(docs/control-protocol.md, 'Transport'): a player name is printed on other users' terminals,
where an escape sequence in it (``\\x1b[2J``) would clear their screens."""

from __future__ import annotations

import unicodedata
from typing import Any

from boardctl.errors import ControlError


def printable(text: str) -> str:
    """``text`` without control characters; a lone surrogate is refused."""
    if text.isprintable():
        return text
    for c in text:
        if unicodedata.category(c) == "Cs":
            raise ControlError(
                f"{text[:40]!r} is not Unicode text (a lone surrogate, \\u{ord(c):04x}); "
                "send UTF-8 text"
            )
    return "".join(c for c in text if unicodedata.category(c) != "Cc")


def clean(value: Any) -> Any:
    """Every string in ``value`` (a JSON value) through :func:`printable`."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list):
        return [clean(v) for v in value]
    if isinstance(value, dict):
        return {printable(k): clean(v) for k, v in value.items()}  # (JSON keys are strings)
    return value
