"""``boardctl firmware install`` as a board runs it: from a fresh virtualenv holding the
built wheel (no checkout in sight), through real mpremote, onto the emulated Pico's USB
port (tests/rp2040/; the rig's flash takes writes, so the copies persist across the reset),
then the chip boots and runs the files it was given."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from boardctl.link import protocol as p
from boardctl.link.firmware import firmware_files
from tests.conftest import REPO
from tests.rp2040.chip import Chip, Host, PtyPort

# The runtime dependencies the installed command uses, lent to the fresh venv by one .pth
# (their package folders only: boardctl itself comes from the wheel alone).
LENT = ("serial", "mpremote", "platformdirs", "gpiozero", "colorzero")
PIP = [sys.executable, "-m", "pip"]
# The chip's files (tests/test_firmware_install.py pins the list) but the protocol, which
# is boardctl/link/'s own.
CHIP_FILES = {name for _source, name in firmware_files()} - {"protocol.py"}


def build_wheel(out: Path) -> Path:
    subprocess.run(
        [*PIP, "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(out), str(REPO)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = out.glob("boardctl-*.whl")
    return wheel


def fresh_venv(folder: Path, wheel: Path) -> Path:
    """A venv with the wheel installed and the dependencies lent; its bin/ folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    subprocess.run(
        [*PIP, "--python", str(python), "install", "-q", "--no-index", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    lent = folder / "lent"
    lent.mkdir()
    for name in LENT:
        module = importlib.import_module(name)
        assert module.__file__ is not None
        (lent / name).symlink_to(Path(module.__file__).parent)
    (site,) = folder.glob("lib/python3*/site-packages")
    (site / "lent.pth").write_text(f"{lent}\n")
    mpremote = folder / "bin" / "mpremote"  # what pip would make of mpremote's entry point
    mpremote.write_text(f"#!{python}\nfrom mpremote.main import main\nmain()\n")
    mpremote.chmod(0o755)
    return folder / "bin"


def test_the_wheel_carries_the_firmware_files_as_firmware_holds_them(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    carried = {n.removeprefix("boardctl/firmware/") for n in names if "/firmware/" in n}
    assert carried == CHIP_FILES | {"package.json"}  # protocol.py is boardctl/link/'s own
    for name in CHIP_FILES:
        with zipfile.ZipFile(wheel).open(f"boardctl/firmware/{name}") as fh:
            assert fh.read() == (REPO / "firmware" / name).read_bytes(), name
    assert "boardctl/link/protocol.py" in names
    assert not (REPO / "boardctl" / "firmware").exists()  # no committed copy


@pytest.mark.rp2040
@pytest.mark.slow
def test_the_installed_command_flashes_the_wheels_firmware_onto_the_pico(
    tmp_path: Path,
) -> None:
    bin_dir = fresh_venv(tmp_path / "venv", build_wheel(tmp_path / "dist"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}/usr/bin:/bin"
    where = subprocess.run(
        [
            str(bin_dir / "python"),
            "-c",
            "import boardctl.link.firmware as f; print(f.default_dir())",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    ).stdout.strip()
    assert where.startswith(str(tmp_path / "venv")), where  # the wheel's files, no checkout

    port = PtyPort(tmp_path / "ttyACM0")
    # The chip starts with other files: a 64-LED RGB strip's config.py.
    old = {"LED_COUNT": 64, "COLOR_ORDER": "RGB", "WATCHDOG_MS": 2000}
    chip = Chip(tmp_path, config=old, on_output=port.write, on_usb=port.usb_event, real_time=True)
    with chip:
        port.attach(chip)
        try:
            hello = chip.message(p.HELLO, emu_s=6)
            assert p.parse_hello(hello.payload)[2:] == (64, "RGB")
            mark = len(chip.messages)
            resets = len(chip.resets)
            result = subprocess.run(
                [str(bin_dir / "boardctl"), "firmware", "install", "--port", str(port.path)],
                capture_output=True,
                text=True,
                env=env,
                cwd=tmp_path,
                timeout=600,
            )
            assert result.returncode == 0, result.stdout + result.stderr
            assert "firmware installed" in result.stdout
            assert chip.wait(lambda: len(chip.resets) > resets, emu_s=5)  # mpremote's reset
            # The new files run: the wheel's config.py (256 LEDs, GRB) says HELLO.
            hello = chip.message(p.HELLO, after=mark, emu_s=8)
            assert p.parse_hello(hello.payload)[2:] == (256, "GRB")
            host = Host(chip)
            host.hello()
            rgb = bytes(range(3, 9)) * 128  # 256 LEDs, well within the power budget
            frames = len(chip.frames)
            host.send(p.FULL, rgb)
            chip.frame_showing(rgb, emu_s=3, after=frames)  # and drives the strip
        finally:
            port.close()
