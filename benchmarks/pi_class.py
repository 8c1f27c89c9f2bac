"""A Pi-class CPU budget on this machine: one core and a CPU quota, calibrated.

A Raspberry Pi Zero 2 W's Cortex-A53 at 1 GHz runs CPython roughly 8-10x
slower than one core of a current x86 machine. :class:`PiClass` makes a
cgroup (v1 ``cpu`` controller, or v2 ``cpu.max``) whose CFS quota gives its
processes ``1/slowdown`` of one core's time, pins them to one core, and then
*calibrates*: it runs a fixed pure-Python workload (:data:`WORKLOAD`: integer
arithmetic, dicts, strings, JSON — what the service and the CLI do) once
freely and once inside the cgroup, and tightens or loosens the quota until
the measured ratio is within 5 % of the target.

The quota throttles in periods of ``slowdown`` ms (1 ms of CPU per period at
8x): a process that has used its 1 ms waits for the next period, so a single
short task can be delayed by up to one period on top of running 8x slower.
Worse, the kernel charges a running task at its tick (4 ms at ``CONFIG_HZ=250``):
a busy process can run up to a tick past the group's quota, and the group pays
that debt from the next periods, three or four of them at 8x, in which no
thread of the group runs, however high its priority. A slow CPU has no such
debt (a woken thread preempts a nice one at once), so a busy neighbour in the
same group makes the figures pessimistic by up to 32 ms. A Pi Zero 2 W has
four cores: :meth:`PiClass.twin` makes another core of the same Pi, a group of
its own, for a process that would run beside the service there.

Needs root and a writable cgroup file system (``/sys/fs/cgroup``).

    sudo python benchmarks/pi_class.py [--slowdown 8]    # calibrate and report
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
#: The core of :meth:`PiClass.twin` that ``rerun(second_core=True)`` makes (the group's own is 0).
SECOND_CORE = 1

#: A fixed CPU-bound workload, run with ``python -c`` (about 0.25 s on one free core here).
WORKLOAD = """
import json
total = 0
table = {}
for i in range(300_000):
    total += i * i % 7
    table[i % 1000] = str(i)
for _ in range(200):
    json.loads(json.dumps(table))
print(total)
"""


def _v1_cpu_dir() -> Path | None:
    for name in ("cpu", "cpu,cpuacct"):
        path = CGROUP_ROOT / name
        if (path / "cpu.cfs_quota_us").exists():
            return path
    return None


class PiClass:
    """A cgroup with a CPU quota of ``1/slowdown`` of one core (see the module docstring)."""

    def __init__(self, slowdown: float = 8.0, *, cpu: int = 0, name: str = "") -> None:
        self.slowdown = slowdown
        self.cpu = cpu
        self.name = name or f"boardctl-pi-class-{os.getpid()}"
        v1 = _v1_cpu_dir()
        if v1 is not None:
            self.path = v1 / self.name
            self.v2 = False
        elif (CGROUP_ROOT / "cgroup.controllers").exists():
            self.path = CGROUP_ROOT / self.name
            self.v2 = True
        else:
            raise SystemExit("no cgroup cpu controller at /sys/fs/cgroup (run as root on Linux)")
        self.path.mkdir()
        self.period_us = max(1000, round(1000 * slowdown))
        self.set_quota(self.period_us / slowdown)

    def set_quota(self, quota_us: float) -> None:
        """Give the group ``quota_us`` of CPU time per period (at least 1 ms)."""
        quota = max(1000, round(quota_us))
        self.quota_us = quota
        if self.v2:
            (self.path / "cpu.max").write_text(f"{quota} {self.period_us}\n")
        else:  # the quota must stay <= the period while either changes
            (self.path / "cpu.cfs_quota_us").write_text("-1\n")
            (self.path / "cpu.cfs_period_us").write_text(f"{self.period_us}\n")
            (self.path / "cpu.cfs_quota_us").write_text(f"{quota}\n")

    def join(self) -> None:
        """Move the calling process into the group and onto its core (a ``preexec_fn``)."""
        join_group(self.path, self.cpu)

    def twin(self, cpu: int) -> PiClass:
        """A second group with this one's quota and period, on core ``cpu`` (no calibration):
        another core of the same Pi."""
        other = PiClass(self.slowdown, cpu=cpu, name=f"{self.name}-core{cpu}")
        other.period_us = self.period_us
        other.set_quota(self.quota_us)
        return other

    def popen(self, argv: Sequence[str], **kwargs: object) -> subprocess.Popen[bytes]:
        """Start ``argv`` inside the group."""
        started: subprocess.Popen[bytes] = subprocess.Popen(  # type: ignore[call-overload]
            argv, preexec_fn=self.join, **kwargs
        )
        return started

    def run(self, argv: Sequence[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        """Run ``argv`` inside the group to its end."""
        done: subprocess.CompletedProcess[bytes] = subprocess.run(  # type: ignore[call-overload]
            argv, preexec_fn=self.join, check=True, **kwargs
        )
        return done

    def calibrate(self, *, repeats: int = 3) -> float:
        """Tune the quota until the workload runs ``slowdown`` times slower; return the ratio.
        A machine whose speed moves meanwhile may never settle: after six tries that is an
        error, not a figure at another slowdown."""
        free = workload_seconds(None, repeats)
        ratio = 0.0
        for _ in range(6):
            ratio = workload_seconds(self, repeats) / free
            if abs(ratio / self.slowdown - 1) <= 0.05:
                break
            quota = self.quota_us * ratio / self.slowdown
            while quota < 1000:  # the kernel's floor: lengthen the period instead
                self.period_us *= 2
                quota *= 2
            self.set_quota(quota)
        else:
            raise SystemExit(
                f"Pi-class: the quota did not settle within 5 % of {self.slowdown:g}x (last "
                f"{ratio:.2f}x, {free * 1000:.0f} ms free): the machine's speed moved; run again"
            )
        self.free_workload_s = free
        self.ratio = ratio
        return ratio

    def close(self) -> None:
        """Remove the group (its processes must have ended)."""
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except OSError:
                time.sleep(0.1)

    def __enter__(self) -> PiClass:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def join_group(path: Path, cpu: int) -> None:
    """Move the calling process into the group at ``path`` and onto core ``cpu``."""
    procs = "tasks" if (path / "tasks").exists() else "cgroup.procs"
    (path / procs).write_text(f"{os.getpid()}\n")
    os.sched_setaffinity(0, {cpu})


def workload_seconds(group: PiClass | None, repeats: int) -> float:
    """The median wall time of :data:`WORKLOAD` in a fresh interpreter, inside ``group`` or free."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        argv = [sys.executable, "-c", WORKLOAD]
        if group is None:
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        else:
            group.run(argv, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


@contextlib.contextmanager
def pi_class(slowdown: float = 8.0) -> Iterator[PiClass]:
    """A calibrated :class:`PiClass`, removed on exit."""
    group = PiClass(slowdown)
    try:
        group.calibrate()
        yield group
    finally:
        group.close()


def preexec(group: PiClass | None) -> Callable[[], None] | None:
    """``preexec_fn`` that puts a child into ``group`` (``None`` runs it free)."""
    return None if group is None else group.join


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--pi-class X`` and ``--burn N``, for a benchmark that :func:`rerun` runs again."""
    parser.add_argument(
        "--pi-class",
        type=float,
        metavar="X",
        default=0.0,
        help="run inside a calibrated cgroup that makes one core X times slower (root)",
    )
    parser.add_argument(
        "--burn",
        type=int,
        metavar="N",
        default=0,
        help="run N CPU-burning neighbour processes meanwhile (a busy machine)",
    )


def rerun(
    args: argparse.Namespace, extra: Sequence[str] = (), *, second_core: bool = False
) -> int | None:
    """Run this script again under ``--pi-class``/``--burn``; ``None`` when neither is asked.

    The script is started once more without those options (inside the group
    when ``--pi-class`` is set, beside ``--burn`` busy loops), and its exit
    status is returned for the caller to exit with. ``extra`` arguments are
    added to the second run (e.g. a file the first run prepared at full speed).
    With ``second_core``, a :meth:`PiClass.twin` on :data:`SECOND_CORE` is made too and its path
    passed as ``--second-core PATH``, for the script's child processes to
    :func:`join_group` (with :data:`SECOND_CORE`).
    """
    if not args.pi_class and not args.burn:
        return None
    argv = [sys.executable, *_without_options(sys.argv), *extra]
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.burn)
    ]
    try:
        if args.burn:
            print(f"with {args.burn} CPU-burning neighbour process(es) on {os.cpu_count()} cores")
        if not args.pi_class:
            return subprocess.run(argv).returncode
        with pi_class(args.pi_class) as group:
            print(
                f"Pi-class: one core, quota {group.quota_us} us per {group.period_us} us; "
                f"a fixed workload runs {group.ratio:.2f}x slower than on a free core "
                f"({group.free_workload_s * 1000:.0f} ms free)",
                flush=True,
            )
            if not second_core:
                return group.popen(argv).wait()
            with contextlib.closing(group.twin(SECOND_CORE)) as twin:
                return group.popen([*argv, "--second-core", str(twin.path)]).wait()
    finally:
        for proc in burners:
            proc.kill()
            proc.wait()


def _without_options(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--pi-class", "--burn"):
            skip = True
        elif not arg.startswith(("--pi-class=", "--burn=")):
            out.append(arg)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slowdown", type=float, default=8.0)
    args = parser.parse_args()
    with pi_class(args.slowdown) as group:
        print(
            f"workload free {group.free_workload_s * 1000:.0f} ms; in the group "
            f"{group.ratio:.2f}x slower (quota {group.quota_us} us per {group.period_us} us, "
            f"core {group.cpu})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
