"""What pip and PyPI see: the sdist holds the board's folders beside the package, a wheel
built from the sdist alone carries the firmware, and the metadata names its authors, its
classifiers, where the project lives, and bounds past known-bad releases."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from email.parser import Parser
from pathlib import Path

from packaging.requirements import Requirement

from tests.conftest import REPO

PIP_WHEEL = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]


def test_the_sdist_holds_the_board_folders_and_builds_a_wheel_with_the_firmware(
    tmp_path: Path,
) -> None:
    build = "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))"
    name = subprocess.run(
        [sys.executable, "-c", build, str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout.split()[-1]
    sdist = tmp_path / name
    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    for folder in ("firmware", "systemd", "hardware", "docs"):
        tracked = subprocess.run(
            ["git", "ls-files", folder], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.split()
        assert tracked and set(tracked) <= members, folder  # every file of it
    assert "setup.py" in members and "firmware/package.json" in members
    assert not any("__pycache__" in m for m in members)
    # A wheel from the sdist alone (no checkout) still carries the firmware's files.
    subprocess.run(
        [*PIP_WHEEL, "-w", str(tmp_path / "dist"), str(sdist)],
        cwd=tmp_path,
        capture_output=True,
        check=True,
        timeout=300,
    )
    (wheel,) = (tmp_path / "dist").glob("boardctl-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "boardctl/firmware/main.py" in names and "boardctl/firmware/package.json" in names
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(zf.read(meta_name).decode())
    assert metadata["Author"] == "The boardctl authors"
    assert "Topic :: Games/Entertainment :: Board Games" in metadata.get_all("Classifier", [])
    service = (REPO / "systemd" / "boardctl.service").read_text()
    urls: dict[str, str] = {}
    for line in metadata.get_all("Project-URL", []):
        label, _, url = str(line).partition(", ")
        urls[label] = url
    assert f"Documentation={urls['Documentation']}" in service
    assert urls["Source"] == "https://github.com/boardctl/boardctl"
    requires = [Requirement(r) for r in metadata.get_all("Requires-Dist", [])]
    bounded = {r.name.lower(): r.specifier for r in requires}
    assert not bounded["gpiozero"].contains("2.0.1")  # no GPIO on a Pi 5
    assert not bounded["aiohttp"].contains("3.10.10")  # request smuggling (CVE-2024-52304)
    assert not bounded["paho-mqtt"].contains("3.0.0")  # the next major release's API
