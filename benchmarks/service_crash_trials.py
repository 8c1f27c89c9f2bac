"""Kill -9 trials of the running service with 1-4 concurrent clients sending pipelined bursts.

Run from the repository root::

    PYTHONPATH=. python benchmarks/service_crash_trials.py [--trials 200] [--seed 1]

Each trial starts ``boardctl run`` (free mode, no LEDs) on one journal, opens
1-4 client connections, and has each send bursts of 1-8 ``peg`` requests
written in one go (pipelined), every request with its own ``request_id``. At a
random moment the service is killed with SIGKILL. The service is started
again and every client sends *every* request again, answered or not, with
the same ids, as a client that cannot know must. Then the journal must hold

- every acknowledged request (lost: 0), and
- every request id at most once, with the score equal to the number of
  recorded entries (applied twice: 0).

Any violation stops the run with an assertion error.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.service_process import service_argv, service_env  # noqa: E402

CONFIG = '[link]\nkind = "null"\n[game]\nmode = "free"\n'


@dataclass
class Totals:
    trials: int = 0
    sent: int = 0
    acknowledged: int = 0
    recorded: int = 0
    lost: int = 0
    twice: int = 0
    clients: dict[int, int] = field(default_factory=dict)


class Service:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.journal = folder / "journal.sqlite"
        self.socket = folder / "control.sock"
        self.config = folder / "config.toml"
        self.config.write_text(CONFIG)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = service_argv(self.config, self.journal, self.socket)
        self.proc = subprocess.Popen(command, env=service_env(), stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                    probe.connect(str(self.socket))
                    probe.sendall(b'{"op":"ping"}\n')
                    if probe.recv(100):
                        return
            except OSError:
                time.sleep(0.01)
        raise AssertionError("the service did not come up")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(30)


def client(
    path: Path, ids: list[str], rng: random.Random, acked: set[str], lock: threading.Lock
) -> None:
    """Send ``ids`` as pipelined bursts; note each acknowledged one. Stops at the kill."""
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(str(path))
        reader = sock.makefile("rb")
        at = 0
        while at < len(ids):
            burst = ids[at : at + rng.randint(1, 8)]
            at += len(burst)
            lines = b"".join(
                json.dumps({"op": "peg", "track": 0, "points": 1, "request_id": i}).encode() + b"\n"
                for i in burst
            )
            sock.sendall(lines)
            for rid in burst:
                line = reader.readline()
                if not line:
                    return
                if json.loads(line).get("ok"):
                    with lock:
                        acked.add(rid)
    except OSError:
        return


def resend(path: Path, ids: list[str]) -> None:
    """After the restart: every request again, same ids, one at a time."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(path))
        reader = sock.makefile("rb")
        for rid in ids:
            sock.sendall(
                json.dumps({"op": "peg", "track": 0, "points": 1, "request_id": rid}).encode()
                + b"\n"
            )
            reply = json.loads(reader.readline())
            assert reply.get("ok"), reply


def trial(folder: Path, rng: random.Random, number: int, totals: Totals) -> None:
    service = Service(folder)
    service.start()
    clients = rng.randint(1, 4)
    totals.clients[clients] = totals.clients.get(clients, 0) + 1
    per_client = [[f"t{number}c{c}r{r}" for r in range(rng.randint(4, 30))] for c in range(clients)]
    acked: set[str] = set()
    lock = threading.Lock()
    threads = [
        threading.Thread(
            target=client, args=(service.socket, ids, random.Random(rng.random()), acked, lock)
        )
        for ids in per_client
    ]
    for thread in threads:
        thread.start()
    time.sleep(rng.uniform(0.02, 0.3))  # land anywhere in the bursts
    service.kill()
    for thread in threads:
        thread.join(10)
    service.start()
    every = [rid for ids in per_client for rid in ids]
    resend(service.socket, every)
    service.stop()
    db = sqlite3.connect(service.journal)
    rows = db.execute(
        "SELECT request FROM events WHERE request LIKE ?", (f"t{number}c%",)
    ).fetchall()
    total_rows = db.execute("SELECT count(*) FROM events").fetchone()[0]
    db.close()
    recorded = [r[0] for r in rows]
    twice = len(recorded) - len(set(recorded))
    lost = len(acked - set(recorded))
    totals.trials += 1
    totals.sent += len(every)
    totals.acknowledged += len(acked)
    totals.recorded += len(recorded)
    totals.lost += lost
    totals.twice += twice
    assert lost == 0, f"trial {number}: {lost} acknowledged entries lost"
    assert twice == 0, f"trial {number}: {twice} entries applied twice"
    assert sorted(set(recorded)) == sorted(every), (
        f"trial {number}: not every request recorded once"
    )
    from boardctl.game.keeper import Scorekeeper

    with Scorekeeper.open(service.journal, readonly=True) as keeper:
        assert keeper.status()["tracks"][0]["front"] == total_rows - 1  # all pegs, once each


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    totals = Totals()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="service-crash-") as tmp:
        for number in range(args.trials):
            folder = Path(tmp) / f"j{number}"  # a fresh journal: the game never reaches 121
            folder.mkdir()
            trial(folder, rng, number, totals)
            if (number + 1) % 50 == 0:
                print(f"  {number + 1} trials ...", flush=True)
    print(
        f"{totals.trials} kill -9 trials of the service in {time.perf_counter() - start:.0f} s "
        f"(clients per trial: {dict(sorted(totals.clients.items()))}): {totals.sent} requests, "
        f"{totals.acknowledged} acknowledged before the kill; after the restart and a resend of "
        f"every request with its id: acknowledged lost {totals.lost}, applied twice "
        f"{totals.twice}, {totals.recorded} recorded exactly once"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
