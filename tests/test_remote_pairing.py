"""Pairing two boards: ``boardctl remote invite / join / leave / status`` and remote.json."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from boardctl.cli import main
from boardctl.remote import link_path, paired
from boardctl.remote.messages import RemoteError


def _board(tmp_path: Path, name: str) -> list[str]:
    config = tmp_path / f"{name}.toml"
    config.write_text('[mqtt]\nhost = "broker.example"\nport = 8883\ntls = true\n')
    return ["--config", str(config), "--journal", str(tmp_path / name / "journal.sqlite")]


def _code(out: str) -> str:
    found = re.search(r"^code: (\S+)$", out, re.M)
    assert found, out
    return found.group(1)


def test_invite_and_join_store_the_same_link_on_both_boards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["remote", "invite", *_board(tmp_path, "host")]) == 0
    out = capsys.readouterr().out
    code = _code(out)
    assert "broker: broker.example:8883 with TLS" in out
    assert main(["remote", "join", code.lower(), *_board(tmp_path, "guest")]) == 0
    joined = capsys.readouterr().out
    host = paired.load(link_path(tmp_path / "host" / "journal.sqlite"))
    guest = paired.load(link_path(tmp_path / "guest" / "journal.sqlite"))
    assert host is not None and guest is not None
    assert (host.role, guest.role) == ("host", "guest")
    assert host.secret == guest.secret and host.game in joined and host.key_id in joined
    for side in ("host", "guest"):
        mode = link_path(tmp_path / side / "journal.sqlite").stat().st_mode
        assert stat.S_IMODE(mode) == 0o600  # the file holds the link's secret


def test_invite_again_shows_the_same_code_and_new_makes_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = _board(tmp_path, "host")
    main(["remote", "invite", *board])
    first = _code(capsys.readouterr().out)
    main(["remote", "invite", *board])
    assert _code(capsys.readouterr().out) == first
    main(["remote", "invite", "--new", *board])
    assert _code(capsys.readouterr().out) != first


def test_a_mistyped_code_is_refused_and_stores_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["remote", "invite", *_board(tmp_path, "host")])
    code = _code(capsys.readouterr().out)
    wrong = ("Z" if code[0] != "Z" else "Y") + code[1:]
    assert main(["remote", "join", wrong, *_board(tmp_path, "guest")]) != 0
    assert "mistyped" in capsys.readouterr().err
    assert not (link_path(tmp_path / "guest" / "journal.sqlite")).exists()


def test_a_linked_board_must_leave_before_it_joins_or_hosts_another_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["remote", "invite", *_board(tmp_path, "host")])
    code = _code(capsys.readouterr().out)
    guest = _board(tmp_path, "guest")
    assert main(["remote", "join", code, *guest]) == 0
    before = (link_path(tmp_path / "guest" / "journal.sqlite")).read_bytes()
    assert main(["remote", "invite", *guest]) != 0
    assert "remote leave first" in capsys.readouterr().err
    other = paired.Pairing("host", bytes(12)).code
    assert main(["remote", "join", other, *guest]) != 0
    assert (link_path(tmp_path / "guest" / "journal.sqlite")).read_bytes() == before
    assert main(["remote", "join", code, *guest]) == 0  # the same code again: nothing changes


def test_leave_unlinks_either_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["remote", "invite", *_board(tmp_path, "host")])
    main(["remote", "join", _code(capsys.readouterr().out), *_board(tmp_path, "guest")])
    for side in ("guest", "host"):
        assert main(["remote", "leave", *_board(tmp_path, side)]) == 0
        assert "unlinked" in capsys.readouterr().out
        assert not link_path(tmp_path / side / "journal.sqlite").exists()
        main(["remote", "status", *_board(tmp_path, side)])
        assert "not linked" in capsys.readouterr().out


def test_a_damaged_link_file_is_reported_not_guessed(tmp_path: Path) -> None:
    where = link_path(tmp_path / "journal.sqlite")
    where.write_text(json.dumps({"version": 1, "role": "host", "secret": "12"}))
    with pytest.raises(RemoteError, match="not a board's link"):
        paired.load(where)
    assert paired.remove(where) and paired.load(where) is None


def test_status_says_in_words_which_side_of_the_link_the_board_is_and_how_it_stands() -> None:
    from dataclasses import replace

    from boardctl.remote.words import LinkStatus, link_line

    host = LinkStatus("host", "g1", True, False, False, (1, 2), forged=2)
    assert link_line(host) == (
        "linked game g1: hosted here, on the broker; the joined board not online; "
        "it enters for track 2, 3; 2 forged or foreign messages refused"
    )
    assert "the joined board gone: the link was ENDED" in link_line(replace(host, ended=True))
    joined = LinkStatus("guest", "g1", True, False, False, None, link_lost=True, unanswered=1,
                        refusals=("there is no track 8",))  # fmt: skip
    assert link_line(joined) == (
        "linked game g1: joined, LINK LOST (cannot reach the host): the board shows the host's "
        "last state; 1 entry waiting for the host; the host refused: there is no track 8"
    )
    back = replace(joined, link_lost=False, unanswered=0, refusals=())
    assert link_line(back) == "linked game g1: joined, host reachable"
    ended = link_line(replace(back, ended=True))
    assert "the link was ENDED (remote leave)" in ended and "LOST" not in ended


def test_the_status_part_keeps_its_keys_and_words_for_the_phone_page_and_the_cli() -> None:
    from boardctl.cli.verbs import format_status
    from boardctl.remote.words import LinkStatus, link_line

    host = LinkStatus("host", "g1", True, True, False, (1,), forged=1)
    assert host.to_dict() == {
        "role": "host", "game": "g1", "connected": True, "joined_online": True, "refused": 1,
        "ended": False, "tracks": [1], "words": link_line(host),
    }  # fmt: skip
    joined = LinkStatus("guest", "g1", False, False, False, None, link_lost=True, unanswered=2,
                        refusals=("no",))  # fmt: skip
    assert joined.to_dict() == {
        "role": "guest", "game": "g1", "connected": False, "host_online": False,
        "link_lost": True, "ended": False, "unanswered": 2, "refused": ["no"], "tracks": None,
        "words": link_line(joined),
    }  # fmt: skip
    status = {"tracks": [], "remote": joined.to_dict()}
    assert format_status(status).splitlines()[-1] == link_line(joined)


def test_the_outbox_keeps_each_games_entries_apart_and_chains_them_in_order(
    tmp_path: Path,
) -> None:
    from boardctl.remote.store import Outbox

    old = Outbox(tmp_path / "outbox.sqlite", "game-a")
    first = old.add({"op": "peg", "track": 0, "points": 1})
    second = old.add({"op": "peg", "track": 0, "points": 2})
    assert [(rid, after) for rid, _, after in old.pending()] == [(first, ""), (second, first)]
    assert old.add({"op": "undo"}, first) == first  # the same id again: kept once
    assert len(old.pending()) == 2
    assert old.answered(first, {"ok": True}) and not old.answered(first, {"ok": False})
    old.close()
    new = Outbox(tmp_path / "outbox.sqlite", "game-b")  # the board joined another game
    assert new.pending() == []
    third = new.add({"op": "peg", "track": 1, "points": 3})
    assert new.pending() == [(third, {"op": "peg", "track": 1, "points": 3}, "")]
    assert new.answer(first) == {"ok": True}


def test_invite_tracks_says_which_tracks_the_joined_board_enters_for_and_bad_ones_store_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    board = _board(tmp_path, "host")
    main(["remote", "invite", *board])
    first = paired.load(link_path(tmp_path / "host" / "journal.sqlite"))
    assert first is not None and first.tracks == (1,)  # track 2, unless told
    assert "the joined board enters for track 2" in capsys.readouterr().out
    main(["remote", "invite", "--tracks", "3,2", *board])
    again = paired.load(link_path(tmp_path / "host" / "journal.sqlite"))
    assert again is not None and again.tracks == (1, 2) and again.secret == first.secret
    assert "enters for track 2, 3" in capsys.readouterr().out
    for bad in ("0", "5", "two", ""):
        assert main(["remote", "invite", "--tracks", bad, *board]) != 0
        assert "the joined board's tracks, as 2 or 2,3" in capsys.readouterr().err
    assert paired.load(link_path(tmp_path / "host" / "journal.sqlite")) == again
    assert main(["remote", "join", first.code, "--tracks", "2", *_board(tmp_path, "guest")]) != 0
    assert "--tracks is remote invite's" in capsys.readouterr().err
    assert not (link_path(tmp_path / "guest" / "journal.sqlite")).exists()
