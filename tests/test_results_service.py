"""``boardctl results --csv`` and ``stats players`` answered by the running service.

A real ``boardctl run`` on mock pins over a journal of real games; the two verbs asked
through its socket print what they print reading the journal themselves, signed as they
sign when the board has a key; the CSV's pages, joined, are the text for any page size,
and a reader whose text was made again from a newer journal starts over from its first
page. (Which modules such a verb loads: ``tests/test_cli_lean.py``.)
"""

from __future__ import annotations

import os
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
from boardctl.service.results_csv import ResultsCsv
from boardctl.service.wire import WithFile
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


def ready(reader: ResultsCsv, seq: int) -> tuple[dict[str, Any], str]:
    """The reader's reply once its thread has read (it asks again as the client does), and
    the text of the file passed with it."""
    deadline = time.monotonic() + 20
    while True:
        reply = reader.reply(seq)
        if isinstance(reply, WithFile):
            with reply.file:
                return reply.result, os.pread(reply.file.fileno(), 1 << 24, 0).decode()
        assert time.monotonic() < deadline, "never ready"
        time.sleep(0.01)


def test_the_text_is_passed_once_in_a_sealed_file_and_made_again_after_a_game(
    tmp_path: Path,
) -> None:
    journal = tmp_path / "journal.sqlite"
    season(journal)
    reader = ResultsCsv(journal)
    try:
        with Scorekeeper.open(journal, readonly=True) as keeper:
            seq = int(keeper.status()["seq"])
        made = reader._reader
        result, text = ready(reader, seq)
        assert text == load_csv(journal) and result == {
            "seq": seq,
            "linked": 0,
            "bytes": len(text.encode()),
        }
        reply = reader.reply(seq)  # passed once: the next ask makes the text again
        assert reply == {"ready": False, "seq": seq, "events": seq} and reader._reader is not made
        with Scorekeeper.open(journal) as keeper:  # then a game ends
            DemoGame(seed=11, names=("Erin", "Dave"), keeper=keeper).play()
            seq = int(keeper.status()["seq"])
        result, text = ready(reader, seq)
        assert text == load_csv(journal) and "Erin" in text and result["seq"] == seq
    finally:
        reader.close()


def test_the_file_is_sealed_no_one_writes_shrinks_or_grows_it() -> None:
    file, size = results_csv.sealed_file(["a,b\r\n", "é\r\n"])
    with file:
        assert size == len("a,b\r\né\r\n".encode()) == os.fstat(file.fileno()).st_size
        for change in (
            lambda: os.pwrite(file.fileno(), b"x", 0),
            lambda: os.ftruncate(file.fileno(), 1),
            lambda: os.pwrite(file.fileno(), b"x", size),
        ):
            with pytest.raises(PermissionError):
                change()


def test_entries_made_while_a_client_waits_do_not_keep_it_waiting(tmp_path: Path) -> None:
    """An answer counting the events of a client's first ask (``since``) will do: else a board
    whose players keep entering would have the reader start again for ever."""
    journal = tmp_path / "journal.sqlite"
    season(journal)
    with Scorekeeper.open(journal, readonly=True) as keeper:
        seq = int(keeper.status()["seq"])
    export, records = ResultsCsv(journal), JournalRecords(journal)
    try:
        ready(export, seq)  # (passed: the next ask makes the text again)
        assert export.reply(seq)["ready"] is False
        deadline = time.monotonic() + 20
        while export.reading() or not records.reply(seq)["ready"]:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        later = seq + 3  # three entries made since
        assert export.reply(later) == {"ready": False, "seq": seq, "events": later}
        assert records.reply(later)["ready"] is False
        while export.reading():  # (the read that ask started counts the same events)
            time.sleep(0.01)
        reply = export.reply(later, since=seq)
        assert isinstance(reply, WithFile) and reply.result["seq"] == seq
        reply.file.close()
        assert records.reply(later, since=seq)["ready"]
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
            ready(reader, int(keeper.status()["seq"]))
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
        assert reader.reply(seq) == {"ready": False, "seq": 0, "events": seq}
        assert published.wait(20)
        first = reader._reader
        assert first is not None and first.is_alive() and not reader.reading()
        assert reader.reply(seq + 1)["ready"] is False  # more than the first counts
        assert reader.reading() and reader._reader is not first
    finally:
        release.set()
        reader.close()


def test_the_verbs_that_read_the_whole_journal_run_at_nice_10_as_typed_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the CPU is short, the board's buttons go first; a call from Python (a test, a
    script) keeps its own priority."""
    import subprocess
    import sys

    missing = str(tmp_path / "missing")
    code = (
        "import os, sys\n"
        f"sys.argv = ['boardctl', 'results', '--verify', {missing!r}, '--key', {missing!r}]\n"
        "from boardctl.cli import main\n"
        "main()\n"
        "print(os.getpriority(os.PRIO_PROCESS, 0))\n"
    )
    typed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert typed.stdout.strip() == str(max(own, 10)) and "cannot read" in typed.stderr
    assert main(["results", "--verify", missing, "--key", missing]) == 1
    assert os.getpriority(os.PRIO_PROCESS, 0) == own
