"""The sound settings the running service keeps: ``set volume 0.5``, ``set mute true``.

Like the LED brightness they belong to the board, not to the game: they are
not journalled and last until the service restarts (the lasting values are
``sound.volume`` and ``sound.mute`` in the config).
"""

from __future__ import annotations

import contextlib

from boardctl.errors import EntryError

#: The ``set`` keys the service keeps for the sound.
SOUND_SETTINGS = ("volume", "mute")

_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def check_sound_setting(key: str, value: object) -> float | bool:
    """``volume`` as a number 0-1, ``mute`` as true/false (text as the CLI sends it, too)."""
    if key == "volume":
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                value = float(value)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise EntryError(f"volume must be a number 0-1 (0.5 is half), not {value!r}")
        return float(value)
    if key == "mute":
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            value = value.strip().lower() in _TRUE
        if not isinstance(value, bool):
            raise EntryError(f"mute must be true or false, not {value!r}")
        return value
    raise EntryError(f"unknown sound setting {key!r} (known: {', '.join(SOUND_SETTINGS)})")
