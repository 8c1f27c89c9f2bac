"""Name lists kept apart for a fast CLI start-up must stay equal to their sources."""

from __future__ import annotations

from boardctl.board.demo import DEMOS
from boardctl.cli.cmd_snapshot import DEMO_NAMES
from boardctl.config import LINK_KINDS
from boardctl.link import KINDS


def test_config_link_kinds_are_the_links_kinds() -> None:
    assert tuple(LINK_KINDS) == tuple(KINDS)


def test_snapshot_demo_names_are_the_demo_positions() -> None:
    assert tuple(DEMO_NAMES) == tuple(DEMOS)
