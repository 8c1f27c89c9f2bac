"""The targets a game may be played to: the one source for the checks, the CLI help and the docs.

A leaf module (no imports), so the configuration and the CLI can read it cheaply.
A target also has to fit the board's layout (its holes per track: 121 on the
built-in boards); the service refuses a larger one before it is journalled.
"""

from __future__ import annotations

MIN_TARGET = 31  # the shortest game with a skunk line above the start
MAX_TARGET = 999  # a sanity bound; the board layout decides what it can show
TARGET_RANGE = f"{MIN_TARGET}-{MAX_TARGET}"
TARGET_HELP = f"121 or 61 (or any {TARGET_RANGE} that the board's layout has holes for)"
