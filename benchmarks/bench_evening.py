"""A 200-board tournament evening on one mosquitto, the broker killed once.

The boards: each is its real journal (written through the real
:class:`~boardctl.game.keeper.Scorekeeper`, as the board service writes it
when a button is pressed) and its real bridge (:class:`boardctl.mqtt.bridge.Bridge`:
it reads the journal, signs, publishes, keeps its acknowledgements and
reconciles the broker on every connection). What the stand-in leaves out is
the board service process and its watch stream: the bridge reads results
from the journal, never from the stream (docs/mqtt.md), and a service's cost
is measured by bench_mqtt.py. 200 bridges are run as ``--workers`` processes
of 50 (each bridge is its own paho client and connection), so memory is
reported per worker process and per bridge.

Every round each board plays one game (names set, the loser's points, the
winner's, ``next``); every fifth game the win is undone and won again by the
other player (a withdrawal, then a new record). After the first round the
broker is killed (``kill -9``, no persistence: every retained message lost)
for ``--outage`` seconds and restarted. Reported: results lost and
duplicated (the broker's signed records against every journal's), the time
from the last game until ``boardctl standings``' collector and the standings
page's feed (:class:`boardctl.web.results.ResultsFeed`, ranked by the page's
own function) are exact, the reconnect burst (result messages a second seen
by a subscriber, the broker's CPU), and the memory of each process.

    PYTHONPATH=. python benchmarks/bench_evening.py [--boards 200] [--workers 4]
        [--games 3] [--outage 10]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from boardctl.config import MqttConfig  # noqa: E402
from boardctl.game import JsonValue  # noqa: E402
from boardctl.game.commands import parse_command  # noqa: E402
from boardctl.game.keeper import Scorekeeper  # noqa: E402
from boardctl.mqtt.bridge import Bridge, Paths  # noqa: E402
from boardctl.results.sign import write_key  # noqa: E402
from boardctl.standings import keyring  # noqa: E402
from boardctl.standings.collect import collect  # noqa: E402
from boardctl.standings.report import report  # noqa: E402
from boardctl.standings.verify import check  # noqa: E402
from tests.bridge_results import finished_results  # noqa: E402
from tests.mqtt_broker import Broker  # noqa: E402

SETUP: dict[str, JsonValue] = {"variant": "six-card", "mode": "free", "target": 61}
PLAYERS = [f"P{n:03d}" for n in range(400)]
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peg(keeper: Scorekeeper, track: int, points: int) -> None:
    for chunk in [18] * (points // 18) + ([points % 18] if points % 18 else []):  # counts
        keeper.apply(parse_command({"op": "peg", "track": track, "points": chunk}))


def play(keeper: Scorekeeper, board: int, round: int) -> None:
    """One game; every fifth one is won, undone and won by the other player."""
    names = [PLAYERS[(2 * board + round) % 400], PLAYERS[(2 * board + 3 * round + 1) % 400]]
    if names[0] == names[1]:
        names[1] = PLAYERS[(2 * board + 2) % 400]
    keeper.apply(parse_command({"op": "set", "key": "names", "value": names}))
    winner, loser = round % 2, 10 + (board * 7 + round * 11) % 45
    peg(keeper, 1 - winner, loser)
    peg(keeper, winner, 61)
    if (board + round) % 5 == 0:
        keeper.apply(parse_command({"op": "undo"}))
        peg(keeper, 1 - winner, 61 - loser)
    keeper.apply(parse_command({"op": "next"}))


def worker(folder: Path, first: int, count: int, port: int, games: int) -> None:
    """``count`` boards (journal and bridge); plays a round when told on stdin."""
    logging.basicConfig(level=logging.ERROR)  # "no service": the stand-in has none
    bridges = []
    keepers = []
    for n in range(first, first + count):
        home = folder / f"board{n:03d}"
        home.mkdir()
        write_key(home / "board.key")
        keepers.append(Scorekeeper.open(home / "journal.sqlite", setup=SETUP))
        config = MqttConfig(host="127.0.0.1", port=port, board_id=f"t{n:03d}", discovery=False)
        paths = Paths(home / "none.sock", home / "journal.sqlite", home / "mqtt-acks.json")
        bridge = Bridge(config, paths, f"t{n:03d}")
        threading.Thread(target=bridge.run, daemon=True).start()
        bridges.append(bridge)
    print("ready", flush=True)
    for round in range(games):
        sys.stdin.readline()
        for n, keeper in enumerate(keepers):
            play(keeper, first + n, round)
        print(f"played {round}", flush=True)
    sys.stdin.readline()
    print(f"rss {rss_mb(os.getpid()):.1f}", flush=True)
    sys.stdin.readline()
    for bridge in bridges:
        bridge.stop()
    for keeper in keepers:
        keeper.close()


class Counter:
    """A subscriber counting result messages by the second."""

    def __init__(self, port: int) -> None:
        self.times: list[float] = []
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"count-{os.getpid()}")
        self.client.on_message = lambda c, u, m: self.times.append(time.monotonic())
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe("boardctl/+/results/+/+", 1)
        self.client.reconnect_delay_set(1, 1)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()


def expected(folder: Path, boards: int) -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for n in range(boards):
        home = folder / f"board{n:03d}"
        key = bytes.fromhex((home / "board.key").read_text())
        for record in finished_results(home / "journal.sqlite", f"t{n:03d}", key):
            out[(f"t{n:03d}", record["id"])] = record
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--outage", type=float, default=10.0)
    parser.add_argument("--worker", nargs=4, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.worker:
        worker(Path(opts.folder), *opts.worker)
        return
    with tempfile.TemporaryDirectory() as tmp:
        evening(Path(tmp), opts)


def evening(folder: Path, opts: argparse.Namespace) -> None:  # noqa: C901
    from boardctl.web.page_config import StandingsOptions
    from boardctl.web.results import ResultsFeed, standings_document

    broker = Broker(folder / "broker", persistence=False)
    broker.start()
    config = MqttConfig(host="127.0.0.1", port=broker.port)
    per = opts.boards // opts.workers
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                __file__,
                "--folder",
                str(folder),
                "--worker",
                str(w * per),
                str(per),
                str(broker.port),
                str(opts.games),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for w in range(opts.workers)
    ]
    keys: dict[str, bytes] = {}
    feed = ResultsFeed(config, timeout=60)
    changed = threading.Event()
    try:
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        for n in range(opts.boards):
            keys[f"t{n:03d}"] = bytes.fromhex((folder / f"board{n:03d}/board.key").read_text())
        ring = folder / "board-keys.json"
        for board, key in keys.items():
            keyring.add(ring, board, key)
        options = StandingsOptions(keyring=str(ring))
        feed.start(changed.set)
        burst: dict[str, float] = {}
        last_game = 0.0
        for round in range(opts.games):
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
            for proc in procs:
                assert proc.stdout is not None and proc.stdout.readline().startswith("played")
            last_game = time.monotonic()
            print(f"round {round + 1}: {opts.boards} games played", flush=True)
            if round == 0:
                time.sleep(3)
                broker.kill()
                time.sleep(opts.outage)
                broker.start()
                assert broker.proc is not None
                restarted = time.monotonic()
                counter = Counter(broker.port)
                cpu0 = cpu_seconds(broker.proc.pid)
                want = len(expected(folder, opts.boards))
                while len(counter.times) < want and time.monotonic() - restarted < 120:
                    time.sleep(0.1)
                done = counter.times[-1] if counter.times else restarted
                burst = {
                    "results": len(counter.times),
                    "seconds": done - restarted,
                    "cpu": (cpu_seconds(broker.proc.pid) - cpu0) / max(done - restarted, 1e-3),
                    "rss": rss_mb(broker.proc.pid),
                }
                counter.client.loop_stop()
                counter.client.disconnect()
        truth = expected(folder, opts.boards)
        truth_games = check(
            [((b, f"x/{i}"), json.dumps(r).encode()) for (b, i), r in truth.items()], keys
        ).verified
        truth_doc = report(truth_games).to_dict()

        def standings_exact() -> tuple[bool, int, int]:
            held = collect(config, timeout=60)
            checked = check(held.items(), keys)
            got = {(g.board, g.id) for g in checked.verified}
            records = {(r["board"], r["id"]): r for r in checked.records}
            lost = len(set(truth) - got)
            return records == truth and not checked.failed, lost, len(held) - len(got)

        exact, lost, dup = standings_exact()
        while not exact and time.monotonic() - last_game < 60:
            time.sleep(0.2)
            exact, lost, dup = standings_exact()
        standings_at = time.monotonic() - last_game
        page_at = None
        while time.monotonic() - last_game < 60:
            document = standings_document(feed.results, options)
            if document.get("standings") == truth_doc["standings"]:
                page_at = time.monotonic() - last_game
                break
            changed.wait(0.2)
            changed.clear()
        rss = []
        for proc in procs:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write("rss\n")
            proc.stdin.flush()
            rss.append(float(proc.stdout.readline().split()[1]))
        assert broker.proc is not None
        load = os.getloadavg()
        print(f"machine: {os.cpu_count()} cores, load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
        print(
            f"results: {len(truth)} in the journals; lost {lost}, duplicated {dup}, exact: {exact}"
        )
        print(
            f"standings (collector) exact {standings_at:.1f} s after the last game; "
            f"the page's standings {'never' if page_at is None else f'{page_at:.1f} s'}"
        )
        print(
            f"reconnect burst: {burst['results']:.0f} results republished in "
            f"{burst['seconds']:.1f} s ({burst['results'] / max(burst['seconds'], 1e-3):.0f}/s); "
            f"mosquitto {100 * burst['cpu']:.0f} % of a core, {burst['rss']:.0f} MB RSS"
        )
        print(
            f"memory: workers {', '.join(f'{r:.0f}' for r in rss)} MB RSS "
            f"({sum(rss) / opts.boards:.1f} MB a bridge); mosquitto "
            f"{rss_mb(broker.proc.pid):.0f} MB; this process {rss_mb(os.getpid()):.0f} MB"
        )
    finally:
        for proc in procs:
            if proc.stdin is not None:
                try:
                    proc.stdin.write("stop\n")
                    proc.stdin.close()
                except OSError:
                    pass
        for proc in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        broker.close()


if __name__ == "__main__":
    main()
