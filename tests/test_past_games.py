"""A writer's ``history(all_games=True)`` from its kept finished games equals a full replay.

The service's scorekeeper replays the whole journal for the first ``history --all``
only; afterwards it answers from the finished games' rows it kept
(boardctl.game.past) and the current game's entries. Whatever happens after (more
entries, undo and redo, counts with cards, new games), the answer must be what
replaying the journal from its first event gives.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import EntryError
from boardctl.game.commands import Command, NewGame, Peg, Redo, Undo
from boardctl.game.keeper import Scorekeeper
from boardctl.service.client import request, request_ready
from boardctl.service.wire import Encoded, encode
from boardctl.store.journal import Journal
from tests.test_e2e import FAST, free_rig


def replayed(path: Path) -> list[dict[str, object]]:
    with Scorekeeper.open(path, readonly=True, full_replay=True) as reader:
        return reader.history(all_games=True)


def same(rows: list[dict[str, object]]) -> str:
    return json.dumps(rows, sort_keys=True)  # as the control socket sends them


def play(keeper: Scorekeeper, commands: list[Command]) -> None:
    for command in commands:
        with contextlib.suppress(EntryError):  # refused: nothing journalled
            keeper.apply(command)


GAME: list[Command] = [
    Peg(track=0, points=12, kind="hand"),
    Peg(1, 21, kind="hand", cards=("5H", "5D", "JS", "QC"), starter="5S"),
    Undo(),
    Redo(),
    Peg(track=0, points=2, kind="pegging"),
]


def test_kept_rows_answer_as_the_replay_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(variant="six-card", mode="free")) as keeper:
        play(keeper, [*GAME, NewGame(variant="six-card", mode="free"), *GAME])
        assert same(keeper.history(all_games=True)) == same(replayed(path))  # the first: replayed
        assert keeper._past is not None and keeper._past.size > 0
        opened: list[object] = []
        real_open = Journal.open

        def counted_open(*args: object, **kwargs: object) -> object:
            opened.append(args)
            return real_open(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(Journal, "open", counted_open)
        again = keeper.history(all_games=True)
        assert opened == []  # answered from what it kept: no replay
        assert same(again) == same(replayed(path))
        play(keeper, [NewGame(variant="five-card", mode="free", players=3), *GAME, Undo()])
        play(keeper, [NewGame(variant="six-card", mode="free")])
        opened.clear()
        rows = keeper.history(all_games=True)
        assert opened == []
        assert same(rows) == same(replayed(path))
        assert [r["seq"] for r in rows] == list(range(1, keeper.seq + 1))


def test_a_reader_keeps_nothing(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(mode="free")) as keeper:
        play(keeper, [*GAME, NewGame(mode="free")])
    with Scorekeeper.open(path, readonly=True) as reader:
        reader.history(all_games=True)
        assert reader._past is None


MOVES = st.sampled_from(
    [
        Peg(track=0, points=3, kind="pegging"),
        Peg(track=1, points=8, kind="hand"),
        Peg(0, 12, kind="hand", cards=("5H", "5D", "JS", "QC"), starter="5S"),
        Undo(),
        Redo(),
        NewGame(variant="six-card", mode="free"),
        NewGame(variant="five-card", mode="free"),
    ]
)


@settings(max_examples=25, deadline=None)
@given(before=st.lists(MOVES, max_size=12), after=st.lists(MOVES, max_size=12))
def test_any_play_after_the_first_ask_is_answered_as_the_replay(
    tmp_path_factory: pytest.TempPathFactory, before: list[Command], after: list[Command]
) -> None:
    path = tmp_path_factory.mktemp("past") / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(variant="six-card", mode="free")) as keeper:
        play(keeper, before)
        keeper.history(all_games=True)
        play(keeper, after)
        assert same(keeper.history(all_games=True)) == same(replayed(path))


def test_the_encoded_rows_are_the_rows(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path, setup=NewGame(variant="six-card", mode="free")) as keeper:
        play(keeper, [*GAME, NewGame(variant="six-card", mode="free")])
        first = keeper.history_json()  # the first: replayed, then kept
        play(keeper, [*GAME, NewGame(variant="five-card", mode="free"), Peg(0, 3, "pegging")])
        for text in (first, keeper.history_json()):
            assert isinstance(text, bytes)
        assert same(json.loads(keeper.history_json())) == same(replayed(path))


def test_a_reply_with_encoded_rows_is_the_same_line() -> None:
    rows = [{"seq": 1, "text": "Ålice +2 (pegging)", "scores": [2, 0]}]
    plain = encode({"ok": True, "result": rows})
    spliced = encode({"ok": True, "result": Encoded(json.dumps(rows).encode())})
    assert spliced.endswith(b"\n") and spliced.count(b"\n") == 1
    assert json.loads(spliced) == json.loads(plain)
    assert json.loads(encode({"result": Encoded(b"[]")})) == {"result": []}


def test_history_all_through_the_service_is_the_replay(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    with free_rig(tmp_path, mock_factory, FAST) as rig:
        for _ in range(2):
            request(rig.board.socket, {"op": "peg", "track": 0, "points": 3, "kind": "pegging"})
            request(rig.board.socket, {"op": "new_game", "variant": "six-card", "mode": "free"})
        request(rig.board.socket, {"op": "peg", "track": 1, "points": 2, "kind": "pegging"})
        for _ in range(2):  # the first replays, the second is from the kept rows
            rows = request_ready(rig.board.socket, {"op": "history", "all": True})
            assert [r["seq"] for r in rows] == list(range(1, len(rows) + 1))
        last = request_ready(rig.board.socket, {"op": "history", "all": True, "limit": 2})
        assert last == rows[-2:]
        journal = rig.board.journal
    assert same(rows) == same(replayed(journal))
