"""The LED controller's files, as ``firmware/package.json`` names them.

That file is the one list of what goes on the Pico: ``mpremote mip install`` reads it
(the protocol module by reference, ``../boardctl/link/protocol.py``: no copy is kept in
``firmware/``), so do ``boardctl firmware install`` and the emulated-Pico test rig.
"""

from __future__ import annotations

import json
from pathlib import Path

from boardctl.errors import ConfigError

# The checkout's firmware folder (boardctl installed from a clone of the repository).
FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"
ENTRY_POINT = "main.py"  # copied last: once it is on the Pico, the controller starts at power-up


def firmware_files(firmware_dir: Path | None = None) -> list[tuple[Path, str]]:
    """``(source file, name on the Pico)`` of every firmware file, ``main.py`` last."""
    folder = FIRMWARE_DIR if firmware_dir is None else firmware_dir
    package = folder / "package.json"
    try:
        urls = json.loads(package.read_text())["urls"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"{package}: not a firmware folder with a package.json ({exc}); "
            "pass the firmware/ folder of a boardctl checkout"
        ) from None
    files = [((folder / url).resolve(), str(name)) for name, url in urls]
    missing = [str(source) for source, _name in files if not source.is_file()]
    if missing:
        raise ConfigError(f"{package} names files that are not there: {', '.join(missing)}")
    files.sort(key=lambda item: item[1] == ENTRY_POINT)
    return files
