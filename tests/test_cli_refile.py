"""``boardctl refile``: the board's question answered from the command line, as undo held does.

With the service down the verb writes to the journal; with it running it goes
through the control socket; the engine's checks and messages are the same both ways.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.cli import main
from boardctl.config import parse_config
from boardctl.game.commands import Cut, Peg
from boardctl.game.keeper import Scorekeeper
from tests.test_e2e import FAST, Rig

NOT_ASKING = "the board is not asking about an entry: there is nothing to refile"


def _asked_heels(path: Path) -> None:
    """Alice deals and pegs 2 in the deal: his heels, or her first pegging with the press
    that starts the play forgotten? The board asks."""
    with Scorekeeper.open(path, setup={"names": ["Alice", "Bob"]}) as keeper:
        keeper.apply(Cut(dealer=0))
        keeper.apply(Peg(0, 2))
        assert keeper.status()["ask"] == {
            "track": 0,
            "points": 2,
            "kind": "heels",
            "other": "pegging",
        }


def _cli(folder: Path, *args: str) -> list[str]:
    return ["refile", *args, "--socket", str(folder / "none.sock"), "--journal", str(folder / "j")]


def _state(folder: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with Scorekeeper.open(folder / "j") as keeper:
        return keeper.status(), keeper.history()


def test_with_the_service_down_refile_files_the_asked_entry_as_the_other_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _asked_heels(tmp_path / "j")
    assert main(_cli(tmp_path)) == 0
    out, err = capsys.readouterr()
    assert "Alice" in out and "phase play" in out  # a pegging entry: the play has begun
    assert "written to the journal directly" in err
    status, history = _state(tmp_path)
    assert "ask" not in status or status["ask"] is None
    assert history[-1]["event"] == {"op": "refile", "kind": "pegging", "track": 0, "points": 2}
    assert [t["front"] for t in status["tracks"]] == [2, 0]
    assert main(_cli(tmp_path)) == 1  # asked once, answered once
    assert NOT_ASKING in capsys.readouterr().err
    assert _state(tmp_path)[1] == history  # nothing written


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["crib"], "the board asks whether Alice's 2 is heels or pegging, not crib"),
        (["bogus"], "unknown kind 'bogus'"),
        (
            ["--track", "2", "--points", "2"],
            "the entry asked about is 2 on track 1, not 2 on track 2",
        ),
        (["--track", "1"], "both --track and --points"),
        (["--track", "0", "--points", "2"], "track numbers start at 1"),
    ],
)
def test_a_refile_that_does_not_fit_the_question_is_refused_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    _asked_heels(tmp_path / "j")
    before = _state(tmp_path)
    assert main(_cli(tmp_path, *args)) == 1
    assert message in capsys.readouterr().err
    assert _state(tmp_path) == before


def test_refile_with_its_own_kind_keeps_the_entry_and_ends_the_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _asked_heels(tmp_path / "j")
    assert main(_cli(tmp_path, "heels", "--track", "1", "--points", "2")) == 0
    status, history = _state(tmp_path)
    assert status.get("ask") is None and status["phase"] == "deal"  # still his heels
    assert history[-1]["event"]["kind"] == "heels"


def test_with_the_service_running_refile_goes_through_the_control_socket(
    tmp_path: Path, mock_factory: MockFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    config = parse_config({**FAST, "game": {"mode": "guided"}})
    rig = Rig(tmp_path, mock_factory, config, None)
    sock = ["--socket", str(tmp_path / "run" / "control.sock")]
    try:
        assert main(["refile", *sock]) == 1  # nothing asked yet: the engine's own message
        assert NOT_ASKING in capsys.readouterr().err
        assert main(["cut", "1", *sock]) == 0
        assert main(["peg", "1", "2", *sock]) == 0
        assert rig.status()["ask"]["other"] == "pegging"
        capsys.readouterr()
        assert main(["refile", "crib", *sock]) == 1
        assert "is heels or pegging, not crib" in capsys.readouterr().err
        assert main(["refile", *sock]) == 0
        out, err = capsys.readouterr()
        assert "phase play" in out and "journal directly" not in err
        status = rig.status()
        assert status.get("ask") is None and status["phase"] == "play"
        history = rig.loop.keeper.history()
        assert history[-1]["event"]["op"] == "refile"
    finally:
        rig.close()
