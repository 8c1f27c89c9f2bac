"""The LED link: the wire protocol to the Pico and the host-side back-ends.

:data:`LINK_KINDS` is the one registry of link kinds (as gpiozero's ``default_factories``:
``module:Class``, imported when opened, and the options it takes)::

    >>> link = open_link("null")
    >>> link.show(bytes(3 * 4))
    >>> link.connected
    True
    >>> link.close()
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from boardctl.errors import ConfigError
from boardctl.link.base import Link, NullLink, RecordingLink


@dataclass(frozen=True, slots=True)
class LinkKind:
    """One kind of LED link: its class, and the options of ``[link]`` it takes."""

    factory: str  # "module:Class", imported when a link of this kind is opened
    device: bool = False  # takes ``[link] device`` (a serial port, or a network address)
    serial: bool = False  # takes the serial port's options: its USB id, its baud rate


LINK_KINDS: dict[str, LinkKind] = {
    # the boardctl LED controller (firmware/) over USB CDC or a UART
    "serial": LinkKind("boardctl.link.serial_link:PicoLink", device=True, serial=True),
    # a WLED device or an Adalight Arduino sketch on a serial port
    "adalight": LinkKind("boardctl.link.serial_link:AdalightLink", device=True, serial=True),
    "null": LinkKind("boardctl.link.base:NullLink"),  # no LEDs
    "recording": LinkKind("boardctl.link.base:RecordingLink"),  # keeps every frame, for tests
    # a WLED controller on the network (DDP over UDP; device = its address)
    "ddp": LinkKind("boardctl.link.ddp:DdpLink", device=True),
}
KINDS = tuple(LINK_KINDS)
SERIAL_OPTIONS = ("baud", "vid_pid")

__all__ = ["KINDS", "LINK_KINDS", "Link", "LinkKind", "NullLink", "RecordingLink", "open_link"]


def open_link(kind: str, **options: Any) -> Link:
    """A link of ``kind`` (one of :data:`LINK_KINDS`; ``device`` is ``path``'s alias,
    ``baudrate`` ``baud``'s); serial ones connect in the background."""
    if "device" in options:
        options["path"] = options.pop("device") or None
    if "baudrate" in options:
        options["baud"] = options.pop("baudrate")
    entry = LINK_KINDS.get(kind)
    if entry is None:
        raise ConfigError(f"unknown LED link {kind!r}: choose one of {', '.join(KINDS)}")
    # a config may name a device or a baud rate a kind ignores
    for key in (() if entry.device else ("path",)) + (() if entry.serial else SERIAL_OPTIONS):
        options.pop(key, None)
    module, _, name = entry.factory.partition(":")
    __import__(module)  # (importlib would import warnings for every verb)
    factory: Any = getattr(sys.modules[module], name)
    try:
        link: Link = factory(**options)
    except TypeError as exc:
        raise ConfigError(f"bad option for the {kind} LED link: {exc}") from None
    return link
