"""Demonstration positions: board views of the key moments of a game, each with the time to
show it at, for ``boardctl snapshot --demo``, the golden frames and the README picture; the
positions are data (``demos.toml``, in the JSON form of :mod:`boardctl.board.viewjson`)."""

from __future__ import annotations

import tomllib
from importlib import resources

from boardctl.board.viewjson import view_from_dict
from boardctl.errors import ConfigError
from boardctl.view import BoardView

_TEXT = resources.files("boardctl.board").joinpath("demos.toml").read_text(encoding="utf-8")
DEMOS: dict[str, tuple[BoardView, float]] = {
    name: (view_from_dict(data, source=f"demos.toml [{name}]"), float(data["now"]))
    for name, data in tomllib.loads(_TEXT).items()
}


def demo_view(name: str) -> tuple[BoardView, float]:
    """The demo position ``name`` and the time to show it at."""
    try:
        return DEMOS[name]
    except KeyError:
        known = ", ".join(DEMOS)
        raise ConfigError(f"no demo position {name!r}; choose one of {known}") from None
