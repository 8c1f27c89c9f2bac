"""Shared fixtures. Hardware is always mocked: no test touches real GPIO."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

if TYPE_CHECKING:
    from gpiozero.pins.mock import MockFactory

os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")

# Hypothesis' per-example deadline (200 ms) measures the machine's load, not the code: on two
# shared cores a slow example fails a property that holds. Speed is measured in benchmarks/.
settings.register_profile("boardctl", deadline=None)
settings.load_profile("boardctl")

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


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
