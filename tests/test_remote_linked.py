"""A linked game's whose tracks, its end (``remote leave``), its voice and its results.

Two whole boards (tests/test_remote_e2e.py's ``TwoBoards``: services on mock pins and manual
clocks, a real mosquitto, the joined board behind a TCP proxy). The host's pairing gives the
joined board track 2 (``remote invite``'s default).
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.cli import main
from boardctl.cli.verbs import format_status
from boardctl.refusals import Refusal
from boardctl.remote import link_path, paired
from boardctl.remote.messages import encode, link_key
from boardctl.remote.service import ENDED_SHOWN
from boardctl.remote.store import OUTBOX_FILE, Outbox, linked_games
from boardctl.results.source import load_games
from boardctl.service import client
from boardctl.sound import phrases
from boardctl.sound.announcer import Announcer, attach
from tests.test_remote_e2e import TwoBoards, linked_boards, wait_for
from tests.test_sound_announcer import RecordingQueue


class QuickVoice:
    """Speaks at once, recording what it was given."""

    def __init__(self) -> None:
        self.spoken: list[str] = []

    def speak(self, text: str) -> None:
        self.spoken.append(text)

    def stop(self) -> None:
        pass


@pytest.fixture
def boards(tmp_path: Path, mock_factory: MockFactory) -> Iterator[TwoBoards]:
    with linked_boards(tmp_path, mock_factory) as game:
        yield game


def config_file(boards: TwoBoards, tmp_path: Path) -> str:
    path = tmp_path / "cli.toml"
    path.write_text(f'[mqtt]\nhost = "127.0.0.1"\nport = {boards.broker.port}\n')
    return str(path)


def journal(boards: TwoBoards, side: str) -> str:
    return str(boards.folders[side] / "state" / "journal.sqlite")


def test_the_host_refuses_the_joined_boards_entry_for_the_hosts_track_with_its_sign_on_both(
    boards: TwoBoards,
) -> None:
    before = boards.host.status()["seq"]
    boards.joined.enter(1, 3)  # track 1 is the host's player's
    wait_for(lambda: len(boards.sent()) == 1 and boards.keeper.guest.outbox.pending() == [])
    (rid,) = boards.sent()
    answer = boards.keeper.guest.outbox.answer(rid)
    assert answer is not None and answer["ok"] is False
    assert "track 1 is the host's: the joined board enters for track 2" in answer["error"]
    assert boards.journalled(rid) == 0 and boards.host.status()["seq"] == before
    shown = boards.host.loop.view().extra.refusal
    assert shown is not None  # the host flashes the refusal's sign ...
    wait_for(lambda: boards.joined.loop.view().extra.refusal == shown)  # ... the joined board too
    words = format_status(boards.status("joined"))
    assert "the host refused: track 1 is the host's" in words
    boards.joined.enter(2, 3)  # its own track: taken
    wait_for(lambda: boards.keeper.guest.outbox.pending() == [] and len(boards.sent()) == 2)
    assert boards.journalled(boards.sent()[1]) == 1
    assert [t["front"] for t in boards.host.status()["tracks"]] == [0, 3]


def socket(boards: TwoBoards, side: str) -> str:
    return str(boards.folders[side] / "run" / "control.sock")


@pytest.mark.parametrize("leaving", ["host", "joined"])
def test_remote_leave_ends_the_link_on_both_running_boards_with_the_link_ended_sign(
    boards: TwoBoards, tmp_path: Path, capsys: pytest.CaptureFixture[str], leaving: str
) -> None:
    config = config_file(boards, tmp_path)
    guest = boards.keeper.guest
    command = ["remote", "leave", "--config", config, "--journal", journal(boards, leaving)]
    assert main([*command, "--socket", socket(boards, leaving)]) == 0
    out = capsys.readouterr().out
    assert "the other board is told the link has ended" in out
    assert "the running service plays this board alone now" in out  # no restart
    assert not link_path(boards.folders[leaving] / "state" / "journal.sqlite").exists()
    sides = (boards.host, boards.joined)
    left, other = sides if leaving == "host" else sides[::-1]
    # the board that left plays alone at once, under the link-ended sign (not the lost link's)
    assert "remote" not in boards.status(leaving)
    assert left.loop.view().extra.link_ended and not left.loop.view().extra.link_lost
    wait_for(lambda: guest.ended)
    if leaving == "host":  # the joined board shows the host's last board, and the sign
        joined = boards.status("joined")
        assert joined["remote"]["ended"] is True and joined["remote"]["link_lost"] is False
        assert "the link was ENDED (remote leave)" in format_status(joined)
        view = boards.joined.loop.view()
        assert view.extra.link_ended and not view.extra.link_lost
        boards.joined.enter(2, 3)  # refused on the joined board itself: nothing is sent
        assert boards.sent() == []
        assert "the link has ended" in boards.joined.loop.view().extra.refused
        assert boards.joined.loop.view().extra.refusal is not None  # the refusal's sign
        boards.joined.elapse(30)  # the sign stays while the host's last board is shown
        assert boards.joined.loop.view().extra.link_ended
    else:  # the host's words and LEDs say the joined board left
        wait_for(lambda: boards.host.loop.view().extra.link_ended)
        assert "the joined board gone: the link was ENDED" in format_status(boards.status("host"))
        assert not boards.host.loop.view().extra.link_lost
    # for ENDED_SHOWN seconds of the board's own clock on a board that plays on
    for board in (left,) if leaving == "host" else (left, other):
        board.elapse(ENDED_SHOWN - 1)
        assert board.loop.view().extra.link_ended
        board.elapse(1.5)
        assert not board.loop.view().extra.link_ended
    before = left.status()["seq"]
    left.enter(1, 3)  # the board that left keeps its own score again
    left.wait_for(lambda: left.status()["seq"] == before + 1)
    assert left.status()["tracks"][0]["front"] >= 3


def test_the_link_ended_sign_goes_with_the_boards_next_entry(
    boards: TwoBoards, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_file(boards, tmp_path)
    command = ["remote", "leave", "--config", config, "--journal", journal(boards, "joined")]
    assert main([*command, "--socket", socket(boards, "joined")]) == 0
    wait_for(lambda: boards.host.loop.view().extra.link_ended)
    boards.host.elapse(1)
    boards.host.enter(1, 2)  # an entry: the board plays on, the sign has said its piece
    boards.host.wait_for(lambda: boards.host.status()["tracks"][0]["front"] == 2)
    assert not boards.host.loop.view().extra.link_ended


def test_a_board_that_joins_again_after_a_bye_is_linked_again(
    boards: TwoBoards, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_file(boards, tmp_path)
    main(["remote", "leave", "--config", config, "--journal", journal(boards, "joined")])
    wait_for(lambda: boards.keeper.guest.ended)
    code = paired.Pairing("host", boards.secret).code
    main(["remote", "join", code, "--config", config, "--journal", journal(boards, "joined")])
    boards.joined.close()
    boards.joined = boards.start_joined()  # its service restarted: it says hello again
    wait_for(lambda: boards.keeper.guest.reachable and not boards.keeper.guest.ended)
    wait_for(lambda: not boards.status("host")["remote"]["ended"])


def test_leave_with_the_broker_unreachable_still_unlinks_and_says_the_other_is_not_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[mqtt]\nhost = "127.0.0.1"\nport = 1\n')  # nothing listens there
    state = tmp_path / "state"
    state.mkdir()
    paired.save(link_path(state / "journal.sqlite"), paired.Pairing("guest", bytes(12)))
    command = ["remote", "leave", "--config", str(config), "--journal", str(state / "j.sqlite")]
    assert main(command) == 0
    out = capsys.readouterr().out
    assert "the other board is not told (cannot reach the MQTT broker" in out
    assert not (link_path(state / "journal.sqlite")).exists()


def test_each_entry_is_spoken_on_both_boards_once_the_host_has_journalled_it(
    boards: TwoBoards,
) -> None:
    said = {}
    for side, rig in (("host", boards.host), ("joined", boards.joined)):
        speech = RecordingQueue(QuickVoice())
        attach(Announcer(None, speech, status=rig.loop.keeper.status), rig.loop.dispatcher)
        said[side] = speech
    try:
        boards.joined.enter(2, 7)  # the joined board's entry: spoken where the host confirms it
        wait_for(lambda: any("seven" in line for line in said["host"].said))
        wait_for(lambda: any("seven" in line for line in said["joined"].said))
        boards.host.enter(1, 4)  # the host's entry: spoken on the joined board too
        wait_for(lambda: any("four" in line for line in said["joined"].said))
        boards.network.cut()  # a reconnection brings the retained state again ...
        wait_for(lambda: boards.joined.loop.view().extra.link_lost)
        boards.network.mend()
        wait_for(lambda: not boards.joined.loop.view().extra.link_lost, seconds=60)
        boards.joined.sync()
        # ... and nothing is said twice
        for side in ("host", "joined"):
            lines = said[side].said
            assert sum("seven" in line for line in lines) == 1, lines
            assert sum("four" in line for line in lines) == 1, lines
        refusal = phrases.refusal(Refusal.OTHER)
        boards.joined.enter(1, 3)  # the host's track: refused, and said so on both boards, once
        wait_for(lambda: refusal in said["host"].said and refusal in said["joined"].said)
        boards.joined.sync()
        assert said["joined"].said.count(refusal) == 1
    finally:
        for speech in said.values():
            speech.close()


def finish_a_game(boards: TwoBoards) -> None:
    """The joined board pegs 5 for track 2, the host pegs track 1 out (to 121)."""
    boards.joined.enter(2, 5)
    wait_for(lambda: boards.keeper.guest.outbox.pending() == [] and len(boards.sent()) == 1)
    socket = boards.folders["host"] / "run" / "control.sock"
    for points in (29, 29, 29, 29, 5):
        client.request(socket, {"op": "peg", "track": 0, "points": points})
    assert boards.host.status()["winner"] == 0


def test_the_joined_board_keeps_the_hosts_signed_result_and_both_boards_list_the_game(
    boards: TwoBoards, capsys: pytest.CaptureFixture[str]
) -> None:
    finish_a_game(boards)
    folder = boards.folders["joined"] / "state"
    wait_for(lambda: len(linked_games(folder)) == 1)
    (game,) = linked_games(folder)
    assert game.result.scores == (121, 5) and game.result.winner == 0
    for side in ("host", "joined"):
        assert main(["results", "--jsonl", "--journal", journal(boards, side)]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [row["scores"] for row in rows] == [[121, 5]], side
        assert main(["results", "--csv", "--journal", journal(boards, side)]) == 0
        table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
        assert [row["scores"] for row in table] == ["[121,5]"], side
        assert main(["stats", "players", "--json", "--journal", journal(boards, side)]) == 0
        players = json.loads(capsys.readouterr().out)["players"]
        assert sorted(p["games"] for p in players) == [1, 1], side


def test_a_joined_board_away_for_many_games_gets_every_one_when_it_is_back(
    boards: TwoBoards, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("boardctl.remote.host.GAMES_BYTES", 1200)  # a message holds one game
    finish_a_game(boards)
    folder = boards.folders["joined"] / "state"
    wait_for(lambda: len(linked_games(folder)) == 1)
    boards.joined.close()  # away while the host's home plays three more games alone
    socket = boards.folders["host"] / "run" / "control.sock"
    for game in range(3):
        client.request(socket, {"op": "new_game"})
        client.request(socket, {"op": "peg", "track": 1, "points": game + 1})
        for points in (29, 29, 29, 29, 5):
            client.request(socket, {"op": "peg", "track": 0, "points": points})
    host = boards.folders["host"] / "state" / "journal.sqlite"
    assert [g.result.scores for g in load_games(host)] == [(121, 5), (121, 1), (121, 2), (121, 3)]
    boards.joined = boards.start_joined()  # back: its hello says what it has, the host the rest
    wait_for(lambda: len(linked_games(folder)) == 4)
    scores = [g.result.scores for g in linked_games(folder)]
    assert scores == [(121, 5), (121, 1), (121, 2), (121, 3)]


def records(boards: TwoBoards, side: str) -> dict[str, Any]:
    """The control socket's ``records`` (the phone page's players table), once it is ready."""
    answer: dict[str, Any] = {}

    def ready() -> bool:
        answer.update(client.request(socket(boards, side), {"op": "records"}))
        return bool(answer["ready"])

    wait_for(ready)
    return answer


def test_the_joined_boards_records_request_counts_the_linked_games_it_keeps(
    boards: TwoBoards,
) -> None:
    assert records(boards, "joined")["games"] == 0  # read before the game: read again after it
    finish_a_game(boards)
    folder = boards.folders["joined"] / "state"
    wait_for(lambda: boards.keeper.guest.outbox.results_kept == 1)
    assert len(linked_games(folder)) == 1
    for side in ("host", "joined"):
        answer = records(boards, side)
        assert answer["games"] == 1, side
        players = {p["name"]: p for p in answer["players"]}
        assert sorted(p["games"] for p in players.values()) == [1, 1], side
        assert sorted(p["wins"] for p in players.values()) == [0, 1], side
    # the same retained message again (a reconnection) is kept once: nothing to read again
    outbox = boards.keeper.guest.outbox
    with sqlite3.connect(folder / OUTBOX_FILE) as db:
        (message,) = db.execute("SELECT message FROM results").fetchone()
    assert outbox.keep_result(message.encode(), boards.keeper.guest.link.key) is True
    assert outbox.results_kept == 1
    assert records(boards, "joined")["games"] == 1


def test_a_forged_or_altered_copy_of_a_result_is_refused(
    boards: TwoBoards, caplog: pytest.LogCaptureFixture
) -> None:
    finish_a_game(boards)
    folder = boards.folders["joined"] / "state"
    wait_for(lambda: len(linked_games(folder)) == 1)
    game = boards.keeper.guest.link.game
    outbox = Outbox(folder / OUTBOX_FILE, game)
    try:
        body = {"board": "forged", "games": "[]"}
        forged = encode("result", "host", game=game, key=link_key(bytes(12)), body=body)
        assert outbox.keep_result(forged, boards.keeper.guest.link.key) is False
        assert "refused the host's results: signed with key" in caplog.text
    finally:
        outbox.close()
    with sqlite3.connect(folder / OUTBOX_FILE) as db:  # a copy's score changed on the disk
        # (brackets, so that a game id or signature that holds the digits stays as it was)
        changed = db.execute(
            "UPDATE results SET message = replace(message, '[121,5]', '[122,5]')"
            " WHERE instr(message, '[121,5]') > 0"
        ).rowcount
    assert changed == 1
    assert linked_games(folder) == []
    assert "a kept result of game" in caplog.text and "forged or changed" in caplog.text
