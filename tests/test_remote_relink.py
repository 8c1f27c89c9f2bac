"""A running board takes a link made, changed or ended by ``boardctl remote`` without a restart
(the control socket's ``relink``), and what the joined board does with undo, redo, a new game,
the result's sign-off and ``history``: two whole boards (tests/test_remote_e2e.py's
``TwoBoards``) and a real mosquitto."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.board.render import PENDING_PERIOD
from boardctl.board.terminal import draw_board
from boardctl.cli import main
from boardctl.cli.verbs import format_status
from boardctl.errors import ControlError
from boardctl.remote.joined import JoinedKeeper
from boardctl.service import client
from tests.test_remote_e2e import TwoBoards, linked_boards, wait_for


def cli(boards: TwoBoards, tmp_path: Path, side: str, *words: str) -> list[str]:
    config = tmp_path / "cli.toml"
    config.write_text(f'[mqtt]\nhost = "127.0.0.1"\nport = {boards.broker.port}\n')
    folder = boards.folders[side]
    where = ["--journal", str(folder / "state" / "journal.sqlite")]
    where += ["--socket", str(folder / "run" / "control.sock"), "--config", str(config)]
    return ["remote", *words, *where]


def ask(boards: TwoBoards, side: str, request: dict[str, object]) -> object:
    return client.request(boards.folders[side] / "run" / "control.sock", request)


@pytest.fixture
def alone(tmp_path: Path, mock_factory: MockFactory) -> Iterator[TwoBoards]:
    game = TwoBoards(tmp_path, mock_factory, linked=False)
    try:
        yield game
    finally:
        game.close()


def test_invite_and_join_link_two_running_boards_without_a_restart(
    alone: TwoBoards, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    boards = alone
    assert "remote" not in boards.status("host") and alone.joined.board.remote.joined is None
    assert main(cli(boards, tmp_path, "host", "invite")) == 0
    out = capsys.readouterr().out
    code = re.search(r"^code: (\S+)$", out, re.M)
    game = re.search(r"hosts the game (\w+)", out)
    assert code is not None and game is not None
    assert f"the running service hosts game {game[1]}" in out
    assert boards.status("host")["remote"]["role"] == "host"
    assert ask(boards, "host", {"op": "invite"}) == {"code": code[1], "game": game[1]}
    assert main(cli(boards, tmp_path, "joined", "join", code[1])) == 0
    assert f"the running service plays game {game[1]} (joined)" in capsys.readouterr().out
    keeper = boards.joined.loop.keeper
    assert isinstance(keeper, JoinedKeeper)
    wait_for(lambda: keeper.guest.reachable and keeper.guest.state is not None)
    boards.joined.enter(2, 4)  # its buttons enter into the host's game now
    wait_for(lambda: len(boards.sent()) == 1 and keeper.guest.outbox.pending() == [])
    assert boards.journalled(boards.sent()[0]) == 1
    assert [t["front"] for t in boards.host.status()["tracks"]] == [0, 4]
    # a control client's request id is the one the host journals, once, however often it asks
    peg = {"op": "peg", "track": 1, "points": 2, "request_id": "relinked-1"}
    for _ in range(2):
        ask(boards, "joined", dict(peg))
    wait_for(lambda: keeper.guest.outbox.pending() == [] and boards.journalled("relinked-1") == 1)
    assert [t["front"] for t in boards.host.status()["tracks"]] == [0, 6]
    wait_for(boards.same_lights)
    # invite again: the same code, the link left as it runs
    assert main(cli(boards, tmp_path, "host", "invite")) == 0
    assert f"code: {code[1]}" in capsys.readouterr().out
    assert boards.status("host")["remote"]["joined_online"] is True


def test_an_old_service_that_does_not_know_relink_is_named_and_the_link_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket
    import threading

    path = tmp_path / "old.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)

    def answer() -> None:
        conn, _ = server.accept()
        conn.recv(4096)
        conn.sendall(b'{"ok": false, "error": "unknown op \'relink\'"}\n')
        conn.close()

    thread = threading.Thread(target=answer)
    thread.start()
    config = tmp_path / "c.toml"
    config.write_text('[mqtt]\nhost = "127.0.0.1"\n')
    state = tmp_path / "state"
    state.mkdir()
    command = ["remote", "invite", "--config", str(config), "--socket", str(path)]
    assert main([*command, "--journal", str(state / "journal.sqlite")]) == 0
    thread.join()
    server.close()
    out = capsys.readouterr().out
    assert "the running service did not take the link (unknown op 'relink')" in out
    assert "restart the service" in out and (state / "remote.json").exists()


@pytest.fixture
def boards(tmp_path: Path, mock_factory: MockFactory) -> Iterator[TwoBoards]:
    with linked_boards(tmp_path, mock_factory) as game:
        yield game


def test_an_undo_on_the_joined_board_takes_back_its_own_last_entry_and_nothing_else(
    boards: TwoBoards,
) -> None:
    guest = boards.keeper.guest
    boards.joined.enter(2, 3)
    wait_for(lambda: len(boards.sent()) == 1 and guest.outbox.pending() == [])
    boards.joined.press("undo")  # its own last entry is the host's last: taken back
    wait_for(lambda: len(boards.sent()) == 2 and guest.outbox.pending() == [])
    answer = guest.outbox.answer(boards.sent()[1])
    assert answer is not None and answer["ok"] is True
    assert [t["front"] for t in boards.host.status()["tracks"]] == [0, 0]
    boards.joined.enter(2, 5)
    wait_for(lambda: len(boards.sent()) == 3 and guest.outbox.pending() == [])
    boards.host.enter(1, 2)  # the host's entry comes after the joined board's
    boards.host.wait_for(lambda: boards.host.status()["tracks"][0]["front"] == 2)
    seq = boards.host.status()["seq"]
    ask(boards, "joined", {"op": "undo"})  # boardctl undo on the joined board: refused
    wait_for(lambda: len(boards.sent()) == 4 and guest.outbox.pending() == [])
    answer = guest.outbox.answer(boards.sent()[3])
    assert answer is not None and answer["ok"] is False
    assert "the last entry is not the joined board's own: undo it on the host's board" in str(
        answer["error"]
    )
    assert boards.host.status()["seq"] == seq  # nothing changed
    assert [t["front"] for t in boards.host.status()["tracks"]] == [2, 5]
    shown = boards.host.loop.view().extra.refusal
    assert shown is not None  # its sign on the host, and on the joined board
    wait_for(lambda: boards.joined.loop.view().extra.refusal == shown)
    assert "the host refused: the last entry is not" in format_status(boards.status("joined"))


def test_an_undo_on_its_way_to_the_host_blinks_the_peg_it_takes_back_until_answered(
    boards: TwoBoards,
) -> None:
    guest, joined = boards.keeper.guest, boards.joined
    boards.host.enter(1, 4)  # the host's track has an entry too: its peg does not blink
    joined.enter(2, 3)
    wait_for(lambda: len(boards.sent()) == 1 and guest.outbox.pending() == [])
    wait_for(lambda: [t.front for t in joined.loop.view().tracks] == [4, 3])
    assert joined.loop.view().extra.undoing == ()
    boards.network.cut()  # the joined board's home loses the broker: the undo waits
    wait_for(lambda: not guest.connected)
    joined.press("undo")
    wait_for(lambda: len(boards.sent()) == 2)
    shown = joined.loop.view()
    assert shown.extra.undoing == (1,) and shown.extra.link_lost  # track 2's peg blinks
    assert [t.pending for t in shown.tracks] == [0, 0]
    assert boards.status("joined")["remote"]["unanswered"] == 1  # boardctl status: waiting
    layout = joined.board.layout
    peg, other = layout.led_of(1, 3), layout.led_of(0, 4)
    seen: list[tuple[bool, bool]] = []
    for _ in range(4):  # on the board's clock: the pending beat, 0.3 s on / 0.3 s off
        joined.elapse(PENDING_PERIOD / 2)
        frame = joined.link.frames[-1]
        seen.append(
            (frame[3 * peg : 3 * peg + 3] != bytes(3), frame[3 * other : 3 * other + 3] != bytes(3))
        )
    assert {bob for bob, _ann in seen} == {True, False}  # the joined board's peg blinks
    assert all(ann for _bob, ann in seen)  # the host's stays
    words = draw_board(shown, joined.link.frames[-1], layout, color="none")
    assert "undo sent" in words
    boards.network.mend()
    wait_for(lambda: guest.outbox.pending() == [], seconds=60)
    answer = guest.outbox.answer(boards.sent()[1])
    assert answer is not None and answer["ok"] is True
    wait_for(lambda: [t["front"] for t in boards.host.status()["tracks"]] == [4, 0])
    wait_for(lambda: joined.loop.view().extra.undoing == ())  # answered: no more blink
    wait_for(boards.same_lights)


def test_a_new_game_redo_and_history_on_the_joined_board_are_refused_saying_where(
    boards: TwoBoards,
) -> None:
    for op, words in (
        ("new_game", "the host hosts the game: start a new game on the host's board"),
        ("redo", "redo on the host's board"),
    ):
        with pytest.raises(ControlError, match=re.escape(words)):
            ask(boards, "joined", {"op": op})
        assert boards.joined.loop.view().extra.refusal is not None  # its sign on the LEDs
    with pytest.raises(ControlError, match="nothing of this board's to undo"):
        ask(boards, "joined", {"op": "undo"})
    assert boards.sent() == [] and boards.host.status()["seq"] == 1  # nothing sent, nothing done
    requests: list[dict[str, object]] = [{"op": "history"}, {"op": "history", "all": True}]
    for request in requests:
        with pytest.raises(ControlError, match="its history is the host's journal"):
            ask(boards, "joined", request)
    assert isinstance(ask(boards, "host", {"op": "history"}), list)


def test_a_new_game_started_with_the_joined_boards_menu_is_refused_at_once_not_confirmed(
    boards: TwoBoards,
) -> None:
    joined, inputs = boards.joined, boards.joined.config.inputs
    words = "the host hosts the game: start a new game on the host's board"
    joined.press("menu", hold=inputs.very_long_press + 0.1)  # menu held long: a new game
    shown = joined.loop.view()
    assert shown.extra.confirm is None and joined.loop.panel.mode == "entry"  # nothing to confirm
    assert shown.extra.refusal is not None and shown.extra.refused == words  # its sign, its words
    first = shown.error_at
    # settings mode, the target changed (a new game when it is left): refused when it is left
    joined.press("menu", hold=inputs.long_press + 0.1)
    assert joined.loop.panel.mode == "settings"
    joined.press("track1.plus1")  # the target: 121 -> 61
    joined.press("menu", hold=inputs.long_press + 0.1)
    shown = joined.loop.view()
    assert joined.loop.panel.mode == "entry" and shown.extra.confirm is None
    assert shown.extra.refused == words and shown.error_at != first  # refused again, now
    assert boards.sent() == []  # nothing went to the host
    assert boards.host.status()["seq"] == 1 and boards.host.status()["target"] == 121


def test_the_joined_board_signs_off_the_hosts_result_for_its_own_track(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    boards = TwoBoards(tmp_path, mock_factory, game={"mode": "free", "confirm_result": True})
    try:
        guest = boards.keeper.guest
        wait_for(lambda: guest.reachable and guest.state is not None)
        for points in (29, 29, 29, 29, 5):  # the host's player to 121
            ask(boards, "host", {"op": "peg", "track": 0, "points": points})
        assert boards.host.board.loop.keeper.waiting_signoff() == ()
        wait_for(lambda: boards.joined.loop.panel.signoff() == ())  # the host's result waits
        boards.joined.press("track2.plus1")  # its side confirms, on the host's game
        wait_for(lambda: len(boards.sent()) == 1 and guest.outbox.pending() == [])
        (rid,) = boards.sent()
        answer = guest.outbox.answer(rid)
        assert answer is not None and answer["ok"] is True and boards.journalled(rid) == 1
        assert boards.host.board.loop.keeper.waiting_signoff() == (1,)  # track 2 confirmed
        boards.joined.press("track1.plus1")  # the host's side: the host refuses it
        wait_for(lambda: len(boards.sent()) == 2 and guest.outbox.pending() == [])
        answer = guest.outbox.answer(boards.sent()[1])
        assert answer is not None and "track 1 is the host's" in str(answer["error"])
    finally:
        boards.close()


def test_undo_held_on_the_joined_board_answers_the_hosts_question_about_its_entry(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    boards = TwoBoards(tmp_path, mock_factory, game={"mode": "guided", "variant": "six-card"})
    joined, host = boards.joined, boards.host
    try:
        guest = boards.keeper.guest
        wait_for(lambda: guest.reachable and guest.state is not None)
        joined.press("track2.plus1")  # the cut: track 2 (the joined board's) deals
        joined.wait_for(lambda: host.status()["phase"] == "deal")
        joined.enter(2, 2)  # two for his heels, or pegging? the host's board asks
        wait_for(lambda: guest.outbox.pending() == [] and host.status()["ask"] is not None)
        wait_for(lambda: joined.loop.view().extra.ask is not None)  # and so does the joined
        joined.press("undo", hold=joined.config.inputs.long_press + 0.1)  # held: the answer
        wait_for(lambda: guest.outbox.pending() == [] and host.status()["ask"] is None)
        rows = ask(boards, "host", {"op": "history"})
        assert isinstance(rows, list)
        assert rows[-1]["event"] == {"op": "refile", "kind": "pegging", "track": 1, "points": 2}
        assert host.status()["tracks"][1]["front"] == 2  # filed anew, counted once
    finally:
        boards.close()
