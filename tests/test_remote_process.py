"""A linked game with the host as systemd runs it: ``boardctl run`` killed with SIGKILL mid-stream.

The hosting board is a real ``boardctl run`` process on mock pins; the joined board's link
(:class:`boardctl.remote.guest.GuestLink`, with its outbox) sends a stream of entries. The host
is killed (SIGKILL) while entries are in flight, and so is the broker, then both start again:
every entry is journalled exactly once, in the order it was made.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from boardctl.config import MqttConfig
from boardctl.errors import BoardError
from boardctl.remote import pairing
from boardctl.remote.guest import GuestLink
from boardctl.remote.store import OUTBOX_FILE, Outbox
from boardctl.service.client import request
from tests.mqtt_broker import Broker, have_mosquitto

# The linked boards meet on a real mosquitto (.ci/run installs it): missing, the tests fail.
assert have_mosquitto(), "these tests need mosquitto (apt-get install mosquitto)"
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
SECRET = bytes(range(100, 112))
ENTRIES = 30


def wait_for(check: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


class HostProcess:
    """``boardctl run --display none`` on mock pins, hosting the linked game."""

    def __init__(self, folder: Path, port: int) -> None:
        self.socket = folder / "run" / "control.sock"
        self.journal = folder / "state" / "journal.sqlite"
        self.journal.parent.mkdir(parents=True)
        pairing.save(
            pairing.path_beside(self.journal), pairing.Pairing("host", SECRET, tracks=(0, 1))
        )
        self.config = folder / "config.toml"
        self.config.write_text(
            '[link]\nkind = "null"\n[game]\nmode = "free"\n'
            f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\nkeepalive = 5\n'
        )
        self.log = folder / "service.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {**os.environ, "GPIOZERO_PIN_FACTORY": "mock", "PYTHONPATH": str(REPO)}
        command = [sys.executable, "-m", "boardctl", "run", "--display", "none"]
        command += ["--config", str(self.config), "--journal", str(self.journal)]
        command += ["--socket", str(self.socket)]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(command, env=env, stderr=log)
        wait_for(self.answers)

    def answers(self) -> bool:
        try:
            return bool(request(self.socket, {"op": "ping"}, timeout=1))
        except (BoardError, OSError):
            assert self.proc is not None and self.proc.poll() is None, self.log.read_text()
            return False

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def journalled(self) -> list[str]:
        """The request ids of the journal's events, in the journal's order."""
        with sqlite3.connect(self.journal) as db:
            rows = db.execute("SELECT request FROM events WHERE request IS NOT NULL ORDER BY seq")
            return [str(row[0]) for row in rows]


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    server = Broker(tmp_path / "broker")
    server.start()
    try:
        yield server
    finally:
        server.kill()


def test_a_stream_of_entries_survives_kill_9_of_the_host_and_the_broker_without_loss_or_double(
    tmp_path: Path, broker: Broker
) -> None:
    host = HostProcess(tmp_path / "host", broker.port)
    host.start()
    mqtt = MqttConfig(host="127.0.0.1", port=broker.port, keepalive=5)
    guest = GuestLink(
        pairing.Pairing("guest", SECRET), mqtt, Outbox(tmp_path / "guest" / OUTBOX_FILE)
    )
    try:
        wait_for(lambda: guest.connected)
        ids = []
        for number in range(ENTRIES):
            ids.append(guest.submit({"op": "peg", "track": number % 2, "points": 1}))
            if number == ENTRIES // 3:
                wait_for(lambda: len(guest.outbox.pending()) < len(ids))  # some applied
                host.kill()  # mid-stream: entries sent, some applied, answers in flight
            if number == 2 * ENTRIES // 3:
                host.start()
                broker.kill()
                time.sleep(0.2)
                broker.start()
        wait_for(lambda: guest.outbox.pending() == [], seconds=120)
        assert host.journalled() == ids  # each once, in the order made
        status = request(host.socket, {"op": "status"})
        assert [t["front"] for t in status["tracks"]] == [ENTRIES // 2, ENTRIES // 2]
        answers = [guest.outbox.answer(rid) for rid in ids]
        assert all(answer is not None and answer["ok"] for answer in answers)
    finally:
        guest.close()
        host.stop()
