"""The emulated-Pico rig's own parts: the carried image and boot ROM, the pinned emulator,
the flash image of the firmware's files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import littlefs
import pytest

from boardctl.link.firmware import firmware_files
from tests.rp2040.chip import FS_GEOMETRY, configured, flash_image, grb_to_rgb

RIG = Path(__file__).resolve().parent / "rp2040"


def test_the_carried_image_and_boot_rom_match_their_sha256() -> None:
    lines = (RIG / "image" / "SHA256SUMS").read_text().splitlines()
    sums = {name: digest for digest, name in (line.split("  ") for line in lines)}
    assert set(sums) == {"micropython-v1.28.0-RPI_PICO.bin", "bootrom-b1.mjs"}
    for name, digest in sums.items():
        assert hashlib.sha256((RIG / "image" / name).read_bytes()).hexdigest() == digest, name
    assert "638cd2020c50caf8c476a8240ed6c3a7bab0c67418aa00275f13a7d6574ef5a6" in sums.values()


def test_rp2040js_is_pinned_exactly() -> None:
    package = json.loads((RIG / "package.json").read_text())
    assert package["dependencies"] == {"rp2040js": "1.4.1"}
    lock = json.loads((RIG / "package-lock.json").read_text())
    assert lock["packages"]["node_modules/rp2040js"]["version"] == "1.4.1"


def test_the_flash_image_holds_the_firmware_files_with_config_overrides(tmp_path: Path) -> None:
    image = flash_image(tmp_path / "fs.img", {"WATCHDOG_MS": 1000, "LINK": "uart"})
    assert len(image.read_bytes()) == 352 * 4096
    fs = littlefs.LittleFS(**FS_GEOMETRY, mount=False)
    fs.context.buffer = bytearray(image.read_bytes())
    fs.mount()
    names = sorted(name for _source, name in firmware_files())
    assert sorted(fs.listdir("/")) == names
    with fs.open("protocol.py", "r") as fh:
        assert fh.read() == (RIG.parent.parent / "boardctl/link/protocol.py").read_text()
    with fs.open("config.py", "r") as fh:
        config = fh.read()
    assert "\nWATCHDOG_MS = 1000\n" in config and "\nLINK = 'uart'\n" in config


def test_config_overrides_name_existing_settings_only() -> None:
    assert configured("A = 1\nB = 2\n", {"B": 3}) == "A = 1\nB = 3\n"
    with pytest.raises(KeyError, match="no line C"):
        configured("A = 1\n", {"C": 3})


def test_grb_to_rgb() -> None:
    assert grb_to_rgb(b"\x02\x01\x03\x05\x04\x06") == b"\x01\x02\x03\x04\x05\x06"
