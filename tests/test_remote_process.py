"""Linked games with the boards as systemd runs them: ``boardctl run`` processes, kill -9 and all.

Each board is a real ``boardctl run`` process on mock pins; each reaches a real mosquitto
through its own home's network, a :class:`tests.tcp_proxy.Proxy`. :func:`fault_trial` enters
counts on both boards (through their control sockets, with request ids made there, as
``boardctl peg`` does), injects one fault, enters more during it, heals it and checks that
every entry is journalled by the host exactly once, that the host's scores are the sums
entered, and that both boards show the same thing (the same LED frame, the same journal
position, no link-lost sign). ``benchmarks/bench_remote_faults.py`` runs it 200 times; the
tests here run each fault once, and a stream of entries through kill -9 of the host and the
broker.
"""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from boardctl.config import MqttConfig
from boardctl.errors import BoardError
from boardctl.remote import link_path, paired
from boardctl.remote.guest import GuestLink
from boardctl.remote.store import OUTBOX_FILE, Outbox
from boardctl.service.client import request
from tests.mqtt_broker import Broker, have_mosquitto
from tests.service_process import service_argv, service_env
from tests.tcp_proxy import Proxy

# The linked boards meet on a real mosquitto (.ci/run installs it): missing, the tests fail.
assert have_mosquitto(), "these tests need mosquitto (apt-get install mosquitto)"
pytestmark = pytest.mark.slow

SECRET = bytes(range(100, 112))
ENTRIES = 30
#: The faults of :func:`fault_trial`: the broker killed (SIGKILL) and started again; one home's
#: network reset, losing packets, or held without a reset (a partition); a board's service
#: killed (SIGKILL) and started again.
FAULTS = ("broker", "reset", "loss", "partition", "host", "joined")
FOUND_IN = 11.0  # seconds: a silent network is found by keep-alive (5 s, 1.5 x 5 s at the broker)


def wait_for(check: Callable[[], bool], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


class BoardProcess:
    """``boardctl run --display none`` on mock pins, one side (``role``) of the linked game."""

    def __init__(self, folder: Path, role: str, port: int, tracks: tuple[int, ...] = (1,)) -> None:
        self.socket = folder / "run" / "control.sock"
        self.journal = folder / "state" / "journal.sqlite"
        self.journal.parent.mkdir(parents=True)
        link = paired.Pairing(role, SECRET, tracks=tracks)
        paired.save(link_path(self.journal), link)
        self.config = folder / "config.toml"
        self.config.write_text(
            '[link]\nkind = "null"\n[game]\nmode = "free"\n'
            f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\nkeepalive = 5\n'
        )
        self.log = folder / "service.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = service_argv(self.config, self.journal, self.socket)
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(command, env=service_env(), stderr=log)
        wait_for(self.answers)

    def answers(self) -> bool:
        try:
            return bool(request(self.socket, {"op": "ping"}, timeout=1))
        except (BoardError, OSError):
            assert self.proc is not None and self.proc.poll() is None, self.log.read_text()
            return False

    def ask(self, message: dict[str, Any]) -> Any:
        return request(self.socket, message, timeout=10)

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

    def unanswered(self) -> int:
        """The joined board's entries its host has not answered (its outbox)."""
        with sqlite3.connect(self.journal.parent / OUTBOX_FILE) as db:
            return int(db.execute("SELECT count(*) FROM outbox WHERE answer IS NULL").fetchone()[0])


class LinkedProcesses:
    """A broker, and a hosting and a joined board's service, each behind its home's network."""

    def __init__(self, folder: Path) -> None:
        self.broker = Broker(folder / "broker")
        self.broker.start()
        self.network = {side: Proxy(("127.0.0.1", self.broker.port)) for side in ("host", "joined")}
        self.boards = {
            side: BoardProcess(folder / side, role, self.network[side].port)
            for side, role in (("host", "host"), ("joined", "guest"))
        }
        for board in self.boards.values():
            board.start()
        wait_for(self.agree)

    def agree(self) -> bool:
        """Both boards show the same: the same LED frame and journal position, no link lost."""
        host, joined = (self.boards[side] for side in ("host", "joined"))
        if joined.unanswered():
            return False
        shown = joined.ask({"op": "status"})
        if shown["remote"]["link_lost"] or shown["seq"] != host.ask({"op": "status"})["seq"]:
            return False
        return bool(host.ask({"op": "frame"}) == joined.ask({"op": "frame"}))

    def close(self) -> None:
        for board in self.boards.values():
            board.stop()
        for proxy in self.network.values():
            proxy.close()
        self.broker.kill()


def fault_trial(
    linked: LinkedProcesses, fault: str, rng: random.Random, *, outage: float = 1.0
) -> float:
    """One trial of ``fault`` (see the module); the seconds from the heal until both boards
    showed the same (for a service killed, from the command that starts it again)."""
    host = linked.boards["host"]
    host.ask({"op": "new_game"})
    wait_for(linked.agree)
    expected, made = [0, 0], []
    side = rng.choice(("host", "joined"))  # whose home's network fails
    network = linked.network[side]

    def enter(board: str) -> None:
        track, points, rid = int(board == "joined"), rng.randint(1, 4), uuid.uuid4().hex
        reply = linked.boards[board].ask(
            {"op": "peg", "track": track, "points": points, "request_id": rid}
        )
        assert reply.get("ok", True), reply
        expected[track] += points
        made.append(rid)

    for _ in range(rng.randint(1, 3)):
        enter(rng.choice(("host", "joined")))
    enter("joined")  # one in flight as the fault strikes
    if fault == "broker":
        linked.broker.kill()
    elif fault == "reset":
        network.cut()
    elif fault == "loss":
        network.loss = 0.3
    elif fault == "partition":
        network.partition()
    else:
        linked.boards[fault].kill()
    for _ in range(rng.randint(1, 3)):
        if fault != "joined":
            enter("joined")
        if fault != "host":  # the host plays on meanwhile
            enter("host")
    time.sleep(outage)
    if fault in ("broker", "reset", "host") or (fault == "partition" and outage > FOUND_IN):
        # the joined board cannot reach the host: it says so (a partition once keep-alive finds it)
        shown = linked.boards["joined"]
        wait_for(lambda: bool(shown.ask({"op": "status"})["remote"]["link_lost"]), FOUND_IN)
    healed = time.monotonic()
    if fault == "broker":
        linked.broker.start()
    elif fault == "reset":
        network.mend()
    elif fault == "loss":
        network.loss = 0.0
    elif fault == "partition":
        network.heal()
    else:
        linked.boards[fault].start()
    wait_for(linked.agree, seconds=180)
    took = time.monotonic() - healed
    journalled = host.journalled()
    counts = [journalled.count(rid) for rid in made]
    assert counts == [1] * len(made), f"{fault} ({side}'s network): journalled {counts}"
    fronts = [t["front"] for t in host.ask({"op": "status"})["tracks"]]
    assert fronts == expected, f"{fault}: the host shows {fronts}, entered {expected}"
    return took


@pytest.fixture
def linked(tmp_path: Path) -> Iterator[LinkedProcesses]:
    boards = LinkedProcesses(tmp_path)
    try:
        yield boards
    finally:
        boards.close()


def test_every_fault_loses_nothing_doubles_nothing_and_both_boards_agree_after_it(
    linked: LinkedProcesses,
) -> None:
    rng = random.Random(31)
    for fault in FAULTS:
        # a partition longer than the keep-alive finds (1.5 x 5 s at the broker)
        fault_trial(linked, fault, rng, outage=FOUND_IN + 1 if fault == "partition" else 1.0)


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
    host = BoardProcess(tmp_path / "host", "host", broker.port, tracks=(0, 1))
    host.start()
    mqtt = MqttConfig(host="127.0.0.1", port=broker.port, keepalive=5)
    guest = GuestLink(
        paired.Pairing("guest", SECRET), mqtt, Outbox(tmp_path / "guest" / OUTBOX_FILE)
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
        status = host.ask({"op": "status"})
        assert [t["front"] for t in status["tracks"]] == [ENTRIES // 2, ENTRIES // 2]
        answers = [guest.outbox.answer(rid) for rid in ids]
        assert all(answer is not None and answer["ok"] for answer in answers)
    finally:
        guest.close()
        host.stop()
