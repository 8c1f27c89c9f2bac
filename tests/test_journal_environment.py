"""Say what is wrong, and stay lit: read-only, full, forbidden or missing places for the journal.

Each is reported as exactly that, with the fix, never as "damaged ... move it
aside" (which would throw a healthy game away), and never as a traceback. A
service whose journal cannot be opened stays up with the fault sign, refuses
entries with the reason, and takes them again once the journal opens.
"""

from __future__ import annotations

import contextlib
import io
import os
import pickle
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.board import overlay
from boardctl.cli import main
from boardctl.errors import ControlError, JournalError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.notices import FAULT_KEY
from boardctl.service import client
from boardctl.service.loop import status_line
from boardctl.store import diagnose
from tests.test_e2e import FAST, free_rig

FREE = {"variant": "six-card", "mode": "free"}


@contextlib.contextmanager
def small_fs(where: Path, size: str = "1m") -> Iterator[Path]:
    """A real size-limited tmpfs at ``where`` (needs CAP_SYS_ADMIN: root in a container)."""
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(
            f"cannot mount a tmpfs here ({done.stderr.decode().strip()}); "
            "test_an_injected_enospc_is_reported_as_a_full_disk covers the message"
        )
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(folder: Path) -> None:
    with (folder / "filler").open("wb", buffering=0) as file, contextlib.suppress(OSError):
        while True:
            file.write(b"\0" * 65536)


def test_a_full_disk_is_reported_as_full_with_the_fix(tmp_path: Path) -> None:
    with small_fs(tmp_path / "fs") as fs:
        path = fs / "state" / "journal.sqlite"
        keeper = Scorekeeper.open(path, setup=FREE)
        fill(fs)
        with pytest.raises(JournalError) as caught:
            for _ in range(500):
                keeper.apply(parse_command({"op": "peg", "track": 0, "points": 1}))
        message = str(caught.value)
        assert "full" in message and "free some space" in message
        assert "damaged" not in message and "move it aside" not in message
        seq = keeper.seq
        keeper.close()
        (fs / "filler").unlink()  # space freed: the same journal goes on, nothing lost
        with Scorekeeper.open(path) as again:
            assert again.seq == seq


def test_a_read_only_file_system_is_reported_with_remount(tmp_path: Path) -> None:
    with small_fs(tmp_path / "fs") as fs:
        path = fs / "state" / "journal.sqlite"
        with Scorekeeper.open(path, setup=FREE) as keeper:
            keeper.apply(parse_command({"op": "peg", "track": 0, "points": 4}))
        subprocess.run(["mount", "-o", "remount,ro", str(fs)], check=True)
        with pytest.raises(JournalError) as caught:
            Scorekeeper.open(path)
        message = str(caught.value)
        assert "read-only" in message and "remount it read-write" in message
        assert "damaged" not in message
        with Scorekeeper.open(path, readonly=True) as reader:  # still readable
            assert reader.status()["tracks"][0]["front"] == 4


def test_an_injected_enospc_is_reported_as_a_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.statvfs

    def full(path: object) -> object:
        stats = real(path)  # type: ignore[arg-type]
        return SimpleNamespace(f_flag=stats.f_flag, f_bavail=0, f_frsize=stats.f_frsize)

    monkeypatch.setattr(os, "statvfs", full)  # the module diagnose calls it from
    problem = diagnose.environment_problem(tmp_path / "journal.sqlite", OSError(28, "full"))
    assert problem is not None and "is full" in problem and f"df -h {tmp_path}" in problem


def _open_as_nobody(path: Path) -> str:
    """Open ``path`` for writing in a child running as user nobody; its error message."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop to nobody, try, report, exit
        os.close(read)
        message = "opened"
        try:
            os.setgid(65534)
            os.setuid(65534)
            Scorekeeper.open(path).close()
        except BaseException as exc:  # report anything, even a traceback-worthy one
            message = f"{type(exc).__name__}: {exc}"
        os.write(write, pickle.dumps(message))
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    return str(pickle.loads(data))


def test_a_user_who_may_not_write_is_told_so_and_how(tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="boardctl-perm-", dir="/tmp"))  # others may enter /tmp
    os.chmod(base, 0o755)
    path = base / "state" / "journal.sqlite"
    Scorekeeper.open(path, setup=FREE).close()
    os.chmod(path.parent, 0o755)  # the service user's folder: others may read, not write
    if os.getuid() == 0:
        message = _open_as_nobody(path)
        owner = "root"
    else:
        os.chmod(path.parent, 0o555)
        try:
            with pytest.raises(JournalError) as caught:
                Scorekeeper.open(path)
        finally:
            os.chmod(path.parent, 0o755)
        message = f"JournalError: {caught.value}"
        owner = ""
    shutil.rmtree(base)
    assert message.startswith("JournalError: ") and "permission denied" in message
    assert "damaged" not in message and "move it aside" not in message
    if owner:
        assert f"sudo -u {owner} boardctl" in message


def test_a_file_where_the_state_folder_should_be_is_named_without_a_traceback(
    tmp_path: Path,
) -> None:
    (tmp_path / "state").write_text("not a folder")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(
            [
                "peg",
                "1",
                "2",
                "--journal",
                str(tmp_path / "state" / "journal.sqlite"),
                "--socket",
                str(tmp_path / "none.sock"),
            ]
        )
    assert code == 1
    assert "is a file, not a folder" in err.getvalue() and "Traceback" not in err.getvalue()


def test_the_service_stays_up_with_the_fault_sign_and_retries_until_the_journal_opens(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    (tmp_path / "state").write_text("in the way")  # the journal's folder cannot be made
    with free_rig(tmp_path, mock_factory, FAST) as rig:
        sock = rig.board.socket
        status = client.request(sock, {"op": "status"})
        assert "is a file, not a folder" in status[FAULT_KEY]
        assert status_line(status).startswith("JOURNAL FAULT, entries refused: ")
        frame = bytes.fromhex(client.request(sock, {"op": "frame"})["rgb"])
        start = rig.board.layout.led_of(0, 0)
        assert frame[3 * start : 3 * start + 3] == overlay.VERMILION
        assert frame.count(b"\0") >= len(frame) - 3 * 4  # dark but for the sign: no stale score
        with pytest.raises(ControlError, match="is a file, not a folder"):
            client.request(sock, {"op": "peg", "track": 0, "points": 3})
        (tmp_path / "state").unlink()  # fixed: the next retry opens the journal
        deadline = time.monotonic() + 10
        while FAULT_KEY in client.request(sock, {"op": "status"}):
            assert time.monotonic() < deadline, "the journal was not retried"
            time.sleep(0.05)
        result = client.request(sock, {"op": "peg", "track": 0, "points": 3})
        assert result["status"]["tracks"][0]["front"] == 3
        frame = bytes.fromhex(client.request(sock, {"op": "frame"})["rgb"])
        assert frame[3 * start : 3 * start + 3] != overlay.VERMILION
    with Scorekeeper.open(tmp_path / "state" / "journal.sqlite", readonly=True) as keeper:
        assert keeper.status()["tracks"][0]["front"] == 3
