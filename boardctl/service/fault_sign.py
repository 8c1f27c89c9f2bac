"""The fault sign without a service: one frame to the Pico, which keeps showing it.

When systemd gives up restarting the board service (``StartLimitBurst=``),
``boardctl-fault.service`` runs ``boardctl fault-sign``: the board goes dark
but for the start holes and the status LED, steady vermilion (the same sign
as a journal that cannot be opened), so the players see at once that the
score is not being kept. A broken configuration falls back to the defaults
here: the sign must show whatever made the service fail.
"""

from __future__ import annotations

import logging
from typing import Any

from boardctl.errors import BoardError

log = logging.getLogger(__name__)


def fault_frame(layout: Any) -> bytes:
    """The dark board with the start holes and the status LED in vermilion."""
    from boardctl.board.overlay import VERMILION

    frame = bytearray(3 * layout.led_count)
    leds = [layout.led_of(track, 0) for track in range(len(layout.tracks))]
    if layout.status is not None:
        leds.append(layout.status)
    for led in leds:
        frame[3 * led : 3 * led + 3] = VERMILION
    return bytes(frame)


def show_fault_sign(config_path: str | None = None, *, link: Any = None) -> str:
    """Send the fault frame on the configured link (the defaults if the config is broken)."""
    from boardctl.board import load_layout
    from boardctl.config import Config, load_config
    from boardctl.service.app import open_led_link

    try:
        config = load_config(config_path)
    except BoardError as exc:
        log.warning("%s; using the defaults for the fault sign", exc)
        config = Config()
    try:
        layout = load_layout(config.board.layout)
    except BoardError as exc:
        log.warning("%s; using the default layout for the fault sign", exc)
        layout = load_layout(Config().board.layout)
    own = link is None
    if own:
        link = open_led_link(config)
    try:
        link.show(fault_frame(layout))
    finally:
        if own:
            link.close()
    return f"fault sign sent to the LEDs ({config.link.kind} link, layout {layout.name})"
