"""Shared fixtures. Hardware is always mocked: no test touches real GPIO."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")

REPO = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def repo_root() -> Path:
    """The repository's top folder."""
    return REPO
