"""Demonstration positions: board views of the key moments of a game, each with the time to
show it at (blinking things "on"), for ``boardctl snapshot --demo``, the golden frames and
the README picture."""

from __future__ import annotations

from typing import Any

from boardctl.errors import ConfigError
from boardctl.view import BoardView, TrackView, ViewExtra, skunk_lines

#: The time every demo is shown at (seconds, monotonic clock).
DEMO_NOW = 1000.0


def _two(
    a: tuple[int, int], b: tuple[int, int], *, pending: int = 0, games: tuple[int, int] = (0, 0)
) -> tuple[TrackView, TrackView]:
    return (
        TrackView("Alice", a[0], a[1], game_points=games[0], pending=pending),
        TrackView("Bob", b[0], b[1], game_points=games[1]),
    )


def _won(
    a: tuple[int, int], b: tuple[int, int], *, dealer: int, ago: float, **more: Any
) -> tuple[BoardView, float]:
    """Alice has won the game to ``more["target"]`` (121) ``ago`` seconds before the demo time."""
    target = more.pop("target", 121)
    view = BoardView(
        target,
        _two(a, b, games=more.pop("games", (0, 0))),
        phase="over",
        dealer=dealer,
        winner=0,
        over_at=DEMO_NOW - ago,
        **more,
    )
    return view, DEMO_NOW


DEMOS: dict[str, tuple[BoardView, float]] = {
    # Pegs in the start holes, Alice deals.
    "new-game": (BoardView(121, _two((0, 0), (0, 0)), phase="deal", dealer=0), DEMO_NOW),
    # The show of a match to 7 game points (Alice 2, Bob 3): Bob deals, Alice
    # (non-dealer) counts first, so her dealer LED blinks.
    "mid-game": (
        BoardView(
            121,
            _two((67, 59), (82, 74), games=(2, 3)),
            phase="show",
            dealer=1,
            to_count=0,
            match_target=7,
        ),
        DEMO_NOW,
    ),
    # Alice has entered 6 and not committed it: hole 51 blinks.
    "pending": (
        BoardView(121, _two((45, 40), (52, 50), pending=6), phase="play", dealer=0),
        DEMO_NOW + 0.25,
    ),
    # An impossible count was rejected 0.1 s ago: status LED and start holes flash.
    "rejected": (
        BoardView(
            121,
            _two((67, 59), (82, 74)),
            phase="show",
            dealer=1,
            to_count=1,
            error_at=DEMO_NOW - 0.1,
        ),
        DEMO_NOW,
    ),
    # Alice won; Bob stopped at 84, under the skunk line (91), which blinks.
    "skunk": _won((121, 115), (84, 80), dealer=1, ago=10.0),
    # Alice won 1 s ago with Bob at 55 (double skunk): the comet runs, 61 flashes twice.
    "double-skunk": _won((121, 109), (55, 50), dealer=0, ago=1.0),
    # A match to 7 game points won by Alice (6 + a win); steady after the animations.
    "match-point": _won(
        (121, 118), (104, 96), dealer=1, ago=60.0, games=(7, 5), match_target=7, match_winner=0
    ),
    # An English game to 61 (fraction-lines: skunk at 46, double at 31): Alice won
    # with Bob at 40, past 31 but short of 46 (a skunk; under ACC no skunk), which blinks.
    "english-61": _won(
        (61, 55),
        (40, 36),
        dealer=1,
        ago=10.0,
        target=61,
        lines=skunk_lines(61, fractions=True),
        extra=ViewExtra(rules="english"),
    ),
}


def demo_view(name: str) -> tuple[BoardView, float]:
    """The demo position ``name`` and the time to show it at."""
    try:
        return DEMOS[name]
    except KeyError:
        known = ", ".join(DEMOS)
        raise ConfigError(f"no demo position {name!r}; choose one of {known}") from None
