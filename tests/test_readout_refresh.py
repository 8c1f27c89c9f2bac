"""The running service keeps the readout fresh (boardctl.service.readout_refresh).

A unit test of the timer on a real journal with a hand-driven clock, and the service
as a process killed with ``kill -9``: before the rewrite (a power cut between a commit
and the readout) the verb replays and gives the right answer; after it, the verb reads
the readout without the engine.
"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from boardctl.game import readout
from boardctl.game.commands import NewGame, Peg
from boardctl.game.keeper import Scorekeeper
from boardctl.service.readout_refresh import LONGEST, QUIET, ReadoutRefresh
from tests.test_cli_lean import heavy
from tests.test_cli_readout import ENGINE, down, run
from tests.test_e2e_process import Service


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def keeper(tmp_path: Path) -> Iterator[Scorekeeper]:
    with Scorekeeper.open(tmp_path / "j.sqlite", setup=NewGame(mode="free")) as k:
        yield k


def shown(keeper: Scorekeeper) -> dict[str, object] | None:
    """The status the readout shows for the keeper's journal (None: it would be replayed)."""
    assert keeper.path is not None
    got = readout.read(keeper.path)
    return None if got is None else got[0]


def test_written_at_once_when_opened_then_after_a_quiet_time(keeper: Scorekeeper) -> None:
    Path(readout.readout_path(keeper.path or "")).unlink(missing_ok=True)
    clock = Clock()
    refresh = ReadoutRefresh(lambda: keeper, clock)
    assert refresh.deadline() == clock.now  # just opened (replayed): at once
    refresh.tick(clock.now)
    assert shown(keeper) == keeper.status() and refresh.rewrites == 1
    assert refresh.deadline() is None  # up to date: no wake-up
    keeper.apply(Peg(track=0, points=5, kind="pegging"))
    assert shown(keeper) is None  # stale: a reader would replay
    assert refresh.deadline() == clock.now + QUIET
    clock.now += QUIET / 2
    refresh.tick(clock.now)
    assert shown(keeper) is None and refresh.rewrites == 1  # not yet
    clock.now += QUIET / 2
    refresh.tick(clock.now)
    assert shown(keeper) == keeper.status() and refresh.rewrites == 2


def test_a_burst_of_commits_is_one_rewrite_and_waits_no_longer_than_longest(
    keeper: Scorekeeper,
) -> None:
    clock = Clock()
    refresh = ReadoutRefresh(lambda: keeper, clock)
    refresh.tick(clock.now)
    first = clock.now
    writes = []
    while clock.now < first + 2 * LONGEST:  # an entry every QUIET/2: never quiet
        keeper.apply(Peg(track=1, points=1, kind="pegging"))
        refresh.deadline()  # the loop asks before it sleeps
        clock.now += QUIET / 2
        before = refresh.rewrites
        refresh.tick(clock.now)
        if refresh.rewrites > before:
            writes.append(clock.now - first)
    assert writes and writes[0] <= LONGEST + QUIET / 2
    assert len(writes) <= 2 * LONGEST / (LONGEST - QUIET)  # one per LONGEST, not per entry


def test_nothing_while_the_journal_cannot_be_opened(keeper: Scorekeeper) -> None:
    held: list[Scorekeeper | None] = [None]
    clock = Clock()
    refresh = ReadoutRefresh(lambda: held[0], clock)
    assert refresh.deadline() is None
    refresh.tick(clock.now)
    assert refresh.rewrites == 0
    held[0] = keeper  # it opened: written at once
    assert refresh.deadline() == clock.now


def test_a_readout_that_cannot_be_written_is_not_retried_in_a_loop(
    keeper: Scorekeeper, tmp_path: Path
) -> None:
    target = Path(readout.readout_path(keeper.path or ""))
    target.unlink(missing_ok=True)
    target.mkdir()  # a directory in its place: the rename fails
    clock = Clock()
    refresh = ReadoutRefresh(lambda: keeper, clock)
    refresh.tick(clock.now)
    assert refresh.rewrites == 0 and refresh.deadline() is None


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    s = Service(tmp_path)
    s.config.write_text('[link]\nkind = "null"\n[game]\nmode = "free"\n')
    try:
        yield s
    finally:
        s.close()


def _wait_fresh(journal: Path) -> None:
    """Until the readout names the journal's last event (QUIET s after it; 10 s at most)."""
    end = time.monotonic() + 10
    while readout.read(journal) is None:
        assert time.monotonic() < end, "the service did not rewrite the readout"
        time.sleep(0.05)


def _status(tmp_path: Path, journal: Path) -> tuple[dict[str, object], list[str]]:
    done, modules = run(*down(tmp_path, journal, "status", "--json"))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.rpartition("MODULES ")[0]), modules


def test_after_kill_9_status_reads_the_fresh_readout(service: Service, tmp_path: Path) -> None:
    service.start()
    service.ask("peg", track=0, points=7)
    _wait_fresh(service.journal)  # quiet: the service rewrites the readout
    wanted = service.ask("status")
    assert service.kill(signal.SIGKILL) == -signal.SIGKILL
    status, modules = _status(tmp_path, service.journal)
    assert heavy(modules, ENGINE) == []  # read from the readout, not replayed
    assert status["tracks"][0]["front"] == 7  # type: ignore[index]
    assert status["seq"] == wanted["seq"]


def test_a_kill_between_a_commit_and_its_rewrite_still_gives_the_right_answer(
    service: Service, tmp_path: Path
) -> None:
    service.start()
    service.ask("peg", track=0, points=7)
    _wait_fresh(service.journal)
    service.ask("peg", track=1, points=4)  # durable; its readout due QUIET s later
    assert service.kill(signal.SIGKILL) == -signal.SIGKILL  # as a power cut would
    status, modules = _status(tmp_path, service.journal)
    assert "boardctl.game.keeper" in modules  # the readout names an earlier event: replayed
    fronts = [t["front"] for t in status["tracks"]]  # type: ignore[attr-defined]
    assert fronts[:2] == [7, 4]
