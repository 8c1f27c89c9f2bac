"""Keyboard keys standing in for the buttons on the virtual board (:data:`KEYMAP`, docs/service.md),
read in cbreak mode with mock pins and ``--display terminal``."""

from __future__ import annotations

import contextlib
import os
import selectors
import sys
import termios
import tty
from collections.abc import Callable
from typing import Any

from boardctl.inputs.events import InputEvent, Tap, Turn
from boardctl.inputs.panel import TRACK_BUTTONS
from boardctl.view import ButtonId

# key -> event for the loop: a tap (hold level 0/1/2) or an encoder step back
KEYMAP: dict[str, InputEvent] = {
    "u": Tap("undo"),
    "U": Tap("undo", 1),
    "m": Tap("menu"),
    " ": Tap("menu"),
    "M": Tap("menu", 1),
    "N": Tap("menu", 2),
}
for _track, _keys in enumerate(("1qaz", "2wsx", "3edc")):
    for _key, _role in zip(_keys, TRACK_BUTTONS, strict=False):  # +1, +5, the push
        KEYMAP[_key] = Tap(ButtonId(_role, _track).name)
    KEYMAP[_keys[3]] = Turn(_track, -1)

# what the keys do, for the help lines: the full two lines and the one-line short form
LEGEND = (
    ("1/2/3", "+1"),
    ("q/w/e", "+5"),
    ("a/s/d", "commit"),
    ("z/x/c", "-1"),
    ("u", "undo"),
    ("U", "redo"),
    ("m", "next"),
    ("M", "settings"),
    ("N", "new game"),
)
_KEYS_DO = [f"{key} {what}" for key, what in LEGEND]
HELP = f"keys: {' · '.join(_KEYS_DO[:6])}\n      {' · '.join(_KEYS_DO[6:])} · Ctrl-C quit"
SHORT_HELP = "keys " + " ".join(f"{key.replace('/', '')}:{what.split()[0]}" for key, what in LEGEND)


def events_for(text: str) -> list[InputEvent]:
    """The loop events for the keys in ``text`` (unknown keys are ignored)."""
    return [KEYMAP[ch] for ch in text if ch in KEYMAP]


class Keyboard:
    """Reads keys from a terminal inside the service loop's selector."""

    def __init__(
        self,
        selector: selectors.BaseSelector,
        post: Callable[[InputEvent], None],
        *,
        fd: int | None = None,
    ) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd
        self._post = post
        self._selector = selector
        self._saved: list[Any] | None = None
        if os.isatty(self.fd):
            self._saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd)  # keys one at a time, no echo; Ctrl-C still stops
        selector.register(self.fd, selectors.EVENT_READ, self._read)

    def _read(self, mask: int) -> None:
        try:
            data = os.read(self.fd, 256)
        except OSError:
            data = b""
        if not data:  # end of input: stop listening, keep the service running
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(self.fd)
            return
        for event in events_for(data.decode("utf-8", "replace")):
            self._post(event)

    def close(self) -> None:
        """Give the terminal back as it was."""
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(self.fd)
        if self._saved is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None
