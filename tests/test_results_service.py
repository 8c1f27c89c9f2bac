"""``boardctl results --csv`` and ``stats players`` answered by the running service.

A real ``boardctl run`` on mock pins over a journal of real games; the two verbs asked
through its socket print what they print reading the journal themselves, signed as they
sign when the board has a key; the CSV's pages, joined, are the text for any page size,
and a reader whose text was made again from a newer journal starts over from its first
page. (Which modules such a verb loads: ``tests/test_cli_lean.py``.)
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.cli import main
from boardctl.demo.game import DemoGame
from boardctl.game.keeper import Scorekeeper
from boardctl.results.sign import KEY_FILE, write_key
from boardctl.results.source import load_csv
from boardctl.service import results_csv
from boardctl.service.journal_reader import JournalRecords
from boardctl.service.results_csv import ResultsCsv, pages
from boardctl.service.wire import Encoded
from tests import test_web_records
from tests.test_e2e_process import Service
from tests.test_web_records import season


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


#: A real service on the season's journal (five games, two big hands entered by their cards).
service = test_web_records.service


def test_results_csv_and_stats_players_through_the_service_are_the_journals(
    service: Service, capsys: pytest.CaptureFixture[str]
) -> None:
    where, journal = ("--socket", str(service.socket)), ("--journal", str(service.journal))
    csv = cli(capsys, "results", "--csv", *where)
    assert csv == load_csv(service.journal) and csv.count("\r\n") == 1 + 5  # header, 5 games
    for form in ((), ("--json",)):
        here = cli(capsys, "stats", "players", *form, *journal)
        assert cli(capsys, "stats", "players", *form, *where) == here
        assert "Alice" in here
    # a game ended on the running board: in the next answers
    service.ask("new_game", variant="six-card", mode="free", target=61, names=["Erin", "Dave"])
    service.ask("peg", track=1, kind="hand", cards=["5H", "5C", "5S", "JD"], starter="5D")
    service.ask("peg", track=1, points=32, kind="correction")
    after = cli(capsys, "results", "--csv", *where)
    assert after == load_csv(service.journal) and after.count("\r\n") == 1 + 6 and "Erin" in after
    assert "Erin" in cli(capsys, "stats", "players", *where)


def test_a_board_with_a_key_signs_the_rows_the_service_sends(
    service: Service, capsys: pytest.CaptureFixture[str]
) -> None:
    key = write_key(service.journal.parent / KEY_FILE)
    csv = cli(capsys, "results", "--csv", "--socket", str(service.socket))
    assert csv == load_csv(service.journal, key=key) != load_csv(service.journal)
    exported = service.tmp / "export.csv"
    exported.write_text(csv, newline="")
    key_file = str(service.journal.parent / KEY_FILE)
    verified = cli(capsys, "results", "--verify", str(exported), "--key", key_file)
    assert verified.endswith("5 of 5 rows verify\n")


def test_with_the_service_down_the_verbs_read_the_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal.sqlite"
    season(journal)
    config = tmp_path / "config.toml"
    config.write_text(f'[service]\nsocket = "{tmp_path / "none.sock"}"\njournal = "{journal}"\n')
    assert cli(capsys, "results", "--csv", "--config", str(config)) == load_csv(journal)
    here = cli(capsys, "stats", "players", "--journal", str(journal))
    assert cli(capsys, "stats", "players", "--config", str(config)) == here


@given(
    st.lists(
        st.lists(st.text(max_size=30).map(lambda t: t.replace("\n", " ")), min_size=1, max_size=3),
        max_size=12,
    )
)
def test_the_pages_joined_are_the_pieces_each_page_whole_pieces(pieces: list[list[str]]) -> None:
    import json

    texts = ["".join(text + "\r\n" for text in lines) for lines in pieces]
    size = 48
    cut = [json.loads(page) for page in pages(texts, size)]
    assert "".join(cut) == "".join(texts) and cut
    left = list(texts)
    for raw, page in zip(pages(texts, size), cut, strict=True):
        held: list[str] = []  # the whole pieces the page holds, in order
        while left and page.startswith("".join([*held, left[0]])):
            held.append(left.pop(0))
        assert "".join(held) == page
        assert len(raw) - 2 <= size or len(held) == 1  # or is one longer piece
    assert not left


def ready(reader: ResultsCsv, page: int, version: str | None, seq: int) -> dict[str, Any]:
    """The reader's reply once its thread has read (it asks again as the client does)."""
    import json

    deadline = time.monotonic() + 20
    while True:
        reply = reader.reply(page, version, seq)
        if not isinstance(reply, dict):
            out: dict[str, Any] = json.loads(bytes(reply))
            return out
        assert time.monotonic() < deadline, "never ready"
        time.sleep(0.01)


def read_on(reader: ResultsCsv, first: dict[str, Any], seq: int) -> list[dict[str, Any]]:
    """``first`` and the pages after it, asked for in turn."""
    out, page = [first], first
    while page["next"] is not None:
        page = ready(reader, page["next"], first["version"], seq)
        out.append(page)
    return out


def test_a_reader_whose_text_was_made_again_starts_from_its_first_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = tmp_path / "journal.sqlite"
    season(journal)
    monkeypatch.setattr(results_csv, "PAGE_BYTES", 400)  # a few rows a page
    reader = ResultsCsv(journal)
    try:
        with Scorekeeper.open(journal, readonly=True) as keeper:
            seq = int(keeper.status()["seq"])
        first = ready(reader, 0, None, seq)  # one client's first page
        assert first["page"] == 0 and first["next"] == 1
        others = read_on(reader, first, seq)  # another client reads them all: they are dropped
        assert len(others) > 2 and "".join(p["text"] for p in others) == load_csv(journal)
        with Scorekeeper.open(journal) as keeper:  # then a game ends
            DemoGame(seed=11, names=("Erin", "Dave"), keeper=keeper).play()
            seq = int(keeper.status()["seq"])
        again = ready(reader, 1, first["version"], seq)  # the first client goes on
        assert again["page"] == 0 and again["version"] != first["version"]
        text = "".join(p["text"] for p in read_on(reader, again, seq))
        assert text == load_csv(journal) and "Erin" in text
    finally:
        reader.close()


def test_entries_made_while_a_client_waits_do_not_keep_it_waiting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer counting the events of a client's first ask (``since``) will do: else a board
    whose players keep entering would have the reader start again for ever."""
    monkeypatch.setattr(results_csv, "PAGE_BYTES", 400)  # page 0 is not the last
    journal = tmp_path / "journal.sqlite"
    season(journal)
    with Scorekeeper.open(journal, readonly=True) as keeper:
        seq = int(keeper.status()["seq"])
    export, records = ResultsCsv(journal), JournalRecords(journal)
    try:
        ready(export, 0, None, seq)
        deadline = time.monotonic() + 20
        while not records.reply(seq)["ready"]:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        later = seq + 3  # three entries made since
        assert isinstance(export.reply(0, None, later, since=seq), Encoded)
        assert records.reply(later, since=seq)["ready"]
        assert export.reply(0, None, later) == {"ready": False, "seq": seq, "events": later}
        assert records.reply(later)["ready"] is False
    finally:
        export.close()
        records.close()


def test_a_reader_thread_runs_at_the_lowest_priority_the_loop_at_its_own(tmp_path: Path) -> None:
    """Where the CPU is short the loop's presses go first: each reader's thread is nice 19."""
    import os

    journal = tmp_path / "journal.sqlite"
    season(journal)
    seen: list[int] = []

    class Watched(ResultsCsv):
        def _catch_up(self, path: Path) -> Any:
            seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
            return super()._catch_up(path)

    loop_nice = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    reader = Watched(journal)
    try:
        with Scorekeeper.open(journal, readonly=True) as keeper:
            ready(reader, 0, None, int(keeper.status()["seq"]))
    finally:
        reader.close()
    assert seen == [19]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == loop_nice


@given(
    st.lists(st.lists(st.text(max_size=12), max_size=4), max_size=14),
    st.integers(min_value=1, max_value=5),
)
def test_kept_bodies_decoded_a_few_at_a_time_are_each_decoded_alone(
    bodies: list[list[str]], at_once: int
) -> None:
    import json

    from boardctl.results.kept import _decoded

    stored = [json.dumps(rows) for rows in bodies]  # as the journal keeps them
    pieces = list(_decoded("1,b,", stored, at_once))
    assert "".join(pieces) == "".join("1,b," + row for rows in bodies for row in rows)
    assert len(pieces) == -(-len(bodies) // at_once)


@given(
    st.lists(st.lists(st.text(max_size=12), max_size=4), max_size=14),
    st.text(max_size=6),
    st.integers(min_value=1, max_value=5),
)
def test_kept_bodies_escaped_without_decoding_are_the_decoded_text_as_json(
    bodies: list[list[str]], before: str, at_once: int
) -> None:
    """Quotes, commas, backslashes and any other character in a row or a board id."""
    import json

    from boardctl.results.kept import _decoded, _escaped

    stored = [json.dumps(rows, separators=(",", ":"), ensure_ascii=False) for rows in bodies]
    escaped = "".join(_escaped(before, stored, at_once))
    assert json.loads(f'"{escaped}"') == "".join(_decoded(before, stored, at_once))


def test_the_readers_modules_imported_after_a_start_are_all_a_first_export_needs(
    tmp_path: Path,
) -> None:
    """The thread that checks the journal after READY imports them (import_readers): in a
    fresh interpreter, an export made after that imports no module of boardctl's."""
    import subprocess
    import sys

    journal = tmp_path / "journal.sqlite"
    season(journal)
    code = (
        "import sys\n"
        "from boardctl.service.journal_reader import import_readers\n"
        "from boardctl.service.results_csv import ResultsCsv\n"
        "import_readers()\n"
        "before = set(sys.modules)\n"
        f"ResultsCsv(None)._catch_up(__import__('pathlib').Path({str(journal)!r}))\n"
        "print(sorted(m for m in set(sys.modules) - before if m.startswith('boardctl')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_verb_fetches_the_pages_at_nice_10_the_calling_thread_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the CPU is short, decoding the pages must leave the board's loop its presses."""
    import argparse
    import os

    from boardctl.cli import cmd_results

    seen: list[tuple[str, int]] = []

    def pages(path: str) -> str:
        seen.append((path, os.getpriority(os.PRIO_PROCESS, threading.get_native_id())))
        return "text"

    monkeypatch.setattr(cmd_results, "socket_path", lambda args: "the.sock")
    monkeypatch.setattr(cmd_results, "_pages", pages)
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert cmd_results.csv_from_service(argparse.Namespace()) == "text"
    assert seen == [("the.sock", max(own, 10))]
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own
    from boardctl.errors import ControlError

    def refused(path: str) -> str:
        raise ControlError(f"{path}: the service sent a malformed results page")

    monkeypatch.setattr(cmd_results, "_pages", refused)
    with pytest.raises(ControlError, match=r"the\.sock: the service sent a malformed"):
        cmd_results.csv_from_service(argparse.Namespace())  # raised in the calling thread


def test_an_ask_as_a_read_ends_starts_the_next_read_without_waiting_for_its_thread(
    tmp_path: Path,
) -> None:
    """Once a thread has published, an ask that wants more starts the next read at once (a
    held request is asked again when the loop is woken: by then the thread may not have
    ended, and nothing would wake the loop again)."""
    journal = tmp_path / "journal.sqlite"
    season(journal)
    with Scorekeeper.open(journal, readonly=True) as keeper:
        seq = int(keeper.status()["seq"])
    reader = ResultsCsv(journal)
    published, release = threading.Event(), threading.Event()

    def woken() -> None:  # the loop is woken here: the thread stays alive until released
        published.set()
        release.wait(20)

    reader.on_publish = woken
    try:
        assert reader.reply(0, None, seq) == {"ready": False, "seq": 0, "events": seq}
        assert published.wait(20)
        first = reader._reader
        assert first is not None and first.is_alive() and not reader.reading()
        assert reader.reply(0, None, seq + 1)["ready"] is False  # more than the first counts
        assert reader.reading() and reader._reader is not first
    finally:
        release.set()
        reader.close()
