"""The service configuration: a TOML file with a default for every key; a key it sets that is
unknown or of the wrong type is a :class:`ConfigError` naming the key and the file.
:data:`DEFAULT_PINS` is the one table of the buttons' wiring (BCM GPIO numbers)."""

from __future__ import annotations

import os
import string
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from boardctl.choices import Names
from boardctl.config_file import (
    DEFAULT_CONFIG_PATH,
    SERVICE_CHECKS,
    Check,
    ServiceConfig,
    read_table,
    read_toml,
)
from boardctl.errors import ConfigError, EntryError, unknown

# Buttons and encoder contacts switch to ground (internal pull-ups); ``None`` = not wired. The pins
# kept free (I2S, PWM audio, UART, I2C, the shutdown button, the HAT EEPROM): tools.hardware.pinout.
#: The GPIO of the shutdown button (``dtoverlay=gpio-shutdown``, set by systemd/install.sh):
#: GPIO3 is the only pin that also wakes a halted Pi (Zero, Zero 2 W, 3, 4).
SHUTDOWN_GPIO = 3
SHARED_PINS = ("undo", "menu")  # the buttons every track shares (also the panel's)

DEFAULT_PINS: dict[str, dict[str, int | None]] = {
    "shared": {"undo": 5, "menu": 6},
    "track1": {"plus1": 4, "plus5": 27, "encoder_a": 22, "encoder_b": 23, "encoder_push": 24},
    "track2": {"plus1": 25, "plus5": 8, "encoder_a": 10, "encoder_b": 9, "encoder_push": 11},
    "track3": {"plus1": 7, "plus5": 26, "encoder_a": None, "encoder_b": None, "encoder_push": None},
}
MAX_TRACKS = 3


def between(low: float, high: float) -> Check:
    """A check that a number lies in ``low..high``."""

    def check(value: Any) -> str | None:
        return None if low <= value <= high else f"must be between {low} and {high}"

    return check


def one_of(choices: Collection[Any]) -> Check:
    """A check that a value is one of ``choices`` (a :class:`Names`: looked up when checking)."""

    def check(value: Any) -> str | None:
        return None if value in choices else f"must be one of {', '.join(map(str, choices))}"

    return check


def parse_vid_pid(text: str) -> tuple[int, int]:
    """``"2E8A:0005"`` -> ``(0x2E8A, 0x0005)``; a ConfigError unless it is VVVV:PPPP in hex."""
    vid, _, pid = text.partition(":")
    if len(vid) == len(pid) == 4 and all(c in string.hexdigits for c in vid + pid):
        return int(vid, 16), int(pid, 16)
    raise ConfigError(f"USB id {text!r} is not VID:PID in hex (VVVV:PPPP, e.g. 2E8A:0005)")


def _vid_pid(value: Any) -> str | None:
    try:
        parse_vid_pid(str(value))
    except ConfigError:
        return "must be a USB id VVVV:PPPP in hex, e.g. 2E8A:0005"
    return None


def _baudrate(value: Any) -> str | None:
    if value == 0 or 300 <= value <= 10_000_000:
        return None
    return "must be 0 (the link's default) or 300..10000000"


def _quiet_hours(value: Any) -> str | None:
    from boardctl.sound.buzzer import QuietHours

    try:
        QuietHours.parse(value)
    except ConfigError:
        return "must be empty or a span of the day like '22:00-08:00'"
    return None


def _target(value: Any) -> str | None:
    from boardctl.cribbage.variants import MAX_TARGET, MIN_TARGET, TARGET_RANGE

    ok = value == 0 or MIN_TARGET <= value <= MAX_TARGET
    return None if ok else f"must be 0 (the variant's) or {TARGET_RANGE}"


def _topic_level(value: Any) -> str | None:
    bad = not value or any(c in value for c in "+#/\0") or value != value.strip()
    return "must be one MQTT topic level (no '/', '+', '#', or spaces at the ends)" if bad else None


def _checked(default: Any, check: Check) -> Any:
    """A key whose value must pass ``check`` (the others need only be of the default's type)."""
    return field(default=default, metadata={"check": check})


@dataclass(frozen=True)
class TrackPins:
    """The inputs of one track (``None`` = not wired)."""

    plus1: int | None = None
    plus5: int | None = None
    encoder_a: int | None = None
    encoder_b: int | None = None
    encoder_push: int | None = None


TRACK_PINS = tuple(f.name for f in fields(TrackPins))  # the inputs wired per track


@dataclass(frozen=True)
class PinsConfig:
    """Every button and encoder pin."""

    undo: int | None
    menu: int | None
    tracks: tuple[TrackPins, ...]

    def named(self) -> list[tuple[str, int | None]]:
        """Every input as its name (its key in ``[pins]``: ``undo``, ``track1.plus1``) and pin."""
        return [("undo", self.undo), ("menu", self.menu)] + [
            (f"track{i + 1}.{role}", getattr(table, role))
            for i, table in enumerate(self.tracks)
            for role in TRACK_PINS
        ]


@dataclass(frozen=True)
class BoardConfig:
    layout: str = "two-121"
    # perceptual (render.BRIGHTNESS_GAMMA): the light of a linear 128
    brightness: int = _checked(186, between(0, 255))
    power_budget_ma: int = _checked(2000, between(0, 100000))


@dataclass(frozen=True)
class LinkConfig:
    kind: str = _checked("serial", one_of(Names("boardctl.link", "KINDS")))
    device: str = ""
    vid_pid: str = _checked("2E8A:0005", _vid_pid)
    # 0: the link's own (1,000,000 for the controller's UART, 115,200 Adalight)
    baudrate: int = _checked(0, _baudrate)


@dataclass(frozen=True)
class GameConfig:
    variant: str = _checked("six-card", one_of(Names("boardctl.cribbage.variants", "VARIANTS")))
    target: int = _checked(0, _target)
    preset: str = "acc"
    mode: str = _checked("guided", one_of(Names("boardctl.game.setup", "MODES")))
    match: int = _checked(0, between(0, 99))
    rules: str = _checked("acc", one_of(Names("boardctl.cribbage.rules", "RULE_SETS")))
    confirm_result: bool = False
    # the custom preset's game points, e.g. {win = 1, skunk = 2}: sorted (name, value) pairs
    # (a table: read by _points)
    points: tuple[tuple[str, int | bool], ...] = ()


@dataclass(frozen=True)
class InputsConfig:
    """Gesture timings in seconds: ``[inputs]``, the panel's ``timing``."""

    commit_idle: float = _checked(1.5, between(0.1, 60.0))
    debounce: float = _checked(0.02, between(0.0, 0.5))
    long_press: float = _checked(1.0, between(0.2, 10.0))
    very_long_press: float = _checked(4.0, between(0.5, 30.0))
    confirm_timeout: float = _checked(10.0, between(1.0, 600.0))
    settings_timeout: float = _checked(60.0, between(1.0, 3600.0))
    # a contact held longer is stuck: ignored until released
    stuck_after: float = _checked(10.0, between(2.0, 600.0))


PICO_BUZZER = "pico"  # sound.buzzer: a piezo on the LED controller, played over the link
VOICES = ("none", "espeak")


@dataclass(frozen=True)
class SoundConfig:
    """``[sound]``: a buzzer (on a Pi pin or the Pico) and a voice; the default is silent."""

    # BCM GPIO of a piezo (through a transistor), PICO_BUZZER (one on the LED controller's
    # BUZZER_PIN), or None = none (a pin: read by _buzzer)
    buzzer: int | str | None = None
    volume: float = _checked(1.0, between(0.0, 1.0))
    mute: bool = False
    quiet_hours: str = _checked("", _quiet_hours)  # e.g. "22:00-08:00": no cue and no word then
    voice: str = _checked("none", one_of(VOICES))  # "espeak": espeak-ng to the sound device
    voice_name: str = "en"
    words_per_minute: int = _checked(165, between(80, 450))


@dataclass(frozen=True)
class MqttConfig:
    """The MQTT bridge (``boardctl mqtt``, docs/mqtt.md) and ``boardctl standings``."""

    host: str = "localhost"
    port: int = _checked(0, between(0, 65535))  # 0: 1883, or 8883 with TLS
    tls: bool = False
    ca_file: str = ""  # "": the system's certificate authorities
    cert_file: str = ""  # a client certificate, for brokers that ask for one
    key_file: str = ""
    username: str = ""
    password_file: str = ""  # one line; kept out of this file so it may stay world-readable
    # "": the results' board id (the board-id file beside the journal, ...)
    board_id: str = _checked("", lambda v: None if v == "" else _topic_level(v))
    prefix: str = _checked("boardctl", _topic_level)
    discovery: bool = True
    discovery_prefix: str = _checked("homeassistant", _topic_level)
    keepalive: int = _checked(30, between(5, 3600))
    config_url: str = ""  # shown in Home Assistant's device page
    # hours: a game ending before this counts for the evening before
    day_starts: int = _checked(6, between(0, 23))
    # the broker keeps an event's results at most this long (docs/mqtt.md)
    keep_days: int = _checked(14, between(0, 3650))


def _pins_config(tables: Mapping[str, Mapping[str, int | None]]) -> PinsConfig:
    shared = tables["shared"]
    tracks = tuple(TrackPins(**tables[f"track{i + 1}"]) for i in range(MAX_TRACKS))
    return PinsConfig(undo=shared["undo"], menu=shared["menu"], tracks=tracks)


@dataclass(frozen=True)
class Config:
    """The whole configuration; ``Config()`` is every default."""

    board: BoardConfig = field(default_factory=BoardConfig)
    link: LinkConfig = field(default_factory=LinkConfig)
    game: GameConfig = field(default_factory=GameConfig)
    inputs: InputsConfig = field(default_factory=InputsConfig)
    service: ServiceConfig = field(default_factory=ServiceConfig)
    mqtt: MqttConfig = field(default_factory=MqttConfig)
    sound: SoundConfig = field(default_factory=SoundConfig)
    pins: PinsConfig = field(default_factory=lambda: _pins_config(DEFAULT_PINS))
    source: str = "(defaults)"


def _checks(cls: type) -> Mapping[str, Check | None]:
    """A section's keys and their checks (None: any value of the default's type)."""
    if cls is ServiceConfig:
        return SERVICE_CHECKS
    return {f.name: f.metadata.get("check") for f in fields(cls)}


# the sections read as tables of plain values ([pins] has its own reader)
_SECTIONS: dict[str, tuple[type, Mapping[str, Check | None]]] = {
    name: (type(section), _checks(type(section)))
    for name, section in vars(Config()).items()
    if name not in ("pins", "source")
}


def _pin(value: Any, where: str, source: str) -> int | None:
    if value is False:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(
            f"{source}: {where} must be a BCM GPIO number (2..27) or false, not {value!r}"
        )
    if not 2 <= value <= 27:
        raise ConfigError(f"{source}: {where} must be a BCM GPIO number 2..27 (got {value})")
    return value


def _points(value: Any, values: dict[str, Any], source: str) -> tuple[tuple[str, int | bool], ...]:
    """``game.points``: a table of the custom preset's values."""
    from boardctl.game.setup import check_points, get_preset

    preset = values.get("preset", "custom")
    if preset not in ("custom", "acc"):  # acc: the default, left out
        raise ConfigError(
            f"{source}: game.points are the custom preset's values; set game.preset = "
            f'"custom" or leave it out (got preset {preset!r})'
        )
    try:
        points = check_points(value)
        get_preset("custom", dict(points))
    except EntryError as exc:
        raise ConfigError(f"{source}: game.points: {exc}") from None
    return points


def _buzzer(value: Any, values: dict[str, Any], source: str) -> int | str | None:
    """``sound.buzzer``: a Pi pin, ``"pico"`` (the LED controller's piezo) or false."""
    if value == PICO_BUZZER:
        return PICO_BUZZER
    if isinstance(value, str):
        raise ConfigError(
            f"{source}: sound.buzzer must be a BCM GPIO number (2..27), "
            f'"{PICO_BUZZER}" (a piezo on the LED controller) or false, not {value!r}'
        )
    return _pin(value, "sound.buzzer", source)


# The keys that are not plain values, each read by its own function after the others.
_SPECIAL: dict[str, tuple[str, Callable[[Any, dict[str, Any], str], Any]]] = {
    "game": ("points", _points),
    "sound": ("buzzer", _buzzer),
}


def _read_section(raw: Any, name: str, source: str) -> Any:
    cls, checks = _SECTIONS[name]
    key, read = _SPECIAL.get(name, ("", None))
    plain = {k: v for k, v in raw.items() if k != key} if isinstance(raw, dict) else raw
    values = read_table(plain, name, cls, checks, source)
    if read is not None and key in raw:
        values[key] = read(raw[key], values, source)
    return cls(**values)


def _pins(raw: Any, source: str) -> PinsConfig:
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: 'pins' must be a table ([pins])")
    tables = {name: dict(roles) for name, roles in DEFAULT_PINS.items()}
    for key, value in raw.items():
        if key in SHARED_PINS:
            tables["shared"][key] = _pin(value, f"pins.{key}", source)
        elif key in tables and key != "shared":
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: pins.{key} must be a table ([pins.{key}])")
            for role, pin in value.items():
                if role not in TRACK_PINS:
                    raise ConfigError(
                        f"{source}: unknown key 'pins.{key}.{role}' "
                        f"(known keys: {', '.join(TRACK_PINS)})"
                    )
                tables[key][role] = _pin(pin, f"pins.{key}.{role}", source)
        else:
            known = ", ".join((*SHARED_PINS, *list(tables)[1:]))
            raise ConfigError(f"{source}: unknown key 'pins.{key}' (known keys in [pins]: {known})")
    for name, table in list(tables.items())[1:]:
        if (table["encoder_a"] is None) != (table["encoder_b"] is None):
            raise ConfigError(
                f"{source}: pins.{name} needs both encoder_a and encoder_b, or neither"
            )
    return _pins_config(tables)


def parse_config(data: Mapping[str, Any], source: str = "(config)") -> Config:
    """Validate a parsed TOML document and fill in every default."""
    sections: dict[str, Any] = {}
    for name, value in data.items():
        if name == "pins":
            sections["pins"] = _pins(value, source)
        elif name in _SECTIONS:
            sections[name] = _read_section(value, name, source)
        else:
            known = unknown("section or key", name, [*_SECTIONS, "pins"])
            raise ConfigError(f"{source}: {known}")
    config = Config(source=source, **sections)
    used: dict[int, str] = {}  # no two inputs, nor the buzzer and an input, share a pin
    named = [(f"pins.{name}", pin) for name, pin in config.pins.named()]
    for where, pin in [*named, ("sound.buzzer", config.sound.buzzer)]:
        if not isinstance(pin, int):
            continue  # not wired, or the buzzer on the LED controller
        if pin in used:
            raise ConfigError(f"{source}: {where} uses GPIO {pin}, already used by {used[pin]}")
        used[pin] = where
    if config.sound.buzzer == PICO_BUZZER and config.link.kind != "serial":
        raise ConfigError(
            f'{source}: sound.buzzer = "{PICO_BUZZER}" plays on the boardctl LED '
            f'controller: it needs link.kind = "serial", not "{config.link.kind}"'
        )
    inputs = config.inputs
    for shorter, longer in (("long_press", "very_long_press"), ("very_long_press", "stuck_after")):
        if getattr(inputs, longer) <= getattr(inputs, shorter):
            raise ConfigError(
                f"{source}: inputs.{longer} ({getattr(inputs, longer)}) must be longer "
                f"than inputs.{shorter} ({getattr(inputs, shorter)})"
            )
    return config


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read the configuration file (None: :data:`DEFAULT_CONFIG_PATH`; missing: every default)."""
    file, data = read_toml(path, DEFAULT_CONFIG_PATH)
    if data is None:
        return Config(source=f"{file} (missing: all defaults)")
    return parse_config(data, file)


def default_config_text() -> str:
    """A commented configuration file listing every key with its default."""
    c = Config()
    lines = ["# boardctl configuration: every key is optional; shown are the defaults.", ""]
    for name, (_, keys) in _SECTIONS.items():
        section = getattr(c, name)
        lines += [f"[{name}]", *(f"{k} = {_toml_value(getattr(section, k))}" for k in keys), ""]
    for group, roles in DEFAULT_PINS.items():
        header = "[pins]  # BCM GPIO numbers; false = not wired"
        lines += [header] if group == "shared" else ["", f"[pins.{group}]"]
        lines += [f"{role} = {_toml_value(pin)}" for role, pin in roles.items()]
    return "\n".join(lines) + "\n"


def _toml_value(value: object) -> str:
    if isinstance(value, tuple):  # (name, value) pairs: an inline table
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value) + "}"
    if value is None or isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def link_options(
    config: Config, kind: str | None = None, device: str | None = None
) -> dict[str, Any]:
    """The options ``open_link`` needs for ``[link]`` (``kind`` and ``device`` override it)."""
    from boardctl.link import LINK_KINDS

    kind = kind or config.link.kind
    entry = LINK_KINDS.get(kind)
    options: dict[str, Any] = {}
    path = device or config.link.device
    if entry is not None and entry.device and path:
        options["path"] = path
    elif entry is not None and entry.serial:
        options["vid_pid"] = config.link.vid_pid  # found by its USB id
    if entry is not None and entry.serial and config.link.baudrate:
        options["baud"] = config.link.baudrate
    if kind == "serial":
        from boardctl.board.power import MA_PER_LED_WHITE

        options["budget_ma"] = config.board.power_budget_ma
        options["led_ma"] = round(MA_PER_LED_WHITE)  # the firmware's limiter counts the same
    return options
