"""``boardctl.durable``: a small file is replaced whole or not at all."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from boardctl.durable import replace_file


def test_a_file_is_replaced_whole_and_private_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "state" / "link.json"
    replace_file(path, "first\n")
    replace_file(path, "second\n", private=True)
    assert path.read_text(encoding="utf-8") == "second\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["link.json"]  # no temporary left


def test_a_write_that_fails_before_the_rename_leaves_the_old_file_and_no_temporary(
    tmp_path: Path,
) -> None:
    path = tmp_path / "keys.json"
    replace_file(path, "old\n")

    def fail(_name: str) -> None:
        raise OSError("the disk went away")

    with pytest.raises(OSError, match="disk went away"):
        replace_file(path, "new\n", before_rename=fail)
    assert path.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["keys.json"]
