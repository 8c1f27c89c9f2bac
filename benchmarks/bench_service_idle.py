"""The idle service: CPU, memory and wake-ups over a minute; time to READY=1.

Starts ``boardctl run --display none`` as systemd would (mock pins, a notify
socket, WATCHDOG_USEC=30 s as in the unit), waits for READY=1, then samples
/proc for ``--seconds`` (default 60): CPU time (utime+stime), peak RSS, and
context switches of all the service's threads (each wake-up of a sleeping
thread is one voluntary switch).

    PYTHONPATH=. python benchmarks/bench_service_idle.py [--seconds 60] [--starts 5]
        [--link null|serial]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pi_class
from machine_load import as_installed

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.service_process import service_argv, service_env  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def rss_kb(pid: int, key: str = "VmRSS") -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def switches(pid: int) -> dict[str, tuple[int, int]]:
    """(voluntary, involuntary) context switches of each of the process's threads."""
    counts = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        fields = dict(line.split(":", 1) for line in (task / "status").read_text().splitlines())
        voluntary = int(fields["voluntary_ctxt_switches"])
        counts[task.name] = voluntary, int(fields["nonvoluntary_ctxt_switches"])
    return counts


def switched(
    before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]
) -> tuple[int, int]:
    """The switches between two counts, over the threads in both (one that ended meanwhile,
    a start-up task, takes its counts with it)."""
    both = before.keys() & after.keys()
    return (
        sum(after[t][0] - before[t][0] for t in both),
        sum(after[t][1] - before[t][1] for t in both),
    )


def start(tmp: Path, link: str, device: str | None) -> tuple[subprocess.Popen[bytes], float]:
    notify_path = tmp / "notify"
    if notify_path.exists():
        notify_path.unlink()
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(notify_path))
    notify.settimeout(30)
    config = tmp / "config.toml"
    text = f'[link]\nkind = "{link}"\n'
    if device:
        text += f'device = "{device}"\n'
    config.write_text(text)
    env = service_env(NOTIFY_SOCKET=str(notify_path), WATCHDOG_USEC="30000000")
    command = service_argv(config, tmp / "journal.sqlite", tmp / "control.sock")
    began = time.monotonic()
    proc = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    try:
        while b"READY=1" not in notify.recv(4096):
            pass
    finally:
        notify.close()
    return proc, time.monotonic() - began


def main() -> None:
    load = os.getloadavg()
    print(
        f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)"
    )
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--link", choices=("null", "serial"), default="null")
    pi_class.add_options(parser)
    args = parser.parse_args()
    code = pi_class.rerun(args)
    if code is not None:
        sys.exit(code)
    as_installed(REPO / "boardctl")  # the service runs from the tree
    device = None
    if args.link == "serial":
        sys.path.insert(0, str(REPO / "firmware"))
        from emulator import PtyDevice

        device = PtyDevice(led_count=256)
        device.plug()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        ready: list[float] = []
        for _ in range(args.starts):
            proc, seconds = start(tmp, args.link, device.path if device else None)
            ready.append(seconds)
            proc.terminate()
            proc.wait(10)
        print(
            f"READY=1 after start ({args.starts} starts, cold journal first): "
            f"median {statistics.median(ready):.2f} s, max {max(ready):.2f} s"
        )
        proc, _ = start(tmp, args.link, device.path if device else None)
        time.sleep(1.0)  # let start-up settle
        cpu0, switches0 = cpu_seconds(proc.pid), switches(proc.pid)
        t0 = time.monotonic()
        time.sleep(args.seconds)
        elapsed = time.monotonic() - t0
        cpu1, (voluntary, involuntary) = (
            cpu_seconds(proc.pid),
            switched(switches0, switches(proc.pid)),
        )
        rss, peak = rss_kb(proc.pid), rss_kb(proc.pid, "VmHWM")
        threads = len(list(Path(f"/proc/{proc.pid}/task").iterdir()))
        proc.terminate()
        code = proc.wait(10)
    if device is not None:
        device.close()
    cpu = cpu1 - cpu0
    print(f"idle {elapsed:.0f} s ({args.link} link, {threads} threads):")
    print(f"  CPU {cpu:.2f} s = {100 * cpu / elapsed:.2f} % of one core")
    print(f"  RSS {rss / 1024:.1f} MB (peak {peak / 1024:.1f} MB)")
    print(
        f"  wake-ups: {voluntary} voluntary + {involuntary} involuntary context switches "
        f"= {(voluntary + involuntary) / elapsed:.2f} per second"
    )
    print(f"  SIGTERM exit status {code}")


if __name__ == "__main__":
    main()
