"""Views built by the real scorekeeping engine render on the matching layouts."""

from __future__ import annotations

import contextlib
import random
import time

import pytest

from boardctl.board.frame import pixel
from boardctl.board.layout import builtin_layout
from boardctl.board.render import Renderer
from boardctl.board.terminal import draw_board
from boardctl.errors import EntryError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from tools.random_player import random_command


@pytest.mark.parametrize(
    ("variant", "players", "target", "layout_name"),
    [
        ("six-card", 2, 121, "two-121"),
        ("five-card", 2, 61, "two-61"),
        ("three-player", 3, 121, "three-121"),
    ],
)
def test_random_engine_games_render(
    variant: str, players: int, target: int, layout_name: str
) -> None:
    layout = builtin_layout(layout_name)
    renderer = Renderer(layout)
    keeper = Scorekeeper.memory()
    keeper.apply(
        parse_command(
            {"op": "new_game", "target": target, "variant": variant, "players": players, "match": 3}
        )
    )
    rng = random.Random(f"{variant}-{players}")
    seen_over = False
    for step in range(600):
        with contextlib.suppress(EntryError):  # the random player makes some mistakes
            keeper.apply(random_command(keeper.state, rng))
        view = keeper.view()
        now = time.monotonic()
        frame, upcoming = renderer.render_with_next(view, now)
        assert len(frame) == 3 * layout.led_count
        for t, track in enumerate(view.tracks):
            hole = min(max(track.front, 0), view.target)
            if view.winner is None and view.error_at is None:
                colour = pixel(frame, layout.led_of(t, hole))
                assert colour == renderer.theme.track_colour(t), (step, t, hole)
        if view.phase == "over":
            seen_over = True
        if view.to_count is None and view.winner is None and view.error_at is None:
            assert upcoming is None, (step, view.phase)
        if upcoming is None:
            assert renderer.render(view, now + 1000.0) == frame
        text = draw_board(view, frame, layout, color="none")
        assert text.count("\n") >= 2 * len(view.tracks) + 2
    assert seen_over, "the random game never ended; play more steps"
