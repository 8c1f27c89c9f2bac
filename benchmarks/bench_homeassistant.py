"""A real Home Assistant in CI: what its install and start cost, and how fast it follows a board.

docs/mqtt.md quotes the figures:

1. **install**: ``.ci/homeassistant.sh`` warm (the cached virtualenv), and with ``--cold`` once
   more into an empty cache folder with an empty pip cache (every package downloaded and built);
2. **start to ready**, ``--starts`` times on a fresh config folder: from ``python -m
   homeassistant`` to its HTTP server answering, and to ``RUNNING`` (onboarded first, as the test);
3. on the last start, with the MQTT integration, a ``boardctl run`` service and its bridge: the
   control socket's reply to a ``peg`` (the entry is durable) → the track's sensor's change
   arriving over Home Assistant's websocket, and the bridge killed → the last of the six entities'
   changes to ``unavailable`` arriving (the broker sends the bridge's last will).

    PYTHONPATH=. python benchmarks/bench_homeassistant.py [--starts 3] [--cold]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.homeassistant import (  # noqa: E402
    INSTALL,
    SLOW,
    Changes,
    HomeAssistant,
    Session,
    following,
    install,
    start_bridge,
)
from tests.mqtt_broker import Broker  # noqa: E402
from tests.test_e2e_process import Service  # noqa: E402
from tests.test_homeassistant import ENTITIES, TRACKS, matches  # noqa: E402


def timed_install(env: dict[str, str]) -> float:
    started = time.monotonic()
    subprocess.run(["bash", str(INSTALL)], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - started


async def start(python: str, folder: Path, broker: Broker | None) -> dict[str, float]:
    """One fresh start; with a broker, also the peg and bridge-death latencies."""
    ha = HomeAssistant(python, folder / "homeassistant")
    ha.start()
    try:
        async with aiohttp.ClientSession() as http:
            session = await ha.onboard(http, SLOW)
            figures = {"http": ha.answered - ha.started}
            await session.wait_running(SLOW)
            figures["running"] = time.monotonic() - ha.started
            if broker is not None:
                figures |= await follow_board(session, folder, broker)
            return figures
    finally:
        ha.stop()


async def follow_board(session: Session, folder: Path, broker: Broker) -> dict[str, float]:
    (folder / "board").mkdir()
    board = Service(folder / "board")
    board.config.write_text(
        '[link]\nkind = "null"\n[game]\nmode = "free"\ntarget = 61\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\nboard_id = "Table 4"\n'
    )
    try:
        async with following(session) as changes:
            await session.add_mqtt(broker.port)
            await asyncio.to_thread(board.start)
            bridge = start_bridge(board, folder / "bridge.log")
            await changes.wait(lambda: matches(changes, dict.fromkeys(TRACKS, "0")), "up")

            def send() -> float:
                board.ask("peg", track=0, points=12)  # replies once the entry is durable
                return time.monotonic()

            pegged = await asyncio.to_thread(send)
            await changes.wait(lambda: matches(changes, {TRACKS[0]: "12"}), "peg")
            figures = {"peg": arrival(changes, {TRACKS[0]}, "12") - pegged}
            killed = time.monotonic()
            bridge.kill()
            bridge.wait(10)
            gone = dict.fromkeys(ENTITIES, "unavailable")
            await changes.wait(lambda: matches(changes, gone), "unavailable")
            figures["unavailable"] = arrival(changes, ENTITIES, "unavailable") - killed
            return figures
    finally:
        board.close()


def arrival(changes: Changes, entities: set[str], state: str) -> float:
    """When the last of ``entities`` took ``state`` (its newest change to it reached us)."""
    last = {
        c["entity_id"]: t
        for c, t in zip(changes.seen, changes.times, strict=True)
        if c["entity_id"] in entities and c["new_state"] and c["new_state"]["state"] == state
    }
    return max(last.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="also install into an empty cache")
    args = parser.parse_args()
    print(f"install, warm: {timed_install(dict(os.environ)):.2f} s")
    with tempfile.TemporaryDirectory() as scratch:
        if args.cold:
            env = {**os.environ, "PIP_CACHE_DIR": f"{scratch}/pip", "BOARDCTL_CI_CACHE": scratch}
            print(f"install, cold: {timed_install(env):.0f} s")
        python = install()
        runs = []
        for n in range(args.starts):
            folder = Path(scratch) / f"run{n}"
            broker = None
            if n == args.starts - 1:
                broker = Broker(folder / "broker")
                broker.start()
            try:
                runs.append(asyncio.run(start(python, folder, broker)))
            finally:
                if broker is not None:
                    broker.close()
            print(" ".join(f"{k} {v * 1000:.0f} ms" for k, v in runs[-1].items()))
    for key in ("http", "running"):
        values = [r[key] for r in runs]
        print(f"start → {key}: median {statistics.median(values):.1f} s, max {max(values):.1f} s")


if __name__ == "__main__":
    main()
