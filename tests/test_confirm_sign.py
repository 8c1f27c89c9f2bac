"""Sign-off: each side confirms a finished game; a board key signs results; tampering fails."""

from __future__ import annotations

import io
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from boardctl.cli import main
from boardctl.errors import BoardError, EntryError, ResultsError
from boardctl.game import JsonValue
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.results.export import read_csv, write_csv
from boardctl.results.sign import check_record, key_id, read_key, sign, write_key
from boardctl.results.source import load_games


def finish(keeper: Scorekeeper, winner: int = 0) -> None:
    keeper.apply(
        parse_command({"op": "peg", "track": 1 - winner, "points": 100, "kind": "correction"})
    )
    keeper.apply(parse_command({"op": "peg", "track": winner, "points": 121, "kind": "correction"}))


def confirming(path: Path | None = None) -> Scorekeeper:
    setup: dict[str, JsonValue] = {"variant": "six-card", "mode": "free", "names": ["Ann", "Bo"]}
    keeper = Scorekeeper.open(path, setup=setup) if path else Scorekeeper.memory(setup)
    keeper.apply(parse_command({"op": "set", "key": "confirm_result", "value": True}))
    return keeper


def confirmed(keeper: Scorekeeper) -> tuple[int, ...]:
    """The sides that confirmed, read afresh (each ``apply`` changes the keeper's state)."""
    return keeper.state.confirmed


def test_a_finished_game_waits_for_each_side() -> None:
    keeper = confirming()
    with pytest.raises(EntryError, match="not over"):
        keeper.apply(parse_command({"op": "confirm", "track": 0}))
    finish(keeper)
    with pytest.raises(EntryError, match="waits for Ann, Bo"):
        keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "confirm", "track": 1}))
    with pytest.raises(EntryError, match="already confirmed"):
        keeper.apply(parse_command({"op": "confirm", "track": 1}))
    keeper.apply(
        parse_command({"op": "undo"})
    )  # a confirmation can be taken back before both are in
    assert confirmed(keeper) == ()
    keeper.apply(parse_command({"op": "confirm", "track": 1}))
    with pytest.raises(EntryError, match="waits for Ann"):
        keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "confirm", "track": 0}))
    assert confirmed(keeper) == (0, 1)
    for command in ({"op": "undo"}, {"op": "set", "key": "names", "value": ["X", "Y"]}):
        with pytest.raises(EntryError, match="confirmed by every side"):
            keeper.apply(parse_command(command))
    keeper.apply(parse_command({"op": "next"}))
    assert confirmed(keeper) == () and keeper.state.winner is None


def test_without_confirm_result_there_is_nothing_to_confirm() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    finish(keeper)
    with pytest.raises(EntryError, match="no confirmation"):
        keeper.apply(parse_command({"op": "confirm", "track": 0}))
    keeper.apply(parse_command({"op": "next"}))  # as before: no wait


def test_results_carry_the_confirmation(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with confirming(path) as keeper:
        finish(keeper, 1)
        keeper.apply(parse_command({"op": "confirm", "track": 0}))
        (waiting,) = [g.result for g in load_games(path, board="b")]
        assert (waiting.confirm, waiting.confirmed, waiting.final) == (True, (0,), False)
        keeper.apply(parse_command({"op": "confirm", "track": 1}))
        (done,) = [g.result for g in load_games(path, board="b")]
        assert (done.confirmed, done.final) == ((0, 1), True)
        keeper.apply(parse_command({"op": "new_game"}))
        finish(keeper, 0)
        keeper.apply(
            parse_command({"op": "new_game"})
        )  # abandoned unconfirmed: the result is not final
    results = [g.result for g in load_games(path, board="b")]
    assert [(r.winner, r.confirmed, r.final) for r in results] == [
        (1, (0, 1), True),
        (0, (), False),
    ]
    with Scorekeeper.open(path, readonly=True) as replayed:  # the journal replays the same
        assert replayed.state.setup.confirm_result


def test_key_file_is_private_and_refuses_to_be_replaced(tmp_path: Path) -> None:
    path = tmp_path / "state" / "board.key"
    key = write_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_key(path) == key and len(key) == 32
    with pytest.raises(ResultsError, match="already holds"):
        write_key(path)
    assert read_key(path) == key  # untouched
    assert write_key(path, force=True) != key
    path.write_text("not a key\n")
    with pytest.raises(ResultsError, match="not a board key"):
        read_key(path)


def test_signed_rows_verify_and_any_change_fails(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with confirming(path) as keeper:
        finish(keeper)
        keeper.apply(parse_command({"op": "confirm", "track": 0}))
        keeper.apply(parse_command({"op": "confirm", "track": 1}))
    (result,) = [g.result for g in load_games(path, board="b")]
    key = write_key(tmp_path / "board.key")
    signed = sign(result, key)
    assert signed.key == key_id(key) and len(signed.hmac) == 64
    assert check_record(signed.to_dict(), key) is None
    assert check_record(result.to_dict(), key) == "not signed"
    assert (check_record(signed.to_dict(), bytes(32)) or "").startswith(
        f"signed with key {key_id(key)}, not k-"
    )
    for change in ({"spread": signed.spread + 1}, {"names": ("Ann", "Bob")},
                   {"end": "2000-01-01T00:00:00.000Z"}, {"confirmed": (0,)}):  # fmt: skip
        assert (
            check_record(replace(signed, **change).to_dict(), key)
            == "the HMAC does not match: the row was changed"
        )


def test_cli_key_init_sign_and_verify_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    board = tmp_path / "board"
    board.mkdir()
    journal = board / "journal.sqlite"
    with confirming(journal) as keeper:
        for winner in (0, 1):
            finish(keeper, winner)
            keeper.apply(parse_command({"op": "confirm", "track": 0}))
            keeper.apply(parse_command({"op": "confirm", "track": 1}))
            keeper.apply(parse_command({"op": "next"}))
    assert main(["key", "init", "--journal", str(journal)]) == 0
    out = capsys.readouterr().out
    assert "mode 0600" in out and (board / "board-id").exists()
    assert main(["key", "init", "--journal", str(journal)]) == 1  # never silently replaced
    capsys.readouterr()
    assert main(["results", "--csv", "--journal", str(journal)]) == 0  # signed: the key is beside
    export = capsys.readouterr().out
    rows = list(read_csv(io.StringIO(export)))
    assert len(rows) == 2 and all(r.hmac for r in rows)
    assert {r.board for r in rows} == {(board / "board-id").read_text().strip()}
    # the director's machine: a copy of the key and the export, no journal
    elsewhere = tmp_path / "director"
    elsewhere.mkdir()
    (elsewhere / "board.key").write_bytes((board / "board.key").read_bytes())
    (elsewhere / "season.csv").write_text(export)
    key = ["--key", str(elsewhere / "board.key")]
    assert main(["results", "--verify", str(elsewhere / "season.csv"), *key]) == 0
    assert "2 of 2 rows verify" in capsys.readouterr().out
    tampered = io.StringIO()
    write_csv([rows[0], replace(rows[1], scores=(121, 120))], tampered)
    monkeypatch.setattr("sys.stdin", io.StringIO(tampered.getvalue()))
    assert main(["results", "--verify", *key]) == 1
    report = capsys.readouterr().out
    assert "ok      row 1" in report and "FAILED  row 2" in report and "1 of 2 rows" in report
    assert main(["results", "--verify", str(elsewhere / "season.csv")]) == 1
    assert "--key FILE" in capsys.readouterr().err


def test_cli_confirm_without_the_service(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal.sqlite"
    with confirming(journal) as keeper:
        finish(keeper)
    target = ["--journal", str(journal), "--socket", str(tmp_path / "none.sock")]
    assert main(["confirm", "2", *target]) == 0
    assert "waiting for Ann to confirm" in capsys.readouterr().out
    assert main(["confirm", "2", *target]) == 1
    assert "already confirmed" in capsys.readouterr().err
    with Scorekeeper.open(journal, readonly=True) as keeper:
        assert keeper.state.confirmed == (1,)
        assert keeper.history()[-1]["text"] == "Bo confirms the result"


def test_config_confirm_result_starts_the_first_game_with_it(tmp_path: Path) -> None:
    from boardctl.config import load_config
    from boardctl.service.app import game_setup

    config = tmp_path / "config.toml"
    config.write_text("[game]\nconfirm_result = true\n")
    setup = game_setup(load_config(str(config)))
    keeper = Scorekeeper.memory(setup)
    assert keeper.state.setup.confirm_result
    config.write_text('[game]\nconfirm_result = "yes"\n')
    with pytest.raises(BoardError, match="confirm_result"):
        load_config(str(config))
