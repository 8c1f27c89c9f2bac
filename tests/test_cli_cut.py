"""``boardctl cut``: the first dealer of a guided game from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cli import main
from boardctl.config import parse_config
from boardctl.cribbage.cards import DECK, Card, format_card
from boardctl.errors import EntryError
from boardctl.game.flow import lowest_cut
from boardctl.game.keeper import Scorekeeper
from boardctl.link import RecordingLink
from tests.test_e2e import FAST, Rig


def _cli(folder: Path, *args: str) -> list[str]:
    return [*args, "--socket", str(folder / "none.sock"), "--journal", str(folder / "j.sqlite")]


def _guided(folder: Path, players: int = 2) -> None:
    with Scorekeeper.open(folder / "j.sqlite", setup={"players": players, "mode": "guided"}):
        pass


def test_cut_sets_the_dealer_then_next_deals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _guided(tmp_path, players=3)
    assert main(_cli(tmp_path, "cut", "3")) == 0
    assert main(_cli(tmp_path, "next")) == 0
    capsys.readouterr()
    with Scorekeeper.open(tmp_path / "j.sqlite") as keeper:
        assert (keeper.state.dealer, keeper.state.phase) == (2, "play")


def test_cut_without_a_seat_draws(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _guided(tmp_path)
    assert main(_cli(tmp_path, "cut")) == 0
    capsys.readouterr()
    with Scorekeeper.open(tmp_path / "j.sqlite") as keeper:
        assert keeper.state.dealer in (0, 1)
        assert keeper.history()[-1]["event"] == {
            "op": "cut",
            "dealer": keeper.state.dealer,
            "drawn": True,
        }


@pytest.mark.parametrize(
    ("seat", "message"), [("0", "start at 1"), ("3", "seats 1-2 counted from 1")]
)
def test_bad_seats_are_refused_and_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seat: str, message: str
) -> None:
    _guided(tmp_path)
    assert main(_cli(tmp_path, "cut", seat)) == 1
    assert message in capsys.readouterr().err
    with Scorekeeper.open(tmp_path / "j.sqlite") as keeper:
        assert keeper.state.phase == "cut"


def test_a_second_cut_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _guided(tmp_path)
    assert main(_cli(tmp_path, "cut", "1")) == 0
    assert main(_cli(tmp_path, "cut", "2")) == 1
    assert "already chosen" in capsys.readouterr().err


def test_cut_through_the_running_service(
    tmp_path: Path, mock_factory: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    config = parse_config({**FAST, "game": {"mode": "guided"}})
    rig = Rig(tmp_path, mock_factory, config, RecordingLink())
    try:
        where = ["--socket", str(rig.board.socket), "--journal", str(rig.board.journal)]
        assert main(["cut", "2", *where]) == 0
        assert rig.status()["dealer"] == 1 and rig.status()["phase"] == "deal"
        assert main(["cut", *where]) == 1  # already chosen
        assert "already chosen" in capsys.readouterr().err
    finally:
        rig.close()


def test_the_cut_cards_choose_the_dealer_through_the_running_service(
    tmp_path: Path, mock_factory: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    config = parse_config(
        {
            **FAST,
            "game": {"mode": "guided", "variant": "three-player"},
            "board": {"layout": "three-121"},
        }
    )
    rig = Rig(tmp_path, mock_factory, config, RecordingLink())
    try:
        where = ["--socket", str(rig.board.socket), "--journal", str(rig.board.journal)]
        assert main(["cut", "--cards", "QH", "3S", "3D", *where]) == 1  # a tie for the lowest
        assert "seat 2 (3S) and seat 3 (3D) tie for the lowest card: cut again" in (
            capsys.readouterr().err
        )
        assert main(["cut", "--cards", "QH", "3S", *where]) == 1  # one card short
        assert "one card per player in seat order: 3 cards, not 2" in capsys.readouterr().err
        assert main(["cut", "2", "--cards", "QH", "3S", "KD", *where]) == 1
        assert "not both" in capsys.readouterr().err
        assert rig.status()["phase"] == "cut"  # nothing changed
        assert main(["cut", "--cards", "qh", "3s", "AD", *where]) == 0  # the ace is low
        assert rig.status()["dealer_seat"] == 2 and rig.status()["phase"] == "deal"
        capsys.readouterr()
        assert main(["history", *where]) == 0
        assert "first dealer: seat 3 (cut: seat 1 QH, seat 2 3S, seat 3 AD; the lowest deals)" in (
            capsys.readouterr().out
        )
        assert main(["history", "--json", *where]) == 0
        events = [row["event"] for row in json.loads(capsys.readouterr().out)]
        assert {"op": "cut", "dealer": 2, "drawn": False, "cards": ["QH", "3S", "AD"]} in events
    finally:
        rig.close()
    with Scorekeeper.open(rig.board.journal) as keeper:  # the journal replays the cut
        assert keeper.state.dealer == 2


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 6).flatmap(lambda n: st.permutations(DECK).map(lambda deck: deck[:n])))
def test_the_lowest_cut_card_deals_and_a_tie_for_it_cuts_again(cards: list[Card]) -> None:
    texts = [format_card(card) for card in cards]
    low = min(card.rank for card in cards)
    lowest = [seat for seat, card in enumerate(cards) if card.rank == low]
    if len(lowest) > 1:
        with pytest.raises(EntryError, match="cut again"):
            lowest_cut(texts, len(cards))
    else:
        assert lowest_cut(texts, len(cards)) == lowest[0]
        assert all(card.rank > low for seat, card in enumerate(cards) if seat != lowest[0])
