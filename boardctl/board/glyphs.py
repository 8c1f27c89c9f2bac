"""Text for any terminal: the board's symbols become plain stand-ins where they cannot print."""

from __future__ import annotations

# Stand-ins for the board's and the demo log's symbols on a terminal that cannot show them.
_PLAIN = str.maketrans({"·": ".", "●": "o", "→": "->", "…": "..."})


def printable(text: str, encoding: str | None) -> str:
    """``text`` as ``encoding`` can print it: symbols replaced, anything else as ``?``.

    >>> printable("A ·●· → x", "ascii")
    'A .o. -> x'
    """
    codec = encoding or "utf-8"
    try:
        text.encode(codec)
    except UnicodeEncodeError:
        return text.translate(_PLAIN).encode(codec, "replace").decode(codec)
    except LookupError:
        return text.encode("ascii", "replace").decode("ascii")
    return text
