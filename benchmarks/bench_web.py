"""The phone page: button edge -> page updated, page load, idle cost, 20 watchers.

The service runs in this process as ``boardctl run`` builds it (MockFactory
pins, the engine and its journal, the renderer, a null link that notes when
each frame is written); ``boardctl web`` runs as its own process on the
service's control socket, as under systemd; Playwright drives Debian's
headless ``chromium``. What is measured:

1. **edge -> page**: the clock starts at ``pin.drive_low()`` (or
   ``drive_high()`` for undo, which acts on release) and stops when the page's
   score text changes (a MutationObserver in the page notes
   ``performance.timeOrigin + performance.now()``; same machine, same clock).
   Each cycle is +1 (a pending amount appears), commit (the peg moves, a
   journal write) and undo (it moves back), with a random pause between
   presses. The page is fed by the service's ``watch`` stream: service ->
   ``boardctl web`` (a ``state`` line, then a ``frame`` request for the LEDs)
   -> server-sent events -> the page's DOM.
2. **page load -> first board drawn**: ``performance.mark("board-drawn")``,
   set by the page when the SVG board first has its LEDs, from navigation start.
3. **web process idle**: CPU and RSS of ``boardctl web`` over ``--idle`` s with
   no page open, and with one page open on a board nobody touches; and with
   ``results = "mqtt"`` following a real mosquitto (``--only results``).
4. **20 watchers**: edge -> frame on the link (the buttons' own latency, for
   the commit and undo presses, which always change the LEDs) with no page
   and with 20 event streams open on the web process (one watch serves them).
5. **records**: a second service in this process over a
   journal of ``--games`` demo games (as bench_results.py builds it): the
   control socket's ``records`` request from the first ask to the records
   ready (the service's reader thread folds the whole journal), again after a
   few new events (only those are folded), and edge -> frame of the buttons
   while the reader folds the whole journal, beside the same presses without;
   and the memory the reader keeps (tracemalloc).

    PYTHONPATH=. python benchmarks/bench_web.py [--presses 200] [--idle 30] [--loads 20]
        [--games 200] [--only page|load|idle|results|watchers|records]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from gpiozero import Device
from gpiozero.pins.mock import MockFactory

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench_service_latency import TimedLink  # noqa: E402

from boardctl.config import parse_config  # noqa: E402
from boardctl.link import open_link  # noqa: E402
from boardctl.service import app  # noqa: E402
from boardctl.service.loop import Call  # noqa: E402

CYCLE = ("+1", "commit", "undo")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
OBSERVE = """() => {
  window.__changes = [];
  const box = document.getElementById('tracks');
  new MutationObserver(() => window.__changes.push(performance.timeOrigin + performance.now()))
    .observe(box, {subtree: true, childList: true, characterData: true});
}"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def summary(values: list[float]) -> str:
    if not values:
        return "n=0 (none fell while it ran)"
    return (
        f"n={len(values)} p50={statistics.median(values):.1f} p99={percentile(values, 99):.1f} "
        f"max={max(values):.1f} ms"
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Bench:
    def __init__(self, tmp: Path, journal: Path | None = None) -> None:
        self.tmp = tmp
        self.factory = MockFactory()
        Device.pin_factory = self.factory
        self.config = parse_config(
            {"game": {"mode": "free"}, "inputs": {"debounce": 0.0005, "commit_idle": 60.0}}
        )
        self.link = TimedLink(open_link("null"))
        self.socket = tmp / "control.sock"
        self.board = app.build(
            self.config,
            journal=journal or tmp / "journal.sqlite",
            socket_path=self.socket,
            display="none",
            link=self.link,
            factory=self.factory,
            keyboard=False,
        )
        self.thread = threading.Thread(target=self.board.loop.run, daemon=True)
        self.thread.start()
        pins = self.config.pins
        self.pins = {
            "+1": self.factory.pin(pins.tracks[0].plus1),
            "commit": self.factory.pin(pins.tracks[0].encoder_push),
            "undo": self.factory.pin(pins.undo),
        }
        self.web: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start_web(self, broker_port: int = 0) -> None:
        """``boardctl web`` on the service's socket (with ``broker_port``: results from it)."""
        self.stop_web()
        port = free_port()
        web_config = self.tmp / "web.toml"
        main_config = self.tmp / "config.toml"
        results = '\nresults = "mqtt"' if broker_port else ""
        web_config.write_text(f"[web]\nport = {port}{results}\n")
        main_config.write_text(f'[mqtt]\nhost = "127.0.0.1"\nport = {broker_port or 1883}\n')
        command = [sys.executable, "-m", "boardctl", "web", "serve", "--web-config"]
        command += [str(web_config), "--socket", str(self.socket), "--state", str(self.tmp)]
        command += ["--config", str(main_config)]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.web = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                urllib.request.urlopen(self.url + "/", timeout=1).read()
                return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("boardctl web did not start")

    def stop_web(self) -> None:
        if self.web is not None:
            self.web.terminate()
            self.web.wait(10)
            self.web = None

    def settle(self) -> None:
        idle = threading.Event()
        self.board.loop.post(Call(idle.set))
        if not idle.wait(2):
            raise SystemExit("the loop did not come back")

    def press(self, which: str) -> tuple[float, float | None]:
        """One press; returns (edge epoch s, edge -> frame ms or None: no LED changed).

        A +1 pressed in the pending blink's "off" half changes no LED until the
        blink turns on; commit (the peg moves) and undo always change the LEDs.
        """
        pin = self.pins[which]
        self.settle()
        if which == "undo":  # undo acts on release (held long, it would redo)
            pin.drive_low()
            time.sleep(0.002)
            self.settle()
        self.link.shown.clear()
        epoch, start = time.time(), time.perf_counter()
        if which == "undo":
            pin.drive_high()
        else:
            pin.drive_low()
        shown = self.link.shown.wait(0.05 if which == "+1" else 2)
        frame_ms = (self.link.at - start) * 1000 if shown else None
        if which != "undo":
            time.sleep(0.002)
            pin.drive_high()
        if frame_ms is None and which != "+1":
            raise SystemExit(f"no frame after a {which} press")
        return epoch, frame_ms

    def close(self) -> None:
        self.stop_web()
        self.board.loop.stop()
        self.thread.join(5)
        self.board.close()


BOARD_DRAWN = "performance.getEntriesByName('board-drawn').length > 0"


def open_page(bench: Bench, browser: Any) -> Any:
    """A phone-sized page with the board drawn (the page's own mark, whatever its markup)."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, bypass_csp=True)
    page.goto(bench.url + "/")
    page.wait_for_function(BOARD_DRAWN)
    page.wait_for_function("document.querySelectorAll('.track').length > 0")
    return page


def edge_to_page(bench: Bench, browser: Any, presses: int) -> list[float]:
    bench.start_web()
    page = open_page(bench, browser)
    page.evaluate(OBSERVE)
    out = []
    for i in range(presses):
        seen = page.evaluate("window.__changes.length")
        epoch, _ = bench.press(CYCLE[i % 3])
        page.wait_for_function(f"window.__changes.length > {seen}", timeout=5000)
        changed = page.evaluate(f"window.__changes[{seen}]")
        out.append(changed - epoch * 1000)
        time.sleep(random.uniform(0.01, 0.06))
    page.close()
    return out


def page_load(bench: Bench, browser: Any, loads: int) -> list[float]:
    bench.start_web()
    out = []
    for _ in range(loads):
        page = browser.new_page(viewport={"width": 390, "height": 844}, bypass_csp=True)
        page.goto(bench.url + "/")
        page.wait_for_function(BOARD_DRAWN)
        out.append(page.evaluate("performance.getEntriesByName('board-drawn')[0].startTime"))
        page.close()
    return out


def cpu_rss(pid: int, seconds: float) -> tuple[float, float]:
    """CPU % of one core over ``seconds`` and RSS in MB at the end."""
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    before, start = cpu(), time.monotonic()
    time.sleep(seconds)
    used, elapsed = cpu() - before, time.monotonic() - start
    rss = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
    return 100 * used / elapsed, rss


WATCHERS = """
import selectors, socket, sys
host, count = sys.argv[1], int(sys.argv[2])
address, port = host.split(":")
selector = selectors.DefaultSelector()
for _ in range(count):
    s = socket.create_connection((address, int(port)))
    s.sendall(f"GET /events HTTP/1.1\\r\\nHost: {host}\\r\\n\\r\\n".encode())
    selector.register(s, selectors.EVENT_READ)
print("open", flush=True)
while True:
    for key, _ in selector.select():
        if not key.fileobj.recv(65536):
            sys.exit(0)
"""


def watchers(url: str, count: int) -> subprocess.Popen[str]:
    """``count`` open event streams, read by another process (as phones would)."""
    host = url.removeprefix("http://")
    command = [sys.executable, "-c", WATCHERS, host, str(count)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "open"
    return proc


def button_latency(bench: Bench, presses: int) -> list[float]:
    out = []
    for i in range(presses):
        _, frame_ms = bench.press(CYCLE[i % 3])
        if CYCLE[i % 3] != "+1":
            assert frame_ms is not None
            out.append(frame_ms)
        time.sleep(random.uniform(0.005, 0.05))
    return out


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--idle", type=float, default=30.0)
    parser.add_argument("--loads", type=int, default=20)
    parser.add_argument("--games", type=int, default=200, help="records: games in the journal")
    parser.add_argument("--only", choices=PARTS, help="run one part only")
    args = parser.parse_args()
    load = os.getloadavg()
    print(
        f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)"
    )
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        bench = Bench(Path(tmp))
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            for part in PARTS:
                if args.only in (None, part):
                    RUN[part](bench, browser, args)
        finally:
            browser.close()
            bench.close()
        load = os.getloadavg()
        print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def page_part(bench: Bench, browser: Any, args: argparse.Namespace) -> None:
    values = edge_to_page(bench, browser, args.presses)
    print(f"button edge -> page updated (watch stream): {summary(values)}")


def load_part(bench: Bench, browser: Any, args: argparse.Namespace) -> None:
    print(f"page load -> first board drawn: {summary(page_load(bench, browser, args.loads))}")


def idle_part(bench: Bench, browser: Any, args: argparse.Namespace) -> None:
    bench.start_web()
    assert bench.web is not None
    time.sleep(2)
    cpu, rss = cpu_rss(bench.web.pid, args.idle)
    print(f"web process, no page open, {args.idle:.0f} s: CPU {cpu:.2f} %, RSS {rss:.1f} MB")
    page = open_page(bench, browser)
    time.sleep(2)
    cpu, rss = cpu_rss(bench.web.pid, args.idle)
    print(f"web, one page open, board untouched: CPU {cpu:.2f} %, RSS {rss:.1f} MB")
    page.close()


def results_part(bench: Bench, browser: Any, args: argparse.Namespace) -> None:
    """Idle cost with ``results = "mqtt"``: paho and its thread, following a real mosquitto."""
    from tests.mqtt_broker import Broker

    broker = Broker(bench.tmp / "broker")
    broker.start()
    try:
        bench.start_web(broker.port)
        assert bench.web is not None
        time.sleep(2)
        cpu, rss = cpu_rss(bench.web.pid, args.idle)
        print(f"web with results from the broker, no page open: CPU {cpu:.2f} %, RSS {rss:.1f} MB")
    finally:
        bench.stop_web()
        broker.close()


def watcher_part(bench: Bench, browser: Any, args: argparse.Namespace) -> None:
    bench.start_web()
    alone = button_latency(bench, args.presses)
    phones = watchers(bench.url, 20)
    time.sleep(1)
    crowded = button_latency(bench, args.presses)
    phones.terminate()
    phones.wait(5)
    print(f"button edge -> frame, no page open: {summary(alone)}")
    print(f"button edge -> frame, 20 pages watching: {summary(crowded)}")


def ask(path: Path, message: dict[str, Any]) -> Any:
    """One control-socket request; its result."""
    import json

    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(path))
        s.sendall(json.dumps(message).encode() + b"\n")
        reply = json.loads(s.makefile("rb").readline())
    assert reply["ok"], reply
    return reply["result"]


def records_ready(bench: Bench, *, press: bool = False) -> tuple[float, list[float]]:
    """ms from the first ``records`` ask to the records ready (asked every 5 ms), and the
    edge -> frame ms of the commit and undo presses made meanwhile (``press``)."""
    start = time.perf_counter()
    latencies: list[float] = []
    presses = 0
    while not ask(bench.socket, {"op": "records"})["ready"]:
        if press and bench.board.loop.requests.records._answer is None:
            _, frame_ms = bench.press(CYCLE[presses % 3])
            if frame_ms is not None and CYCLE[presses % 3] != "+1":
                latencies.append(frame_ms)
            presses += 1
        time.sleep(0.005)
    return (time.perf_counter() - start) * 1000, latencies


def records_part(bench: Bench, browser: Any, args: argparse.Namespace) -> None:
    """The ``records`` request over a season's journal: whole, incremental, and the buttons."""
    from bench_results import season

    from boardctl.service.journal_reader import JournalRecords

    folder = bench.tmp / "records"
    folder.mkdir()
    events = season(folder / "journal.sqlite", args.games)
    board = Bench(folder, journal=folder / "journal.sqlite")
    ask(board.socket, {"op": "new_game", "mode": "free"})  # the presses peg (the last game is over)
    requests = board.board.loop.requests
    whole, again, during = [], [], []
    try:
        for _ in range(5):
            requests.records.close()
            requests.records = JournalRecords(folder / "journal.sqlite")  # a fresh reader
            requests.records.on_publish = requests.loop.wake
            whole.append(records_ready(board)[0])
            for which in CYCLE:
                board.press(which)
            again.append(records_ready(board)[0])
        for _ in range(max(1, args.presses // 20)):
            requests.records.close()
            requests.records = JournalRecords(folder / "journal.sqlite")
            requests.records.on_publish = requests.loop.wake
            during += records_ready(board, press=True)[1]
        alone = button_latency(board, max(len(during) * 3 // 2, 3))
        kept, peak = records_memory(board, folder / "journal.sqlite")
    finally:
        board.close()
    print(
        f"records over {args.games} games ({events} events), first ask -> ready: "
        f"median {statistics.median(whole):.0f} ms, fastest {min(whole):.0f} ms"
    )
    print(
        f"records after a +1, commit and undo (2 new events), ask -> ready: "
        f"median {statistics.median(again):.1f} ms, fastest {min(again):.1f} ms"
    )
    print(f"button edge -> frame while the reader folds the journal: {summary(during)}")
    print(f"button edge -> frame, the same service, no fold: {summary(alone)}")
    print(f"memory the reader keeps (its fold and the answer): {kept:.1f} MB, peak {peak:.1f} MB")


def records_memory(bench: Bench, journal: Path) -> tuple[float, float]:
    """MB the service keeps after a records request (tracemalloc), and the peak meanwhile."""
    import gc
    import tracemalloc

    from boardctl.service.journal_reader import JournalRecords

    requests = bench.board.loop.requests
    requests.records.close()
    gc.collect()
    tracemalloc.start()
    requests.records = JournalRecords(journal)
    requests.records.on_publish = requests.loop.wake
    records_ready(bench)
    gc.collect()
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return kept / 2**20, peak / 2**20


PARTS = ("page", "load", "idle", "results", "watchers", "records")
RUN = {
    "page": page_part,
    "load": load_part,
    "idle": idle_part,
    "results": results_part,
    "watchers": watcher_part,
    "records": records_part,
}


if __name__ == "__main__":
    main()
