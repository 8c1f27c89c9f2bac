"""``boardctl cut``: the first dealer of a guided game from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.cli import main
from boardctl.config import parse_config
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
