"""One writer per journal, with real processes: the restart race and a second service.

A CLI entry made while the service restarts (it has read the journal but not
yet opened its socket) must land once, be on the board, and leave every later
entry accepted; a second service on the same journal is refused, naming the
first.
"""

from __future__ import annotations

import contextlib
import io
import random
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from boardctl.cli import main
from tests.service_process import service_argv, service_env
from tests.test_e2e_process import Service

FREE = '[link]\nkind = "null"\n[game]\nmode = "free"\n[inputs]\ncommit_idle = 0.5\n'


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    s = Service(tmp_path)
    s.config.write_text(FREE)
    try:
        yield s
    finally:
        s.close()


def cli(service: Service, *args: str) -> tuple[int, str]:
    """A CLI verb run in this process (no interpreter start-up to miss the window)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main([*args, "--socket", str(service.socket), "--journal", str(service.journal)])
    return code, err.getvalue()


def test_cli_entries_during_restarts_all_count_and_the_buttons_keep_working(
    service: Service,
) -> None:
    rng = random.Random(11)
    service.start()
    restarts = 4
    results: list[tuple[int, str]] = []
    wal = Path(f"{service.journal}-wal")
    for _ in range(restarts):
        assert service.kill(signal.SIGTERM) == 0
        assert not wal.exists()  # a clean close folds the WAL into the database
        delay = rng.uniform(0.0, 0.05)

        def late_entry(wait: float = delay) -> None:
            # The moment the new service has opened the journal (its WAL appears), and
            # before it listens on its socket (about 0.2 s here, longer on a Pi).
            deadline = time.monotonic() + 30
            while not wal.exists() and time.monotonic() < deadline:
                time.sleep(0.001)
            time.sleep(wait)
            results.append(cli(service, "peg", "1", "1"))

        thread = threading.Thread(target=late_entry)
        thread.start()
        service.start()
        thread.join(60)
    assert [code for code, _ in results] == [0] * restarts, results
    # the race was really run: the service had the journal and no socket yet
    assert any("the service was starting" in err for _, err in results), results
    for _ in range(20):  # then 20 entries through the buttons: none refused
        service.press("track2.plus1")
        service.press("track2.encoder_push")
    status = service.ask("status")
    assert [t["front"] for t in status["tracks"]] == [restarts, 20]
    assert status["seq"] == 1 + restarts + 20
    service.kill(signal.SIGTERM)
    assert "written by another process" not in service.stderr


def test_a_second_service_on_the_same_journal_is_refused_naming_the_first(
    service: Service, tmp_path: Path
) -> None:
    service.start()
    assert service.proc is not None
    command = service_argv(service.config, service.journal, tmp_path / "other.sock")
    second = subprocess.run(command, env=service_env(), capture_output=True, text=True, timeout=60)
    assert second.returncode == 1
    assert f"in use by the boardctl service (pid {service.proc.pid})" in second.stderr
    assert "Traceback" not in second.stderr
    assert service.ask("ping")["pong"] is True  # the first one carries on
