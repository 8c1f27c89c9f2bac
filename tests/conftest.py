"""Shared fixtures. Hardware is always mocked: no test touches real GPIO."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from tests.mqtt_broker import Broker, have_mosquitto

if TYPE_CHECKING:
    from gpiozero.pins.mock import MockFactory
    from playwright.sync_api import Browser

    from boardctl.cribbage.scoring import Scoring

os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")

# Hypothesis' per-example deadline (200 ms) measures the machine's load, not the code: on two
# shared cores a slow example fails a property that holds. Speed is measured in benchmarks/.
settings.register_profile("boardctl", deadline=None)
settings.load_profile("boardctl")

REPO = Path(__file__).resolve().parent.parent
# Debian's chromium, which the PyPI playwright package drives (no browser download)
CHROMIUM = os.environ.get("BOARDCTL_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
DATA = Path(__file__).resolve().parent / "data"


def scoring_of(name: str) -> Scoring:
    """The scoring switches of the rule set called ``name``."""
    from boardctl.cribbage.rules import get_rule_set, scoring_for

    return scoring_for(get_rule_set(name).house_rules)


@pytest.fixture
def repo_root() -> Path:
    """The repository's top folder."""
    return REPO


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """A fresh MockFactory as gpiozero's default pin factory, restored afterwards."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    saved = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    """A Zero 2 W MockFactory whose PWM pins record every tone (the sound tests' buzzer)."""
    from gpiozero.pins.mock import MockFactory

    from tests.test_sound_buzzer import RecordingPWMPin

    factory = MockFactory(revision="902120", pin_class=RecordingPWMPin)
    try:
        yield factory
    finally:
        factory.reset()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """A real headless Chromium (playwright imported here: only the browser tests pay for it)."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), (
        f"no chromium at {CHROMIUM}: apt-get install chromium (bash .ci/run does)"
    )
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A mosquitto of the test's own on a free port (the MQTT and standings tests)."""
    assert have_mosquitto(), "these tests need mosquitto (apt-get install mosquitto)"
    b = Broker(tmp_path / "broker")
    b.start()
    try:
        yield b
    finally:
        b.close()
