"""The MQTT bridge under load, against a real mosquitto on 127.0.0.1.

Three measurements (docs/mqtt.md quotes them):

1. **latency**: a real ``boardctl run --display none`` service and its
   ``boardctl mqtt`` bridge; the winning entry is sent over the control
   socket (the service replies only once the entry is durable), and the
   time from that reply to the result's arrival at a subscriber is taken,
   over ``--games`` games. Also counted: state messages per button press.
2. **catch-up**: a journal of ``--results`` finished games and no
   acknowledgements (a bridge that was away all evening); the time from the
   bridge's start until every result is on the broker and acknowledged.
3. **many boards**: ``--boards`` simulated boards (paho clients in one
   process, real state payloads) each publish a retained state ``--rate``
   times a second for ``--seconds``, beside one real bridge following a board
   being played; reported: mosquitto's and the real bridge's CPU and RSS.

    PYTHONPATH=. python benchmarks/bench_mqtt.py [--games 20] [--results 500]
        [--boards 50] [--rate 1] [--seconds 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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

from boardctl.game import JsonValue  # noqa: E402
from boardctl.game.commands import parse_command  # noqa: E402
from boardctl.game.keeper import Scorekeeper  # noqa: E402
from boardctl.mqtt.acks import Acks  # noqa: E402
from boardctl.results.sign import KEY_FILE, write_key  # noqa: E402
from tests.mqtt_broker import Broker  # noqa: E402
from tests.test_e2e_process import Service  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
SETUP: dict[str, JsonValue] = {"variant": "six-card", "mode": "free", "target": 61}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid: int, key: str = "VmRSS") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


class Subscriber:
    """Arrival times of every message on ``pattern``."""

    def __init__(self, port: int, pattern: str) -> None:
        self.arrivals: list[tuple[float, str, bytes]] = []
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"sub{time.time_ns()}")
        self.client.on_message = lambda c, u, m: self.arrivals.append(
            (time.monotonic(), m.topic, bytes(m.payload))
        )
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(pattern, 1)
        self.client.loop_start()

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def bridge_command(service: Service, port: int, board: str) -> list[str]:
    config = service.tmp / "bridge.toml"
    config.write_text(f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\nboard_id = "{board}"\n')
    return [
        sys.executable,
        "-m",
        "boardctl",
        "mqtt",
        "--config",
        str(config),
        "--socket",
        str(service.socket),
        "--journal",
        str(service.journal),
    ]


def board_config(service: Service) -> None:
    service.config.write_text(
        f'[link]\nkind = "null"\n[game]\nmode = "free"\ntarget = {SETUP["target"]}\n'
    )


def play_to_win(service: Service, winner: int) -> float:
    """A game through the control socket; the monotonic time the winning entry was durable."""
    service.ask("peg", track=1 - winner, points=20)
    for points in (20, 20, 20):
        service.ask("peg", track=winner, points=points)
    service.ask("peg", track=winner, points=1)  # replies after the fsync
    return time.monotonic()


def latency(broker: Broker, tmp: Path, games: int) -> dict[str, Any]:
    (tmp / "lat").mkdir()
    service = Service(tmp / "lat")
    board_config(service)
    write_key(service.journal.parent / KEY_FILE)  # the bridge signs every result
    service.start()
    bridge = subprocess.Popen(bridge_command(service, broker.port, "lat"), env=_env())
    sub = Subscriber(broker.port, "boardctl/lat/#")
    try:
        deadline = time.monotonic() + 10
        while not any(t.endswith("/state") for _, t, _ in sub.arrivals):
            if time.monotonic() > deadline:
                raise SystemExit("the bridge published no state")
            time.sleep(0.05)
        delays = []
        for n in range(games):
            seen = len(sub.arrivals)
            durable = play_to_win(service, n % 2)
            end = time.monotonic() + 5
            while time.monotonic() < end:
                got = [a for a in sub.arrivals[seen:] if "/results/" in a[1] and a[2]]
                if got:
                    delays.append((got[0][0] - durable) * 1000)
                    break
                time.sleep(0.002)
            service.ask("next")
            time.sleep(0.3)
        # state messages per press: presses on a pending amount, then a commit
        time.sleep(0.5)
        before = len([a for a in sub.arrivals if a[1].endswith("/state")])
        for _ in range(10):
            service.press("track1.plus1")
            time.sleep(0.25)
        service.press("track1.encoder_push")
        time.sleep(0.5)
        states = [a for a in sub.arrivals if a[1].endswith("/state")]
        sizes = {
            "state": len(states[-1][2]),
            "result": max(len(a[2]) for a in sub.arrivals if "/results/" in a[1]),
        }
    finally:
        sub.close()
        bridge.terminate()
        bridge.wait(10)
        service.close()
    discovery = retained_sizes(broker.port, "homeassistant/#")
    return {
        "games": len(delays),
        "p50_ms": round(statistics.median(delays), 1),
        "max_ms": round(max(delays), 1),
        "state_messages_per_press": round((len(states) - before) / 11, 2),
        "bytes": {**sizes, "discovery_total": sum(discovery.values()), "discovery": len(discovery)},
    }


def retained_sizes(port: int, pattern: str) -> dict[str, int]:
    sub = Subscriber(port, pattern)
    time.sleep(1.0)
    sub.close()
    return {t: len(p) for _, t, p in sub.arrivals}


def catch_up(broker: Broker, tmp: Path, results: int) -> dict[str, Any]:
    folder = tmp / "catch"
    folder.mkdir()
    service = Service(folder)  # never started: the bridge reads the journal alone
    journal = service.journal
    made = time.monotonic()
    keeper = Scorekeeper.memory(SETUP)
    events = []
    at = time.time() - results * 60
    for n in range(results):
        for track, points in ((1 - n % 2, 20), (n % 2, 20), (n % 2, 20), (n % 2, 20), (n % 2, 1)):
            events.append({"op": "peg", "track": track, "points": points})
        events.append({"op": "next"})
    stored = [
        keeper.apply(parse_command(event))["event"] for event in events
    ]  # as the engine journals them
    with Scorekeeper.open(journal, setup=SETUP) as opened:
        assert opened.journal is not None
        opened.journal.append_all((e, at + i) for i, e in enumerate(stored))
    made = time.monotonic() - made
    write_key(journal.parent / KEY_FILE)  # the bridge signs every result
    acks = journal.parent / "mqtt-acks.json"
    sub = Subscriber(broker.port, "boardctl/catch/results/+/+")
    start = time.monotonic()
    bridge = subprocess.Popen(bridge_command(service, broker.port, "catch"), env=_env())
    try:
        while True:
            on_broker = {t for _, t, p in sub.arrivals if p}
            if len(on_broker) >= results and len(Acks(acks).digests) >= results:
                break
            if time.monotonic() - start > 60:
                break
            time.sleep(0.02)
        seconds = time.monotonic() - start
    finally:
        bridge.terminate()
        bridge.wait(10)
        sub.close()
        service.close()
    return {
        "results": len({t for _, t, p in sub.arrivals if p}),
        "acknowledged": len(Acks(acks).digests),
        "seconds": round(seconds, 2),
        "journal_built_s": round(made, 1),
    }


def many_boards(
    broker: Broker, tmp: Path, boards: int, rate: float, seconds: float
) -> dict[str, Any]:
    (tmp / "real").mkdir()
    service = Service(tmp / "real")
    board_config(service)
    service.start()
    bridge = subprocess.Popen(bridge_command(service, broker.port, "real"), env=_env())
    time.sleep(2)
    payload = json.dumps(service.ask("status")).encode()
    clients = []
    for n in range(boards - 1):
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"sim{n}")
        c.will_set(f"boardctl/sim{n}/availability", "offline", qos=1, retain=True)
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        clients.append(c)
    assert broker.proc is not None
    assert service.proc is not None
    pids = {"broker": broker.proc.pid, "bridge": bridge.pid, "service": service.proc.pid}
    cpu0 = {k: cpu_seconds(p) for k, p in pids.items()}
    peak = {k: 0.0 for k in pids}
    stop = threading.Event()

    def play() -> None:  # the real board: an entry every half second
        n = 0
        while not stop.is_set():
            try:
                if service.ask("status")["winner"] is not None:
                    service.ask("next")
                else:
                    service.ask("peg", track=n % 2, points=5)
            except Exception:
                pass
            n += 1
            stop.wait(0.5)

    player = threading.Thread(target=play)
    player.start()
    sent = 0
    start = time.monotonic()
    try:
        while (elapsed := time.monotonic() - start) < seconds:
            for n, c in enumerate(clients):
                c.publish(f"boardctl/sim{n}/state", payload, qos=0, retain=True)
                sent += 1
            for k, p in pids.items():
                peak[k] = max(peak[k], rss_mb(p))
            time.sleep(max(0.0, (sent / len(clients)) / rate - elapsed))
        elapsed = time.monotonic() - start
        cpu = {k: (cpu_seconds(p) - cpu0[k]) / elapsed * 100 for k, p in pids.items()}
    finally:
        stop.set()
        player.join()
        for c in clients:
            c.loop_stop()
            c.disconnect()
        bridge.terminate()
        bridge.wait(10)
        service.close()
    return {
        "boards": boards,
        "messages_per_s": round(sent / elapsed),
        "payload_bytes": len(payload),
        "broker_cpu_pct": round(cpu["broker"], 1),
        "broker_rss_mb": round(peak["broker"], 1),
        "bridge_cpu_pct": round(cpu["bridge"], 1),
        "bridge_rss_mb": round(peak["bridge"], 1),
        "service_cpu_pct": round(cpu["service"], 1),  # the board, answering the bridge too
    }


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "GPIOZERO_PIN_FACTORY": "mock"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--results", type=int, default=500)
    parser.add_argument("--boards", type=int, default=50)
    parser.add_argument("--rate", type=float, default=1.0, help="state messages per board per s")
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        broker = Broker(tmp / "broker")
        broker.start()
        try:
            report = {
                "latency": latency(broker, tmp, args.games),
                "catch_up": catch_up(broker, tmp, args.results),
                "many_boards": many_boards(broker, tmp, args.boards, args.rate, args.seconds),
            }
        finally:
            broker.close()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    import machine_load

    machine_load.report("before")
    main()
    machine_load.report("after")
