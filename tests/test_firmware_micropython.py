"""The firmware's code under a real MicroPython interpreter (WebAssembly build, via node)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import REPO

RUNNER = REPO / "tests" / "micropython" / "run.mjs"
PACKAGE = REPO / "tests/micropython/node_modules/@micropython/micropython-webassembly-pyscript"


def run_micropython(script: Path, *args: str) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node, "node is needed for the MicroPython tests (see .ci/run)"
    assert PACKAGE.is_dir(), "run: npm ci --prefix tests/micropython"
    return subprocess.run(
        [
            node,
            str(RUNNER),
            "--mount",
            f"{REPO / 'firmware'}=/fw",
            "--file",
            f"{REPO / 'boardctl/link/protocol.py'}=/fw/protocol.py",
            "--mount",
            f"{REPO / 'tests/micropython/fakes'}=/fakes",
            "--mount",
            f"{REPO / 'tests/data'}=/data",
            "--mount",
            f"{REPO / 'tests/micropython'}=/checks",
            str(script),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_firmware_checks_pass_under_micropython() -> None:
    result = run_micropython(REPO / "tests" / "micropython" / "check_firmware.py")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "micropython firmware checks passed:" in result.stdout
    count = int(result.stdout.rsplit(":", 1)[1])
    assert count > 300  # every vector and scenario ran


def test_the_runner_reports_a_failing_check(tmp_path: Path) -> None:
    script = tmp_path / "fails.py"
    script.write_text(
        "import sys, protocol\n"
        "assert sys.implementation.name == 'micropython'\n"
        "assert protocol.crc32(b'123456789') == 0xCBF43926\n"
        "assert 1 + 1 == 3, 'arithmetic'\n"
    )
    result = run_micropython(script)
    assert result.returncode == 1
    assert "AssertionError: arithmetic" in result.stderr


def test_the_runner_is_micropython(tmp_path: Path) -> None:
    script = tmp_path / "which.py"
    script.write_text("import sys\nprint(sys.implementation.name, sys.implementation.version)\n")
    result = run_micropython(script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("micropython (1, 27")
