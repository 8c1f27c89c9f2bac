"""Every benchmark script still imports against the package as it is (CI runs none of them)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(p.stem for p in BENCHMARKS.glob("*.py"))


@pytest.mark.parametrize("name", SCRIPTS)
def test_the_benchmark_imports_and_has_a_main(name: str) -> None:
    check = f"import {name}; assert callable(getattr({name}, 'main', None)), 'no main()'"
    done = subprocess.run(
        [sys.executable, "-c", check], cwd=BENCHMARKS, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
