"""The board's own settings, the service's alone (the engine keeps the game's): the LED
brightness, the sound's volume and mute, and what settings mode starts from."""

from __future__ import annotations

import contextlib

from boardctl.errors import EntryError, unknown

TYPE_CHECKING = False
if TYPE_CHECKING:  # this module is read by every CLI verb that sends a command: kept light
    from collections.abc import Callable, Mapping

    from boardctl.game import JsonValue

#: The game's settings that settings mode shows, read from the engine's status.
GAME_SETTINGS = ("target", "variant", "preset", "mode", "rules")

#: The ``set`` keys the service keeps for the sound.
SOUND_SETTINGS = ("volume", "mute")

#: The ``set`` keys the running board keeps itself: not journalled, they last until the service
#: restarts (the lasting values: board.brightness, sound.volume and sound.mute in the config).
BOARD_SETTINGS = ("brightness", *SOUND_SETTINGS)


def setting_keys() -> tuple[str, ...]:
    """Every key ``set`` takes: the game's (the engine's table of setters), then the board's."""
    from boardctl.game.setters import SETTINGS

    return (*SETTINGS, *BOARD_SETTINGS)


def check_setting_request(request: Mapping[str, object]) -> None:
    """A ``set`` request's key and fields; a board setting's value too (the game checks its own)."""
    from boardctl.game.commands import check_fields

    key, known = request.get("key"), setting_keys()
    if not isinstance(key, str) or key not in known:
        raise EntryError(unknown("setting", key, known))
    check_fields(request, "set")
    if key in SOUND_SETTINGS:
        check_sound_setting(key, request.get("value"))


class BoardSettings:
    """The brightness now (None = the renderer's own) and who to tell when it changes."""

    def __init__(self, on_brightness: Callable[[int], None] | None) -> None:
        self.brightness: int | None = None
        self.on_brightness = on_brightness or (lambda level: None)
        self.sound: dict[str, float | bool] = {}  # volume / mute set at run time
        self.on_sound: Callable[[str, float | bool], None] | None = None  # set when wired

    def set_sound(self, key: str, value: object) -> dict[str, JsonValue]:
        """``set volume`` / ``set mute``: checked, applied to the sound; the reply."""
        checked = check_sound_setting(key, value)
        if self.on_sound is None:
            raise EntryError(
                f"set {key}: no sound is wired (configure sound.buzzer or sound.voice)"
            )
        self.sound[key] = checked
        self.on_sound(key, checked)
        return {key: checked}

    def set_brightness(self, level: int) -> dict[str, JsonValue]:
        """Change the brightness (0-255, checked by the command's parser); the reply."""
        self.brightness = level
        self.on_brightness(level)
        return {"brightness": level}

    def current(self, status: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
        """The values settings mode starts from."""
        return {**{key: status.get(key) for key in GAME_SETTINGS}, "brightness": self.brightness}


_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def check_sound_setting(key: str, value: object) -> float | bool:
    """``volume`` as a number 0-1, else ``mute`` as true/false (text as the CLI sends it, too)."""
    if key == "volume":
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                value = float(value)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
            raise EntryError(f"volume must be a number 0-1 (0.5 is half), not {value!r}")
        return float(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
        value = value.strip().lower() in _TRUE
    if not isinstance(value, bool):
        raise EntryError(f"mute must be true or false, not {value!r}")
    return value
