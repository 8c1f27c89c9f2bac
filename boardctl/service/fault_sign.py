"""The fault sign without a service: one frame to the Pico, which keeps showing it, when systemd
gives up restarting the board service (docs/service.md, 'systemd'). A broken configuration falls
back to the defaults: the sign must show whatever made the service fail."""

from __future__ import annotations

import logging
import time
from typing import Any

from boardctl.errors import BoardError, LinkError

log = logging.getLogger(__name__)

CONNECT_WAIT = 5.0  # seconds for the LED link to connect (a Pico found, opened, answering)


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


def show_fault_sign(config_path: str | None, *, link: Any = None) -> str:
    """Send the fault frame on the configured link (the defaults if the config is broken);
    :class:`LinkError` when the frame did not reach the LEDs."""
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
    if config.link.kind == "null" and link is None:
        raise LinkError("fault sign not shown: link.kind is null (no LEDs to show it on)")
    own = link is None
    if own:
        link = open_led_link(config)
    try:
        link.show(fault_frame(layout))  # kept by the link: written as soon as it connects
        deadline = time.monotonic() + CONNECT_WAIT
        # a Pico's link knows the controller once it answered (.device); other links connect
        while not (link.connected and getattr(link, "device", True) is not None):
            if time.monotonic() >= deadline:
                state = getattr(link, "error", None) or getattr(link, "state", "not connected")
                raise LinkError(
                    f"fault sign not shown: the LED link ({config.link.kind}) did not connect "
                    f"within {CONNECT_WAIT:g} s ({state}); check the controller's cable and "
                    "link.device"
                )
            time.sleep(0.05)
    finally:
        if own:
            link.close()
    return f"fault sign shown on the LEDs ({config.link.kind} link, layout {layout.name})"
