"""``boardctl run`` as a process of its own, on mock pins and no display: the command line
and environment the process tests and the benchmarks start it with."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.conftest import REPO


def service_argv(config: Path, journal: Path, socket: Path) -> list[str]:
    """The service on ``config``, ``journal`` and ``socket``."""
    return [
        *(sys.executable, "-m", "boardctl", "run", "--display", "none"),
        *("--config", str(config), "--journal", str(journal), "--socket", str(socket)),
    ]


def service_env(**more: str) -> dict[str, str]:
    """This environment, with gpiozero's mock pins, the tree's boardctl and ``more``."""
    return {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "PYTHONPATH": str(REPO), **more}
