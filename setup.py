"""The wheel carries the LED controller's files, so an installed ``boardctl firmware
install`` has them: the files ``firmware/package.json`` names, and that list itself,
copied from ``firmware/`` into ``boardctl/firmware/`` when the package is built. The
repository keeps one copy (``firmware/``); the protocol module the list names by
reference (``../boardctl/link/protocol.py``) is in the package already. Everything
else is in pyproject.toml.
"""

import json
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SOURCE = Path(__file__).resolve().parent / "firmware"


class BuildWithFirmware(build_py):
    """build_py, then the firmware's files into the build's ``boardctl/firmware/``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's firmware/ itself
        target = Path(self.build_lib) / "boardctl" / "firmware"
        shutil.rmtree(target, ignore_errors=True)  # (no file of an earlier build lingers)
        target.mkdir(parents=True)
        urls = json.loads((SOURCE / "package.json").read_text())["urls"]
        local = [url for _name, url in urls if not url.startswith("../")]
        for name in ["package.json", *local]:
            shutil.copyfile(SOURCE / name, target / name)


setup(cmdclass={"build_py": BuildWithFirmware})
