"""The LED controller's files, as ``firmware/package.json`` (the one list of them) names them.

A wheel carries them as ``boardctl/firmware/`` (copied by setup.py); an editable install
reads the ``firmware/`` folder of its checkout (``direct_url.json``, PEP 610). A URL under
``../boardctl/`` (the protocol module) is a module of this package.
"""

from __future__ import annotations

import json
from pathlib import Path

import boardctl
from boardctl.errors import ConfigError

PACKAGE_DIR = Path(boardctl.__file__).resolve().parent  # boardctl/
PACKAGE_URL = "../boardctl/"  # how package.json names a module of this package
INSTALLED_DIR = PACKAGE_DIR / "firmware"  # the wheel's copy (setup.py)


def checkout_dir() -> Path | None:
    """The ``firmware/`` folder of the checkout an editable install was made from, if any."""
    from importlib.metadata import distributions
    from urllib.parse import unquote, urlparse

    for dist in distributions(name="boardctl"):  # (a checkout's own egg-info has no origin)
        try:
            origin = json.loads(dist.read_text("direct_url.json") or "{}")
        except ValueError:
            continue
        url = urlparse(str(origin.get("url", "")))
        if isinstance(origin.get("dir_info"), dict) and url.scheme == "file":
            return Path(unquote(url.path)) / "firmware"
    return None


def default_dir() -> Path:
    """Where the firmware's files are: the installed package's, else the checkout's."""
    if (INSTALLED_DIR / "package.json").is_file():
        return INSTALLED_DIR
    return checkout_dir() or INSTALLED_DIR  # (missing: firmware_files says so)


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
