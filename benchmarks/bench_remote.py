"""Two linked boards over a real mosquitto with a delayed network: press on one, light on the other.

Two whole boards (``app.build`` on mock pins, as tests/test_e2e.py's ``Rig``), the host
and the joined board of a linked game (docs/remote.md), each reaching a mosquitto on
127.0.0.1 through its own TCP proxy that holds every chunk ``--delay`` seconds each way
(tests/tcp_proxy.py): a message from one board to the other crosses two such delays.
Measured, ``--trials`` times each, from the button going down (a pin driven low; it is
released 20 ms later):

- **joined -> host**: the joined board's encoder push commits an entry (sent to the
  host, journalled there) -> the host's LEDs change;
- **host -> joined**: a +1 on the host (pending, not yet committed) -> the joined
  board's LEDs change (the host's board as it publishes it).

    PYTHONPATH=. python benchmarks/bench_remote.py [--trials 100] [--delay 0.05]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from boardctl.config import parse_config  # noqa: E402
from boardctl.link import RecordingLink  # noqa: E402
from boardctl.remote import link_path, paired  # noqa: E402
from boardctl.remote.joined import JoinedKeeper  # noqa: E402
from tests.mqtt_broker import Broker  # noqa: E402
from tests.tcp_proxy import Proxy  # noqa: E402
from tests.test_e2e import STEADY, Rig  # noqa: E402

SECRET = bytes(range(200, 212))


class Frames:
    """The times a board's loop sent a frame (its ``on_frame``)."""

    def __init__(self, rig: Rig) -> None:
        self.times: list[float] = []
        self._changed = threading.Condition()
        rig.loop.on_frame = self._sent

    def _sent(self, frame: bytes) -> None:
        with self._changed:
            self.times.append(time.perf_counter())
            self._changed.notify_all()

    def first_after(self, start: float, timeout: float = 10.0) -> float:
        with self._changed:
            found = self._changed.wait_for(
                lambda: any(t > start for t in self.times), timeout=timeout
            )
            if not found:
                raise RuntimeError("the other board did not light within 10 s")
            return next(t for t in self.times if t > start) - start

    def quiet(self, seconds: float = 0.3, timeout: float = 20.0) -> None:
        """Wait until no frame has been sent for ``seconds`` (no blink or flash running)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self._changed:
                last = self.times[-1] if self.times else 0.0
            if time.perf_counter() - last >= seconds:
                return
            time.sleep(0.05)
        raise RuntimeError("the board did not settle")


def press(rig: Rig, name: str) -> float:
    """Press ``name`` for 20 ms; the time it went down (a +1 counts there, a push on release)."""
    pin = rig.pin(name)
    pressed = time.perf_counter()
    pin.drive_low()
    time.sleep(0.02)
    pin.drive_high()
    return pressed


def wait(check: Any, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise RuntimeError("timed out")
        time.sleep(0.01)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--delay", type=float, default=0.05, help="seconds, each way, each board")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        broker = Broker(tmp / "broker", persistence=False)
        broker.start()
        proxies = {side: Proxy(("127.0.0.1", broker.port), args.delay) for side in ("h", "j")}
        rigs: dict[str, Rig] = {}
        try:
            for side, role in (("h", "host"), ("j", "guest")):
                where = link_path(tmp / side / "state" / "journal.sqlite")
                where.parent.mkdir(parents=True)
                paired.save(where, paired.Pairing(role, SECRET))
                mqtt = {"host": "127.0.0.1", "port": proxies[side].port, "keepalive": 30}
                config = parse_config({**STEADY, "game": {"mode": "free"}, "mqtt": mqtt})
                rigs[side] = Rig(tmp / side, MockFactory(), config, RecordingLink())
            host, joined = rigs["h"], rigs["j"]
            keeper = joined.loop.keeper
            assert isinstance(keeper, JoinedKeeper)
            wait(lambda: keeper.guest.reachable and keeper.guest.state is not None)
            host_frames, joined_frames = Frames(host), Frames(joined)
            to_host: list[float] = []
            to_joined: list[float] = []
            for _ in range(args.trials):
                host_frames.quiet()
                joined_frames.quiet()
                joined.press("track2.plus1")  # pending on the joined board only
                start = press(joined, "track2.encoder_push")
                to_host.append(host_frames.first_after(start))
                wait(lambda: keeper.guest.outbox.pending() == [])
                host_frames.quiet()
                joined_frames.quiet()
                start = press(host, "track1.plus1")
                to_joined.append(joined_frames.first_after(start))
                host.press("track1.encoder_push")
        finally:
            for rig in rigs.values():
                rig.close()
            for proxy in proxies.values():
                proxy.close()
            broker.kill()
    print(f"{args.trials} trials, {args.delay * 1000:.0f} ms each way between each board and the "
          "broker")  # fmt: skip
    for name, values in (("joined -> host", to_host), ("host -> joined", to_joined)):
        ms = [v * 1000 for v in values]
        print(
            f"{name}: p50 {statistics.median(ms):.0f} ms, p99 {percentile(ms, 0.99):.0f} ms, "
            f"max {max(ms):.0f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
