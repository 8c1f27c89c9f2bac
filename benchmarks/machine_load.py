"""The machine a benchmark runs on and its load, printed with every figure (docs/performance.md)."""

from __future__ import annotations

import compileall
import contextlib
import os
import platform
from pathlib import Path


def machine() -> str:
    """The CPU model, the cores this process may use, and Python's version."""
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {len(os.sched_getaffinity(0))} cores, Python {platform.python_version()}"


def load() -> str:
    """The load average over 1, 5 and 15 minutes."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def report(when: str) -> None:
    """Print the machine and the load average ``when`` (before, after)."""
    print(f"machine: {machine()}; load average {when}: {load()}", flush=True)


def as_installed(package: Path) -> None:
    """Compile ``package``'s bytecode as pip does when it installs the board's wheel, so that
    a process started from the tree loads modules as an installed board does (a Python run
    with ``PYTHONDONTWRITEBYTECODE`` set never writes it, and compiles every module again at
    every start: about 50 ms of a verb here)."""
    compileall.compile_dir(package, quiet=1)


def main() -> int:
    """``python benchmarks/machine_load.py``: the machine and its load now."""
    report("now")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
