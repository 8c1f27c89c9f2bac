"""One repository address: the README names the one every systemd unit's ``Documentation=`` uses."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_readme_names_the_repository_the_units_link_into() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    (address,) = re.findall(r"^Source: <(https://[^>]+)>", readme, flags=re.MULTILINE)
    units = sorted((REPO / "systemd").glob("*.service"))
    links = [
        link
        for unit in units
        for link in re.findall(r"^Documentation=(\S+)", unit.read_text(), flags=re.MULTILINE)
    ]
    assert len(links) >= len(units) - 1 and links  # the main units each link their doc
    for link in links:
        assert link.startswith(address + "/blob/main/"), link
        document = link.removeprefix(address + "/blob/main/")
        assert (REPO / document).is_file(), f"{link}: no {document} in the repository"


def test_the_readme_says_what_the_ci_script_installs_and_that_it_takes_minutes() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    (packages,) = re.findall(r'^APT_PACKAGES="([^"]+)"', script, flags=re.MULTILINE)
    assert f"`{packages}`" in " ".join(readme.split())  # the same list, in the same order
    assert "several minutes" in readme and "npm ci" in readme and "apt-get" in readme
    for folder in re.findall(r"npm ci --prefix (\S+)", script):
        assert f"`{folder}`" in readme, folder
