"""The twin's tests: boardctl installed and running in a Debian VM (twin/, docs/twin.md).

They run only when asked for by marker (``pytest -m twin tests/twin``): they need root,
QEMU and mmdebstrap, and minutes. One VM serves every test of the session.
"""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from tests.twin.pico import PicoOnUsb
from tests.twin.vm import Twin, build_image, free_port, wheel_folder

ROOT = Path(__file__).resolve().parents[2]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "twin: runs in the Debian VM twin (twin/, docs/twin.md)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave the twin's tests out unless the marker expression names them."""
    if "twin" in (config.getoption("markexpr") or ""):
        return
    twin = [item for item in items if item.get_closest_marker("twin")]
    if twin:
        config.hook.pytest_deselected(items=twin)
        items[:] = [item for item in items if not item.get_closest_marker("twin")]


def interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="session")
def twin() -> Iterator[Twin]:
    """The VM, booted from the cached image, with boardctl installed as a maker installs it,
    and the emulated Pico on its USB port. A SIGTERM (.ci/run stopping early) ends the session
    as Ctrl-C does: the VM is powered off, not left running."""
    signal.signal(signal.SIGTERM, interrupted)
    image = build_image(ROOT / "twin")
    wheels = wheel_folder(ROOT)
    run = Path(tempfile.mkdtemp(prefix="boardctl-twin-"))
    vm = Twin(ROOT / "twin", image, run, ssh_port=free_port(), broker_port=free_port())
    vm.pico = PicoOnUsb(run, vm.plug_pico)
    try:
        vm.boot()
        vm.install_boardctl(ROOT, wheels)
        yield vm
    finally:
        vm.figures_to(ROOT / "build" / "artefacts" / "twin-figures.json")
        if vm.running():
            vm.poweroff()
        vm.pico.power_off()
        if not os.environ.get("BOARDCTL_TWIN_KEEP"):
            vm.remove_run_folder()
