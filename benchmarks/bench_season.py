"""A 50,000-result league season: what ``boardctl standings`` costs, flat in the past events.

A real mosquitto on 127.0.0.1 is filled with retained signed results (the
bridges' own format: one real record from a journal, copied with other
players, ids and end times and signed again with each board's key) of
``--events`` past nights of ``--per-event`` results (50 x 1,000 = 50,000 by
default) and one night in play. Measured, each a fresh ``boardctl standings``
process (wall time and its peak RSS):

- ``--event TONIGHT`` with 0 past events retained, then with all of them: it
  fetches tonight's results only, so the two must match (flat);
- every event at once (what a director without ``--event`` and without
  closing any night would read: the old layout's cost);
- ``standings close`` of each past night (the archive written, the broker cleared);
- ``standings season`` over all the archives (50,000 results verified and ranked).

    PYTHONPATH=. python benchmarks/bench_season.py [--events 50] [--per-event 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
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
from boardctl.mqtt import topics  # noqa: E402
from boardctl.results.sign import sign_record  # noqa: E402
from boardctl.standings import keyring  # noqa: E402
from tests.bridge_results import finished_results  # noqa: E402
from tests.mqtt_broker import Broker  # noqa: E402

PLAYERS = [f"Player {n}" for n in range(60)]
BOARDS = 40


def template(folder: Path) -> dict[str, Any]:
    """One real result record of a journal (a game won 61-40)."""
    journal = folder / "journal.sqlite"
    setup: dict[str, JsonValue] = {"variant": "six-card", "mode": "free", "target": 61}
    with Scorekeeper.open(journal, setup=setup) as keeper:
        for track, points in ((1, 20), (1, 20), (0, 20), (0, 20), (0, 20), (0, 1)):
            keeper.apply(parse_command({"op": "peg", "track": track, "points": points}))
    (record,) = finished_results(journal, "t")
    return {k: v for k, v in record.items() if k not in ("key", "hmac")}


def record(base: dict[str, Any], night: str, n: int, keys: dict[str, bytes]) -> dict[str, Any]:
    board = f"room{n % 4}-t{n % BOARDS}"
    first, second = PLAYERS[n % 60], PLAYERS[(n * 7 + 1) % 60]
    if first == second:
        second = PLAYERS[(n + 1) % 60]
    names = [first, second] if n % 3 else [second, first]
    number = int(night.replace("-", "")) * 10_000 + n  # unique across nights
    body = {**base, "id": f"{n + 1}-{number:08x}", "board": board, "names": names}
    body |= {"winner_name": names[0], "end": f"{night}T20:{n % 60:02d}:00.000Z"}
    if "players" in body:
        body["players"] = [[names[0]], [names[1]]]
    return sign_record(body, keys[board])


def fill(
    port: int, nights: list[str], per: int, base: dict[str, Any], keys: dict[str, bytes]
) -> None:
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"fill-{os.getpid()}")
    client.max_inflight_messages_set(1000)
    client.connect("127.0.0.1", port)
    client.loop_start()
    infos = []
    for night in nights:
        for n in range(per):
            body = record(base, night, n, keys)
            topic = topics.result("boardctl", body["board"], topics.slot(night, body["id"]))
            infos.append(client.publish(topic, json.dumps(body), qos=1, retain=True))
    for info in infos:
        info.wait_for_publish(60)
    client.loop_stop()
    client.disconnect()


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) of the child, its output."""
    command = [sys.executable, "-c", PEAK, *args]
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    out, _, peak = done.stdout.rpartition("\nPEAK ")
    return wall, float(peak) / 1024, out


PEAK = (  # VmHWM: this process's own peak (ru_maxrss would keep the forking parent's)
    "import sys\n"
    "from boardctl.cli import main\n"
    "code = 0\n"
    "try:\n"
    "    code = main(sys.argv[1:])\n"
    "finally:\n"
    "    hwm = [x for x in open('/proc/self/status') if x.startswith('VmHWM:')]\n"
    "    print('\\nPEAK', hwm[0].split()[1])\n"
    "sys.exit(code)\n"
)


def median_run(args: list[str], env: dict[str, str], times: int = 3) -> tuple[float, float, str]:
    """The median wall time of ``times`` runs (a busy machine), the largest peak RSS."""
    runs = [run(args, env) for _ in range(times)]
    walls = sorted(r[0] for r in runs)
    return walls[len(walls) // 2], max(r[1] for r in runs), runs[0][2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--per-event", type=int, default=1000)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        broker = Broker(folder / "broker", persistence=False)
        broker.start()
        try:
            base = template(folder)
            keys = {f"room{n % 4}-t{n % BOARDS}": os.urandom(32) for n in range(BOARDS * 4)}
            ring = folder / "keys.json"
            for board, key in keys.items():
                keyring.add(ring, board, key)
            config = folder / "config.toml"
            config.write_text(f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
            env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_STATE_HOME": str(folder / "state")}
            common = ["standings", "--config", str(config), "--keyring", str(ring)]
            common += ["--archives", str(folder / "events"), "--timeout", "120"]
            tonight = "2027-03-01"
            fill(broker.port, [tonight], opts.per_event, base, keys)
            rows = []
            wall, peak, out = median_run([*common, "--json", "--event", tonight], env)
            rows.append(("--event tonight, 0 past events retained", wall, peak, out))
            nights = [f"2026-{1 + d // 28:02d}-{1 + d % 28:02d}" for d in range(opts.events)]
            start = time.perf_counter()
            fill(broker.port, nights, opts.per_event, base, keys)
            print(f"filled {len(nights) * opts.per_event} past results in "
                  f"{time.perf_counter() - start:.1f} s", flush=True)  # fmt: skip
            wall, peak, out = median_run([*common, "--json", "--event", tonight], env)
            rows.append((f"--event tonight, {len(nights) * opts.per_event} past retained",
                         wall, peak, out))  # fmt: skip
            wall, peak, out = run([*common, "--json"], env)
            rows.append(("every event retained (no --event, nothing closed)", wall, peak, out))
            start = time.perf_counter()
            for night in nights:
                subprocess.run(
                    [sys.executable, "-m", "boardctl", *common, "close", night],
                    env=env, capture_output=True, check=True,
                )  # fmt: skip
            close = (time.perf_counter() - start) / len(nights)
            wall, peak, out = median_run([*common, "--json"], env)
            rows.append(("every event retained, past nights closed", wall, peak, out))
            wall, peak, out = run([*common, "--json", "season", *nights], env)
            rows.append((f"season over {len(nights)} archives", wall, peak, out))
            load = os.getloadavg()
            print(f"machine: {os.cpu_count()} cores, load {load[0]:.1f} {load[1]:.1f}")
            print(f"standings close, per night of {opts.per_event}: {close:.2f} s")
            for what, wall, peak, out in rows:
                games = json.loads(out)["games"]
                print(f"{what:55s} {games:6d} games  {wall:6.2f} s  {peak:6.0f} MB peak RSS")
        finally:
            broker.close()


if __name__ == "__main__":
    main()
