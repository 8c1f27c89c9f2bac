"""The service as systemd runs it: a subprocess, READY=1, kill -9 mid-game, SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from boardctl.service.client import request
from tests.conftest import REPO
from tests.service_process import service_argv, service_env


class Service:
    """``boardctl run --display none`` on mock pins, with a notify socket like systemd's."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.socket = tmp_path / "run" / "control.sock"
        self.journal = tmp_path / "state" / "journal.sqlite"
        self.config = tmp_path / "config.toml"
        self.config.write_text(
            '[link]\nkind = "null"\n[game]\nmode = "guided"\n[inputs]\ncommit_idle = 0.5\n'
        )
        self.notify_path = tmp_path / "notify"
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(str(self.notify_path))
        self.notify.settimeout(10)
        self.proc: subprocess.Popen[bytes] | None = None

    def use_link(self, text: str) -> None:
        self.config.write_text(f'{text}\n[game]\nmode = "guided"\n[inputs]\ncommit_idle = 0.5\n')

    def start(self) -> float:
        """Start the service; return the seconds until READY=1."""
        env = service_env(NOTIFY_SOCKET=str(self.notify_path), WATCHDOG_USEC="2000000")
        command = service_argv(self.config, self.journal, self.socket)
        start = time.monotonic()
        self.proc = subprocess.Popen(command, env=env, stderr=subprocess.PIPE)
        while True:
            message = self.notify.recv(4096).decode()
            if "READY=1" in message:
                return time.monotonic() - start

    def messages(self, duration: float) -> list[str]:
        """Every notify message that arrives within ``duration`` seconds."""
        out = []
        end = time.monotonic() + duration
        try:
            while (left := end - time.monotonic()) > 0:
                self.notify.settimeout(left)
                out.append(self.notify.recv(4096).decode())
        except TimeoutError:
            pass
        finally:
            self.notify.settimeout(10)
        return out

    def ask(self, op: str, **fields: Any) -> Any:
        return request(self.socket, {"op": op, **fields})

    def press(self, button: str, hold: int = 0) -> Any:
        return self.ask("press", button=button, hold=hold)

    def enter(self, track: int, points: int) -> None:
        for _ in range(points // 5):
            self.press(f"track{track}.plus5")
        for _ in range(points % 5):
            self.press(f"track{track}.plus1")
        self.press(f"track{track}.encoder_push")

    def kill(self, sig: int) -> int:
        assert self.proc is not None
        self.proc.send_signal(sig)
        code = self.proc.wait(10)
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read().decode()
        return code

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.proc is not None and self.proc.stderr is not None:
            self.proc.stderr.close()
        self.notify.close()


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    s = Service(tmp_path)
    try:
        yield s
    finally:
        s.close()


def scores(status: dict[str, Any]) -> list[tuple[int, int]]:
    return [(t["front"], t["back"]) for t in status["tracks"]]


def test_kill_9_mid_game_then_restart_gives_the_same_state_and_frame(service: Service) -> None:
    service.start()
    service.press("track2.plus1")  # the cut: track 2 deals
    service.press("menu")  # dealt: the play
    service.enter(1, 2)
    service.enter(2, 3)
    service.enter(1, 1)
    before = service.ask("status")
    assert before["phase"] == "play" and scores(before) == [(3, 2), (3, 0)]
    frame = service.ask("frame")
    service.press("track1.plus5")  # a pending entry, never committed
    assert service.ask("status")["pending"] == [5, 0]
    assert service.kill(signal.SIGKILL) == -signal.SIGKILL
    assert service.socket.exists()  # left behind by kill -9; the restart replaces it

    service.start()
    after = service.ask("status")
    for key in ("target", "phase", "dealer", "winner", "tracks", "seq", "undo"):
        assert after[key] == before[key], key
    assert after["pending"] == [0, 0]
    assert service.ask("frame") == frame
    # and it goes on from there: undo works across the restart
    service.press("undo")
    assert scores(service.ask("status")) == [(2, 0), (3, 0)]


def test_ready_watchdog_status_and_a_clean_sigterm(service: Service) -> None:
    seconds = service.start()
    assert seconds < 30
    service.enter(2, 0)  # nothing pending: a commit press does nothing
    service.press("track1.plus1")  # the cut
    messages = service.messages(1.5)
    assert any(m == "WATCHDOG=1" for m in messages)  # every WatchdogSec/2 = 1 s
    assert any(m.startswith("STATUS=Track 1 0 · Track 2 0 · deal") for m in messages)
    assert service.kill(signal.SIGTERM) == 0
    assert "STOPPING=1" in service.messages(0.5)
    assert not service.socket.exists()
    assert "mock pins" in service.stderr  # one line says there is no GPIO


def test_a_bad_config_file_is_reported_with_its_key(service: Service) -> None:
    service.config.write_text("[inputs]\ncommit_idel = 2\n")
    result = subprocess.run(
        [sys.executable, "-m", "boardctl", "run", "--config", str(service.config)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "GPIOZERO_PIN_FACTORY": "mock"},
        timeout=30,
    )
    assert result.returncode == 1
    assert f"boardctl: error: {service.config}: unknown key 'inputs.commit_idel'" in result.stderr


def test_sigterm_turns_the_leds_dark_and_tells_the_controller_so(service: Service) -> None:
    firmware = str(REPO / "firmware")
    sys.path.insert(0, firmware)
    try:
        from emulator import PtyDevice

        with PtyDevice(led_count=256) as device:
            service.use_link(f'[link]\nkind = "serial"\ndevice = "{device.path}"')
            service.start()
            service.press("track1.plus1")  # the cut
            service.press("menu")
            service.enter(2, 3)
            shown = bytes.fromhex(service.ask("frame")["rgb"])
            assert device.wait_for(shown, timeout=5.0)
            service.press("track2.plus5")  # pending when the stop comes: not kept
            assert service.kill(signal.SIGTERM) == 0
            assert device.wait_for(bytes(len(shown)), timeout=5.0)  # a clean stop: dark
            # GOODBYE follows the dark frame: no lost sign later
            assert device.wait_until(lambda: device.controller and device.controller.parted, 5.0)
    finally:
        sys.path.remove(firmware)
