"""The LED controller's files, as ``firmware/package.json`` names them.

That file is the one list of what goes on the Pico: ``mpremote mip install`` reads it
(the protocol module by reference, ``../boardctl/link/protocol.py``: no copy is kept in
``firmware/``), so do ``boardctl firmware install`` and the emulated-Pico test rig.

An installed boardctl (a wheel) carries them as ``boardctl/firmware/``, copied from
``firmware/`` when the wheel is built (setup.py); a checkout (an editable install) reads
``firmware/`` itself. A URL under ``../boardctl/`` is a module of this package.
"""

from __future__ import annotations

import json
from pathlib import Path

from boardctl.errors import ConfigError

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # boardctl/
PACKAGE_URL = "../boardctl/"  # how package.json names a module of this package
# The wheel's copy (setup.py), else the checkout's folder (an editable install).
INSTALLED_DIR = PACKAGE_DIR / "firmware"
CHECKOUT_DIR = PACKAGE_DIR.parent / "firmware"


def default_dir() -> Path:
    """Where the firmware's files are: the installed package's, else the checkout's."""
    return INSTALLED_DIR if (INSTALLED_DIR / "package.json").is_file() else CHECKOUT_DIR


def source_of(folder: Path, url: str) -> Path:
    """The file ``url`` of ``folder/package.json`` names (a module of this package when
    ``url`` points into ``../boardctl/`` and the folder has no such sibling)."""
    source = (folder / url).resolve()
    if not source.is_file() and url.startswith(PACKAGE_URL):
        return PACKAGE_DIR / url.removeprefix(PACKAGE_URL)
    return source


ENTRY_POINT = "main.py"  # copied last: once it is on the Pico, the controller starts at power-up


def firmware_files(firmware_dir: Path | None = None) -> list[tuple[Path, str]]:
    """``(source file, name on the Pico)`` of every firmware file, ``main.py`` last."""
    folder = default_dir() if firmware_dir is None else firmware_dir
    package = folder / "package.json"
    try:
        urls = json.loads(package.read_text())["urls"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"{package}: not a firmware folder with a package.json ({exc}); "
            "pass --firmware DIR, the firmware/ folder of a boardctl checkout"
        ) from None
    files = [(source_of(folder, str(url)), str(name)) for name, url in urls]
    missing = [str(source) for source, _name in files if not source.is_file()]
    if missing:
        raise ConfigError(f"{package} names files that are not there: {', '.join(missing)}")
    files.sort(key=lambda item: item[1] == ENTRY_POINT)
    return files
