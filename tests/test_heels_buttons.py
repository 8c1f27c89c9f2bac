"""His heels entered with the buttons (MockFactory pins): recorded as heels, the deal goes on."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.config import parse_config
from boardctl.errors import EntryError
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.link import RecordingLink
from tests.test_e2e import FAST, Rig


def test_the_dealers_two_in_the_deal_entered_with_buttons_is_his_heels(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    config = parse_config({**FAST, "game": {"mode": "guided", "variant": "six-card"}})
    rig = Rig(tmp_path, mock_factory, config, RecordingLink())
    try:
        rig.press("track2.plus1")  # the cut: track 2 deals
        rig.wait_for(lambda: rig.status()["phase"] == "deal")
        assert rig.status()["dealer"] == 1
        rig.enter(2, 2)  # the starter is a jack: the dealer pegs 2
        rig.wait_for(lambda: rig.status()["tracks"][1]["front"] == 2)
        status = rig.status()
        assert status["phase"] == "deal"  # the play has not started: menu still starts it
        rig.press("menu")
        assert rig.status()["phase"] == "play"
        rig.enter(1, 2)  # the pone's fifteen in the play is pegging
        rig.wait_for(lambda: rig.status()["tracks"][0]["front"] == 2)
    finally:
        rig.close()
    with Scorekeeper.open(tmp_path / "state" / "journal.sqlite", readonly=True) as keeper:
        pegs = [row["event"] for row in keeper.history() if row["op"] == "peg"]
    assert pegs == [
        {"op": "peg", "track": 1, "points": 2, "kind": "heels"},
        {"op": "peg", "track": 0, "points": 2, "kind": "pegging"},
    ]


def _dealt(dealer: int) -> Scorekeeper:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "guided"})
    keeper.apply(parse_command({"op": "cut", "dealer": dealer}))
    return keeper


def test_only_the_dealers_first_two_in_the_deal_is_heels() -> None:
    keeper = _dealt(0)
    event = keeper.apply(parse_command({"op": "peg", "track": 0, "points": 2}))["event"]
    assert event["kind"] == "heels" and keeper.status()["phase"] == "deal"
    again = keeper.apply(parse_command({"op": "peg", "track": 0, "points": 2}))["event"]
    assert again["kind"] == "pegging"  # heels is once a deal: a second 2 is the play's
    assert keeper.status()["phase"] == "play"
    other = _dealt(0)
    assert other.apply(parse_command({"op": "peg", "track": 1, "points": 2}))["event"]["kind"] == (
        "pegging"
    )
    three = _dealt(0)
    assert three.apply(parse_command({"op": "peg", "track": 0, "points": 3}))["event"]["kind"] == (
        "pegging"
    )
    with pytest.raises(EntryError):
        _dealt(0).apply(parse_command({"op": "peg", "track": 1, "points": 2, "kind": "heels"}))


def test_a_count_the_play_cannot_peg_is_the_first_count_of_the_show() -> None:
    keeper = _dealt(1)  # track 2 deals: track 1's hand is counted first
    keeper.apply(parse_command({"op": "next"}))  # to the play
    keeper.apply(parse_command({"op": "peg", "track": 0, "points": 2}))  # a fifteen
    # the menu press ending the play is forgotten: 16 is more than one play can peg
    event = keeper.apply(parse_command({"op": "peg", "track": 0, "points": 16}))["event"]
    assert event == {"op": "peg", "track": 0, "points": 16, "kind": "hand"}
    status = keeper.status()
    assert status["phase"] == "show" and status["to_count"] == 1
    # the dealer's 16 in the play is not due first: refused with the not-your-turn sign
    other = _dealt(1)
    other.apply(parse_command({"op": "next"}))
    with pytest.raises(EntryError) as caught:
        other.apply(parse_command({"op": "peg", "track": 1, "points": 16}))
    assert caught.value.refusal.value == "not_your_turn"
    assert other.status()["phase"] == "play"  # refused: nothing changed
    with pytest.raises(EntryError) as impossible:  # 19 is no hand: the pegging limit says why
        other.apply(parse_command({"op": "peg", "track": 0, "points": 19}))
    assert impossible.value.refusal.value == "too_many_points"
