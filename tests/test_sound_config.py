"""``[sound]`` in the config, and ``set volume`` / ``set mute`` on the running board."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.config import Config, SoundConfig, default_config_text, parse_config
from boardctl.errors import ConfigError, EntryError
from boardctl.service.settings import check_sound_setting
from boardctl.sound.announcer import Announcer
from tests.test_e2e import built as board
from tests.test_sound_buzzer import BUZZER_PIN


def test_the_default_is_silent() -> None:
    assert Config().sound == SoundConfig(buzzer=None, voice="none")
    assert "[sound]\nbuzzer = false\nvolume = 1.0\nmute = false" in default_config_text()


def test_every_sound_key_is_read() -> None:
    sound = parse_config(
        {
            "sound": {
                "buzzer": 13,
                "volume": 0.4,
                "mute": True,
                "quiet_hours": "22:00-08:00",
                "voice": "espeak",
                "voice_name": "en-gb",
                "words_per_minute": 140,
            }
        }
    ).sound
    assert sound == SoundConfig(13, 0.4, True, "22:00-08:00", "espeak", "en-gb", 140)
    assert parse_config({"sound": {"buzzer": False, "volume": 1}}).sound.buzzer is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"buzzer": 5}, "sound.buzzer uses GPIO 5, already used by pins.undo"),
        ({"buzzer": 40}, "sound.buzzer must be a BCM GPIO number 2..27"),
        ({"buzzer": "12"}, "sound.buzzer must be a BCM GPIO number"),
        ({"volume": 1.5}, "sound.volume must be between 0.0 and 1.0"),
        ({"mute": "yes"}, "sound.mute must be true or false"),
        ({"quiet_hours": "late"}, "sound.quiet_hours must be empty or a span"),
        ({"voice": "festival"}, "sound.voice must be one of none, espeak"),
        ({"words_per_minute": 20}, "sound.words_per_minute must be between 80 and 450"),
        ({"speaker": 1}, "unknown key 'sound.speaker'"),
    ],
)
def test_a_bad_sound_key_is_named(raw: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config({"sound": raw}, "board.toml")


def test_sound_settings_are_checked() -> None:
    assert check_sound_setting("volume", "0.5") == 0.5
    assert check_sound_setting("volume", 1) == 1.0
    assert check_sound_setting("mute", "true") is True
    assert check_sound_setting("mute", False) is False
    for key, bad in (("volume", 2), ("volume", "loud"), ("volume", True), ("mute", 3)):
        with pytest.raises(EntryError, match=key):
            check_sound_setting(key, bad)


def test_volume_and_mute_are_set_at_run_time(tmp_path: Path, factory: MockFactory) -> None:
    built = board(tmp_path, factory, parse_config({"sound": {"buzzer": BUZZER_PIN}}))
    try:
        announcer = built.sound
        assert isinstance(announcer, Announcer) and announcer.cues is not None
        loop = built.loop
        assert loop.requests.handle({"op": "set", "key": "volume", "value": "0.5"}) == {
            "volume": 0.5
        }
        assert announcer.cues.volume == 0.5
        assert loop.requests.handle({"op": "set", "key": "mute", "value": True}) == {"mute": True}
        assert not announcer.cues.audible()
        assert loop.requests.handle({"op": "status"})["mute"] is True
        with pytest.raises(EntryError, match="volume must be a number 0-1"):
            loop.requests.handle({"op": "set", "key": "volume", "value": 3})
        assert announcer.cues.volume == 0.5  # a refused value changes nothing
        assert loop.requests.handle({"op": "status"})["volume"] == 0.5
    finally:
        built.close()


def test_a_silent_board_says_no_sound_is_wired(tmp_path: Path, factory: MockFactory) -> None:
    built = board(tmp_path, factory, Config())
    try:
        with pytest.raises(EntryError, match="no sound is wired"):
            built.loop.requests.handle({"op": "set", "key": "mute", "value": True})
        assert "mute" not in built.loop.requests.handle({"op": "status"})
    finally:
        built.close()


def test_the_docs_cue_table_is_the_cues_table() -> None:
    from boardctl.sound.cues import CUES
    from tools.sound_cues import WHEN, cue_table

    assert set(WHEN) == set(CUES)
    text = (Path(__file__).parent.parent / "docs" / "sound.md").read_text()
    assert cue_table() in text


def test_a_buzzer_on_plain_mock_pins_gets_a_mock_pwm_pin(tmp_path: Path) -> None:
    plain = MockFactory(revision="902120")  # the virtual board's pins: no PWM by default
    try:
        built = board(tmp_path, plain, parse_config({"sound": {"buzzer": 13}}))
        try:
            assert isinstance(built.sound, Announcer) and built.sound.cues is not None
            assert built.sound.cues.play("commit")
            assert built.sound.cues.wait_idle(5)
        finally:
            built.close()
    finally:
        plain.reset()
