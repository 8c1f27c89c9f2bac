"""The LED link: the wire protocol to the Pico and the host-side back-ends.

``open_link(kind, **options)`` gives a :class:`Link` of one kind:

- ``serial``: the boardctl LED controller (``firmware/``) over USB CDC or a UART,
- ``adalight``: a WLED device or an Adalight Arduino sketch,
- ``ddp``: a WLED controller on the network (DDP over UDP; ``device`` = its address),
- ``null``: no LEDs,
- ``recording``: keeps every frame, for tests.

Example::

    >>> link = open_link("null")
    >>> link.show(bytes(3 * 4))
    >>> link.connected
    True
    >>> link.close()
"""

from __future__ import annotations

from typing import Any

from boardctl.errors import ConfigError
from boardctl.link.base import Link, NullLink, RecordingLink

KINDS = ("serial", "adalight", "null", "recording", "ddp")
SERIAL_OPTIONS = ("path", "baud", "vid_pid")

__all__ = ["KINDS", "Link", "NullLink", "RecordingLink", "open_link"]


def open_link(kind: str, **options: Any) -> Link:
    """A link of ``kind`` (one of ``KINDS``); serial ones connect in the background.

    Serial options (see ``boardctl.link.serial_link``): ``path`` (alias ``device``; empty
    or None = find the Pico by ``vid_pid``), ``baud`` (alias ``baudrate``), and more.
    """
    if "device" in options:
        options["path"] = options.pop("device") or None
    if "baudrate" in options:
        options["baud"] = options.pop("baudrate")
    if kind in ("null", "recording"):
        for key in SERIAL_OPTIONS:  # a config may name a device the null link ignores
            options.pop(key, None)
    if kind == "null":
        factory: Any = NullLink
    elif kind == "recording":
        factory = RecordingLink
    elif kind == "serial":
        from boardctl.link.serial_link import PicoLink

        factory = PicoLink
    elif kind == "adalight":
        from boardctl.link.serial_link import AdalightLink

        factory = AdalightLink
    elif kind == "ddp":
        from boardctl.link.ddp import DdpLink

        factory = DdpLink
    else:
        raise ConfigError(f"unknown LED link {kind!r}: choose one of {', '.join(KINDS)}")
    try:
        link: Link = factory(**options)
    except TypeError as exc:
        raise ConfigError(f"bad option for the {kind} LED link: {exc}") from None
    return link
