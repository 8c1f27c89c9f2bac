"""Kill -9 trials of the journal: a child appends entries, the parent kills it at random moments.

Child side (``python tests/crash_child.py``): a small spawner that reads
``go SEED JOURNAL`` lines on stdin and forks one *worker* per line (the
modules are imported once, so a trial costs a fork, not a Python start-up).
The worker opens the journal with :class:`Scorekeeper`, prints
``open SEQ CRC``, then plays random entries and prints ``ack SEQ CRC`` after
every ``apply`` that returned (an acknowledged, durable commit). The spawner
reaps it and prints ``exit PID STATUS``.

Parent side (:class:`CrashHarness`, used by ``tests/test_journal_crash.py``
and ``benchmarks/crash_trials.py``): starts the spawner, and per trial lets
the worker run for a random number of acknowledgements plus a random
fraction of a commit, kills it with SIGKILL, then reopens the journal and
checks it holds exactly the acknowledged events, plus at most the one that
was in flight (the chained checksum of the last acknowledged event must
match, so every earlier event is identical too).
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# --- child side --------------------------------------------------------------


def _say(text: str) -> None:
    os.write(1, (text + "\n").encode())


def _worker(seed: int, journal: str) -> None:
    from boardctl.errors import EntryError
    from boardctl.game.keeper import Scorekeeper
    from tools.random_player import random_command

    rng = random.Random(seed)
    setup = {"variant": rng.choice(["six-card", "five-card", "three-player"])}
    keeper = Scorekeeper.open(journal, setup=setup)
    assert keeper.journal is not None
    _say(f"open {keeper.seq} {keeper.journal.last_crc} {os.getpid()}")
    while True:
        try:
            result = keeper.apply(random_command(keeper.state, rng, mistakes=0.02))
        except EntryError:
            continue
        _say(f"ack {result['seq']} {keeper.journal.last_crc}")


def spawner() -> int:
    """Fork a worker per ``go SEED JOURNAL`` line; report each worker's end."""
    import importlib

    for module in ("boardctl.game.keeper", "tools.random_player"):
        importlib.import_module(module)  # import once, before forking
    from boardctl.game.limits import DEFAULT_LIMITS

    for cards, crib in ((4, False), (4, True), (3, False)):  # derive the sets once, too
        DEFAULT_LIMITS.hand_scores(cards, crib=crib)
    DEFAULT_LIMITS.max_play_points()

    for line in sys.stdin:
        words = line.split()
        if not words or words[0] != "go":
            break
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                _worker(int(words[1]), words[2])
            except BaseException as exc:  # report, never fall back into the spawner loop
                _say(f"error {type(exc).__name__}: {exc}")
                code = 1
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        _say(f"exit {pid} {status}")
    return 0


# --- parent side -------------------------------------------------------------


@dataclass
class TrialStats:
    """What the trials saw."""

    trials: int = 0
    acked: int = 0
    in_flight_kept: int = 0  # kills that left the unacknowledged event committed
    reopen_ms: list[float] = field(default_factory=list)


class CrashHarness:
    """Runs kill -9 trials against one spawner process. Use as a context manager."""

    def __init__(self, folder: Path, *, seed: int = 0, fresh_every: int = 40) -> None:
        self.folder = folder
        self.rng = random.Random(seed)
        self.fresh_every = fresh_every
        self.stats = TrialStats()
        self.journal = folder / "crash-0.sqlite"
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd=str(ROOT),
        )
        self._buffer = b""

    def __enter__(self) -> CrashHarness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the spawner (it exits when its stdin closes)."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def _line(self, timeout: float = 20.0) -> str:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise AssertionError("the crash child went quiet")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError("the crash child exited")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        text = line.decode()
        if text.startswith("error"):
            raise AssertionError(f"crash worker failed: {text}")
        return text

    def trial(self) -> None:
        """One trial: run a worker, kill it at a random moment, reopen and check."""
        stats = self.stats
        if stats.trials and stats.trials % self.fresh_every == 0:
            self.journal = self.folder / f"crash-{stats.trials}.sqlite"
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"go {self.rng.randrange(1 << 30)} {self.journal}\n".encode())
        self.proc.stdin.flush()
        words = self._line().split()
        assert words[0] == "open", words
        acked_seq, acked_crc, pid = int(words[1]), int(words[2]), int(words[3])
        wanted = self.rng.choice((0, 0, 1, 1, 2, 3, 5, 8))
        got = 0
        while got < wanted:
            words = self._line().split()
            assert words[0] == "ack", words
            acked_seq, acked_crc = int(words[1]), int(words[2])
            got += 1
        time.sleep(self.rng.uniform(0, 0.0015))  # land anywhere inside a commit
        os.kill(pid, signal.SIGKILL)
        while True:
            words = self._line().split()
            if words[0] == "exit":
                assert int(words[1]) == pid
                break
            assert words[0] == "ack", words
            acked_seq, acked_crc = int(words[1]), int(words[2])
            got += 1
        stats.acked += got
        self._check(acked_seq, acked_crc)
        stats.trials += 1

    def _check(self, acked_seq: int, acked_crc: int) -> None:
        from boardctl.game.keeper import Scorekeeper

        start = time.perf_counter()
        with Scorekeeper.open(self.journal, readonly=True) as keeper:
            self.stats.reopen_ms.append((time.perf_counter() - start) * 1e3)
            assert keeper.journal is not None
            seq = keeper.seq
            assert seq in (acked_seq, acked_seq + 1), (
                f"journal has {seq} events after {acked_seq} acknowledged commits"
            )
            if seq == acked_seq:
                assert keeper.journal.last_crc == acked_crc, "acknowledged events differ"
            else:
                self.stats.in_flight_kept += 1
                crc = _crc_at(self.journal, acked_seq)
                assert crc == acked_crc, "acknowledged events differ"


def _crc_at(path: Path, seq: int) -> int:
    """The chained checksum of event ``seq`` of a journal."""
    from boardctl.store.journal import Journal

    with Journal.open(path, readonly=True) as journal:
        if seq == 0:
            return 0
        for record in journal.records():
            if record.seq == seq:
                return journal.last_crc
    raise AssertionError(f"event {seq} is missing")


if __name__ == "__main__":
    sys.exit(spawner())
