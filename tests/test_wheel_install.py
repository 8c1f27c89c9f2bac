"""The built wheel in a fresh virtualenv, as a board gets it: the demo plays a game and the
service runs, answers the CLI and keeps an entry (``firmware install`` from the same venv:
tests/test_firmware_install_wheel.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_firmware_install_wheel import build_wheel, fresh_venv


@pytest.fixture(scope="module")
def venv_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("wheel")
    return fresh_venv(root / "venv", build_wheel(root / "dist"))


def _env(bin_dir: Path, home: Path) -> dict[str, str]:
    """The venv first on PATH, no checkout on sys.path, a home of the test's own."""
    skip = ("PYTHON", "VIRTUAL_ENV", "GPIOZERO_")  # no GPIO chip here: the service takes mock pins
    env = {k: v for k, v in os.environ.items() if not k.startswith(skip)}
    env |= {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "HOME": str(home)}
    env.pop("XDG_RUNTIME_DIR", None)
    return env


@pytest.mark.slow
def test_the_wheels_demo_plays_a_whole_game(venv_bin: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(venv_bin / "boardctl"), "demo", "--speed", "0", "--display", "none", "--seed", "7"],
        capture_output=True,
        text=True,
        env=_env(venv_bin, tmp_path),
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert " wins (" in done.stdout and "game points" in done.stdout, done.stdout[-2000:]


@pytest.fixture
def short_home() -> Iterator[Path]:
    """A home whose control socket path fits AF_UNIX's 108 bytes (pytest's paths may not)."""
    home = Path(tempfile.mkdtemp(prefix="bc-home-"))
    yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.mark.slow
def test_the_wheels_service_runs_and_keeps_an_entry(venv_bin: Path, short_home: Path) -> None:
    tmp_path = short_home
    env = _env(venv_bin, tmp_path)
    boardctl = str(venv_bin / "boardctl")
    service = subprocess.Popen(
        [boardctl, "run", "--display", "none"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:  # the service answers once its control socket is up
            status = subprocess.run(
                [boardctl, "status", "--json"], capture_output=True, text=True, env=env
            )
            if status.returncode == 0 and "read from the journal" not in status.stderr:
                break
            assert service.poll() is None, service.communicate()[1]
            assert time.monotonic() < deadline, status.stdout + status.stderr
            time.sleep(0.2)
        for verb in (["set", "mode", "free"], ["peg", "1", "7"]):
            done = subprocess.run(
                [boardctl, *verb], capture_output=True, text=True, env=env, timeout=60
            )
            assert done.returncode == 0, done.stdout + done.stderr
            assert "journal directly" not in done.stderr  # the running service took it
        assert service.poll() is None
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(60)
    assert service.returncode == 0, service.communicate()[1]
    # the entry is in the journal the installed service kept (read with the service down)
    status = subprocess.run(
        [boardctl, "status", "--json"], capture_output=True, text=True, env=env, timeout=60
    )
    assert status.returncode == 0, status.stderr
    assert '"front": 7' in status.stdout, status.stdout
