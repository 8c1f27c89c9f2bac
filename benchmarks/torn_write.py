"""A torn-write simulator: the journal opened at every point a power cut could leave it.

Run from the repository root::

    PYTHONPATH=. python benchmarks/torn_write.py [--entries 40]

A child process appends ``--entries`` entries through the real
:class:`~boardctl.game.keeper.Scorekeeper` and closes it. An LD_PRELOAD shim
(``tests/native/record_writes.c``, built here with ``cc``) records, in order,
every write (with its bytes and offset), truncate, unlink and fsync of the
journal's three files (the database, ``-wal``, ``-mark``); the child adds a
record when it begins an entry and when ``apply`` returns (the entry is
acknowledged). A shim rather than strace because the simulator needs the
written bytes (strace would need a huge ``-s`` and hex parsing), and rather
than a Python VFS because the writes to watch are SQLite's own, made in C.

From the record a crash image is built at every cut point: after each
write, truncate and unlink, and with each write torn at every 512-byte
sector boundary inside it. The model: everything before the cut reached the
disk, the write at the cut reached it up to a sector boundary, nothing after
did (the ``-shm`` index is never on disk; file creation is taken as
durable). Two more families: each file exactly as at its own last fsync
(after each fsync and unlink), and, after each write to the database or
``-wal``, one earlier write of that file since its last fsync lost (the
disk reordered them). Each image is opened read-write with ``Scorekeeper.open``, as the
service opens it, and checked:

- *acknowledged lost*: an entry acknowledged before the cut is missing
  (stricter than "before the last fsync": every acknowledgement follows its
  fsync);
- *unreported damage*: the open raised anything but a :class:`JournalError`
  saying damaged/recovered, or it succeeded with fewer entries than were
  acknowledged and no damage report (only the entry in flight may go
  silently).

Both goals are 0. ``tests/test_torn_write.py`` runs a small case in CI.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from boardctl.errors import JournalError
from boardctl.game.keeper import Scorekeeper

ROOT = Path(__file__).resolve().parent.parent
SHIM = ROOT / "tests" / "native" / "record_writes.c"
SECTOR = 512
SETUP = {"variant": "six-card", "mode": "free"}
SUFFIXES = {"db": "", "wal": "-wal", "mark": "-mark"}

CHILD = """
import os, sys
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
log = os.open(os.environ["RECORD_LOG"], os.O_WRONLY | os.O_APPEND)
os.write(log, b"B 1\\n")
keeper = Scorekeeper.open(sys.argv[1], setup={"variant": "six-card", "mode": "free"})
os.write(log, b"A %d\\n" % keeper.seq)
for i in range(int(sys.argv[2])):
    os.write(log, b"B %d\\n" % (keeper.seq + 1))
    keeper.apply(parse_command({"op": "peg", "track": i % 2, "points": 1}))
    os.write(log, b"A %d\\n" % keeper.seq)
    print(keeper.seq, flush=True)
keeper.close()
"""


@dataclass(frozen=True, slots=True)
class Op:
    """One recorded step: W(rite), S(ync), T(runcate), U(nlink), B(egin entry), A(cknowledged)."""

    code: str
    file: str = ""
    number: int = 0  # W: offset; T: length; A/B: the entry's seq
    data: bytes = b""


def build_shim(folder: Path) -> Path:
    library = folder / "record_writes.so"
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-O1", "-o", str(library), str(SHIM), "-ldl"], check=True
    )
    return library


def record(folder: Path, entries: int) -> list[Op]:
    """Run the child under the shim; the recorded steps, in order."""
    library = build_shim(folder)
    journal = (folder / "live" / "journal.sqlite").absolute()
    journal.parent.mkdir()
    log = folder / "record.log"
    log.touch()
    env = {
        **os.environ,
        "LD_PRELOAD": str(library),
        "RECORD_JOURNAL": str(journal),
        "RECORD_LOG": str(log),
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(journal), str(entries)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the recording child failed: {done.stderr}")
    acknowledged = [int(line) for line in done.stdout.split()]
    if acknowledged[-1:] != [entries + 1]:
        raise RuntimeError(f"the child acknowledged {acknowledged[-1:]}, not {entries + 1}")
    return parse_log(log.read_bytes())


def parse_log(data: bytes) -> list[Op]:
    ops: list[Op] = []
    at = 0
    while at < len(data):
        end = data.index(b"\n", at)
        words = data[at:end].decode().split()
        at = end + 1
        code = words[0]
        if code == "W":
            length = int(words[3])
            ops.append(Op("W", words[1], int(words[2]), data[at : at + length]))
            at += length
        elif code == "T":
            ops.append(Op("T", words[1], int(words[2])))
        elif code in ("S", "U"):
            ops.append(Op(code, words[1]))
        else:
            ops.append(Op(code, number=int(words[1])))
    return ops


Disk = dict[str, bytearray]


def _written(disk: Disk, op: Op, data: bytes) -> None:
    content = disk.setdefault(op.file, bytearray())
    if len(content) < op.number:
        content.extend(bytes(op.number - len(content)))
    content[op.number : op.number + len(data)] = data


def _apply(disk: Disk, op: Op) -> None:
    if op.code == "W":
        _written(disk, op, op.data)
    elif op.code == "T":
        content = disk.setdefault(op.file, bytearray())
        del content[op.number :]
        content.extend(bytes(max(0, op.number - len(content))))
    elif op.code == "U":
        disk.pop(op.file, None)


@dataclass(frozen=True, slots=True)
class Image:
    files: dict[str, bytes]
    acknowledged: int  # the highest seq acknowledged before the cut
    label: str


def images(ops: list[Op]) -> Iterator[Image]:
    """Every crash image: each write torn at each sector boundary, then after each step.

    Plus, after each fsync and unlink, the pessimistic image: every file as
    it was at its own last fsync (a file never synced is empty).
    """
    disk: Disk = {}
    synced: Disk = {}
    pending: dict[str, list[Op]] = {}  # each file's writes and truncates since its last fsync
    acknowledged = 0
    for index, op in enumerate(ops):
        if op.code == "A":
            acknowledged = op.number
        if op.code == "S":
            synced[op.file] = bytearray(disk.get(op.file, b""))
            pending[op.file] = []
        if op.code == "U":
            synced.pop(op.file, None)
            pending[op.file] = []
        if op.code in ("W", "T"):
            pending.setdefault(op.file, []).append(op)
        if op.code == "W":
            first = (op.number // SECTOR + 1) * SECTOR
            for boundary in range(first, op.number + len(op.data), SECTOR):
                torn = {name: bytearray(content) for name, content in disk.items()}
                _written(torn, op, op.data[: boundary - op.number])
                files = {name: bytes(content) for name, content in torn.items()}
                yield Image(files, acknowledged, f"step {index} torn at {boundary}")
        if op.code in ("W", "T", "U"):
            _apply(disk, op)
            files = {name: bytes(content) for name, content in disk.items()}
            yield Image(files, acknowledged, f"after step {index} ({op.code} {op.file})")
        if op.code in ("S", "U"):
            files = {name: bytes(synced.get(name, b"")) for name in disk}
            yield Image(files, acknowledged, f"step {index} ({op.code} {op.file}), synced only")
        if op.code == "W" and op.file != "mark":
            yield from _one_missing(disk, synced, pending[op.file], acknowledged, index)


def _one_missing(
    disk: Disk, synced: Disk, since_sync: list[Op], acknowledged: int, index: int
) -> Iterator[Image]:
    """The disk after step ``index`` with one earlier unsynced write of the same file lost."""
    for lost in range(len(since_sync) - 1):  # (the last one lost is the plain cut before it)
        name = since_sync[lost].file
        content: Disk = {name: bytearray(synced.get(name, b""))}
        for number, op in enumerate(since_sync):
            if number != lost:
                _apply(content, op)
        files = {other: bytes(data) for other, data in disk.items()}
        files[name] = bytes(content[name])
        yield Image(files, acknowledged, f"after step {index}, unsynced write {lost} lost")


@dataclass(slots=True)
class Tally:
    built: int = 0
    clean: int = 0
    reported: int = 0
    acknowledged_lost: int = 0
    unreported: int = 0
    kept: set[int] = field(default_factory=set)  # the entry counts the images opened with
    examples: list[str] = field(default_factory=list)

    def bad(self, image: Image, what: str) -> None:
        if len(self.examples) < 10:
            self.examples.append(f"{image.label}: {what}")


def check(image: Image, folder: Path, tally: Tally) -> None:
    """Open ``image`` as the service would and count what it shows."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    journal = folder / "journal.sqlite"
    for name, content in image.files.items():
        Path(f"{journal}{SUFFIXES[name]}").write_bytes(content)
    tally.built += 1
    try:
        keeper = Scorekeeper.open(journal, setup=SETUP, owner="service")
    except JournalError as exc:
        text = str(exc)
        if "damaged" in text or "recovered" in text:
            tally.reported += 1
        else:
            tally.unreported += 1
            tally.bad(image, f"open failed without a damage report: {text}")
        if image.acknowledged > 0:  # nothing can be read: every acknowledged entry is gone
            tally.acknowledged_lost += 1
            tally.bad(image, f"{image.acknowledged} acknowledged, the journal does not open")
        return
    except Exception as exc:  # anything else is a failure to count
        tally.unreported += 1
        tally.bad(image, f"open raised {type(exc).__name__}: {exc}")
        return
    try:
        seq = keeper.seq
        journal_damage = keeper.journal.damage if keeper.journal else None
        damaged = journal_damage is not None or "journal_damage" in keeper.status()
    finally:
        keeper.close()
    tally.kept.add(seq)
    if seq < image.acknowledged:
        tally.acknowledged_lost += 1
        tally.bad(image, f"{image.acknowledged} acknowledged, {seq} kept")
    if damaged:
        tally.reported += 1
    elif seq < image.acknowledged:
        tally.unreported += 1
        tally.bad(image, f"entries missing without a damage report ({seq} kept)")
    else:
        tally.clean += 1


def simulate(entries: int, folder: Path) -> Tally:
    ops = record(folder, entries)
    tally = Tally()
    for image in images(ops):
        check(image, folder / "image", tally)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=40)
    args = parser.parse_args()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="torn-") as folder:
        tally = simulate(args.entries, Path(folder))
    elapsed = time.perf_counter() - start
    print(f"entries appended:     {args.entries} (+ the new-game event)")
    print(f"images built:         {tally.built}")
    print(f"opened clean:         {tally.clean}")
    print(f"damage reported:      {tally.reported}")
    print(f"acknowledged lost:    {tally.acknowledged_lost} (goal 0)")
    print(f"unreported damage:    {tally.unreported} (goal 0)")
    print(f"entry counts seen:    {min(tally.kept, default=0)}..{max(tally.kept, default=0)}")
    print(f"time:                 {elapsed:.1f} s")
    for line in tally.examples:
        print(f"  {line}")
    return 0 if tally.acknowledged_lost == tally.unreported == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
