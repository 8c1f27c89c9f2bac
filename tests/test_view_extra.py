"""The view's extra is a typed hand-off: what the engine, the panel and the service add to the
board's view, as one frozen dataclass that round-trips through the view's JSON."""

from __future__ import annotations

from dataclasses import fields

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.board.viewjson import view_from_dict, view_to_dict
from boardctl.errors import ConfigError
from boardctl.game.commands import Peg
from boardctl.game.keeper import Scorekeeper
from boardctl.notices import DAMAGE_KEY, FAULT_KEY
from boardctl.refusals import Refusal
from boardctl.view import (
    BoardView,
    ButtonId,
    Question,
    SettingsShown,
    TrackView,
    ViewExtra,
)

TRACKS = (TrackView("Ann", 30, 20), TrackView("Bo", 12, 5))


def test_the_journal_notices_have_one_name_in_the_status_and_in_the_view() -> None:
    names = {f.name for f in fields(ViewExtra)}
    assert {DAMAGE_KEY, FAULT_KEY} <= names


def test_the_engines_notes_and_its_question_round_trip_through_json() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    keeper.apply(Peg(0, 7))
    view = keeper.view()
    stored = view_to_dict(view)
    assert stored["extra"]["variant"] == "six-card" and stored["extra"]["crib_due"] is False
    assert view_from_dict(stored).extra == view.extra


extras = st.builds(
    ViewExtra,
    ask=st.none()
    | st.builds(
        Question, st.integers(0, 2), st.integers(0, 29), st.just("pegging"), st.just("hand")
    ),
    settings=st.none()
    | st.builds(
        SettingsShown,
        st.just("target"),
        st.integers(0, 5),
        st.just(6),
        st.sampled_from([61, 121]),
        st.integers(0, 1),
        st.just(2),
    ),
    undo_confirm=st.booleans(),
    signoff=st.none() | st.lists(st.integers(0, 1), max_size=2, unique=True).map(tuple),
    stuck=st.lists(
        st.sampled_from([ButtonId("undo"), ButtonId("menu"), ButtonId("plus5", 1)]),
        max_size=2,
        unique=True,
    ).map(tuple),
    pending_at=st.none() | st.floats(0, 1e6),
    refusal=st.none() | st.sampled_from(list(Refusal)),
    refused=st.text(max_size=20),
    journal_damage=st.booleans(),
    journal_fault=st.none() | st.text(min_size=1, max_size=20),
)


@given(extras)
def test_the_panels_and_the_services_signs_round_trip_through_json(extra: ViewExtra) -> None:
    view = BoardView(121, TRACKS, extra=extra)
    assert view_from_dict(view_to_dict(view)).extra == extra


def test_a_state_file_with_an_unknown_or_mistyped_extra_is_refused_by_name() -> None:
    state = {"target": 121, "tracks": [{"name": "Ann"}]}
    with pytest.raises(ConfigError, match="extra has no colour"):
        view_from_dict({**state, "extra": {"colour": "red"}})
    with pytest.raises(ConfigError, match=r"extra\.ask"):
        view_from_dict({**state, "extra": {"ask": {"track": 0}}})
