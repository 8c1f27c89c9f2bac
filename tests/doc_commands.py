"""Every ``boardctl`` command the docs show, run as written against a virtual board.

``python -m tests.doc_commands [--markdown FILE]`` prints one row per command
line of README.md, docs/*.md, hardware/*.md and firmware/README.md (fenced and
indented code blocks and inline code): where it is written (file:line), what
ran, its exit status and the first line it printed, or why it cannot run here.

The virtual board is a real ``boardctl run --display none`` on mock pins in a
temporary HOME and XDG_RUNTIME_DIR, so the docs' default socket and journal
paths apply; ``boardctl mqtt`` and ``standings`` meet a test mosquitto on the
docs' default broker (localhost:1883) when that port is free. Before each
command the board is put into a game state that fits it (:data:`SCENE_RULES`)
through the control socket, as any client would. A usage synopsis
(``boardctl peg TRACK POINTS [--kind KIND]``) runs in its shortest form with its
placeholders filled from :data:`EXAMPLES`, and every option it names must be
one its verb's ``--help`` lists. The output a block shows after a ``$ `` prompt
must be the real one (``...`` for any lines). What cannot run here (a Pico,
real GPIO, an installed board) is listed with the reason (:data:`NOT_HERE`).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardctl.errors import ControlError
from tests.mqtt_broker import Broker, have_mosquitto

ROOT = Path(__file__).resolve().parent.parent


def doc_files(root: Path = ROOT) -> list[Path]:
    """The documents whose commands are checked, in a fixed order."""
    return [
        root / "README.md",
        *sorted((root / "docs").glob("*.md")),
        *sorted((root / "hardware").glob("*.md")),
        root / "firmware" / "README.md",
    ]


@dataclass(frozen=True)
class Documented:
    """One command line as a document writes it."""

    file: str  # relative to the repository
    line: int  # 1-based, where the command starts
    text: str  # as written, prompt and trailing comment removed
    inline: bool  # inline code (True) or a code block line (False)
    shown: tuple[str, ...] = ()  # the output a block shows after a "$ " prompt

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


_FENCE = re.compile(r"^\s*(```|~~~)")
# boardctl as a command word: bare, a path to it, or after sudo (-u USER)
_COMMAND_WORD = (
    r"(?:sudo\s+(?:-u\s+\S+\s+)?)?(?:\S*bin/)?boardctl"
    r"|(?:PYTHONPATH=\S+\s+)?python3?\s+-m\s+boardctl"
)
# ... followed by a verb or an option: not the bare name, not a message ("boardctl: error")
_ARGUMENT = r"\s+(?:-|[a-z][a-z-]*(?:\s|$))"
_STARTS = re.compile(r"^(?:\$\s+)?(?:" + _COMMAND_WORD + ")" + _ARGUMENT)
_CHAINED = re.compile(r"(?:\||&&|;)\s*(?:" + _COMMAND_WORD + ")" + _ARGUMENT)


def _is_command(text: str) -> bool:
    return bool(_STARTS.match(text)) or bool(_CHAINED.search(text))


def _strip_comment(line: str) -> str:
    """Drop a shell comment (`` # ...`` outside quotes) and a ``$ `` prompt."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            line = line[:index]
            break
    line = line.strip()
    return line[2:].lstrip() if line.startswith("$ ") else line


def _inline_commands(text: str) -> list[tuple[int, str]]:
    """(offset, command) of every inline boardctl command of a paragraph.

    A span right after a command's, joined by `` · `` (``boardctl key init`` · ``key id``),
    is another verb of the same program.
    """
    found: list[tuple[int, str]] = []
    after_command = -1  # where the last command's span ended
    for match in re.finditer(r"(?<!`)`([^`]+)`(?!`)", text):
        content = " ".join(match.group(1).replace("\\|", "|").split())
        if text[after_command : match.start()] == " · " and re.match(r"[a-z][a-z-]*( |$)", content):
            content = "boardctl " + content
        if _STARTS.match(content):
            found.append((match.start(), content))
            after_command = match.end()
    return found


def extract(path: Path, root: Path = ROOT) -> list[Documented]:
    """Every boardctl command line of one Markdown file, in order."""
    name = path.relative_to(root).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Documented] = []
    paragraph: list[tuple[int, str]] = []  # (line number, text) of prose lines

    def flush() -> None:
        if not paragraph:
            return
        starts = [0]
        for _, text in paragraph:
            starts.append(starts[-1] + len(text) + 1)
        joined = " ".join(text for _, text in paragraph)
        for offset, content in _inline_commands(joined):
            line_index = max(i for i, start in enumerate(starts[:-1]) if start <= offset)
            found.append(Documented(name, paragraph[line_index][0], content, True))
        paragraph.clear()

    fenced = indented = prompted = False
    previous_blank = True
    for number, line in enumerate(lines, start=1):
        if _FENCE.match(line):
            flush()
            fenced, prompted = not fenced, False
            continue
        indented = line.startswith("    ") and (previous_blank or indented)
        previous_blank = not line.strip()
        command = _strip_comment(line)
        if (fenced or indented) and _is_command(command):
            found.append(Documented(name, number, command, False))
            prompted = line.strip().startswith("$ ")
            continue
        if (fenced or indented) and prompted and not line.strip().startswith("$"):
            last = found[-1]
            shown = (*last.shown, line[4:] if indented else line)
            found[-1] = Documented(last.file, last.line, last.text, False, shown)
            continue
        prompted = prompted and (fenced or indented)
        if fenced:
            continue
        if line.strip():
            paragraph.append((number, line))
        else:
            flush()
    flush()
    return found


def documented_commands(root: Path = ROOT) -> list[Documented]:
    """Every documented boardctl command line, document by document."""
    return [command for path in doc_files(root) for command in extract(path, root)]


# -- what each command needs ---------------------------------------------------------------

# Placeholders of usage lines, per verb (None: any verb). A list is used in order.
EXAMPLES: dict[tuple[str | None, str], str | list[str]] = {
    (None, "TRACK"): "1",
    (None, "POINTS"): "2",
    (None, "KIND"): "pegging",
    (None, "N"): "1",
    (None, "best-of-N"): "best-of-3",
    (None, "FILE"): "board.key",
    (None, "PATH"): "manual.jsonl",
    (None, "J"): "game.sqlite",  # a journal
    (None, "CARD"): "5S",
    (None, "KEY"): "mode",
    (None, "VALUE"): "guided",
    (None, "Alice,Bob,..."): "Alice,Bob,Carol,Dave",
    (None, "<board-id>"): "table-1",
    (None, "BOARD"): "table-1",
    (None, "NAME=SCORE"): ["Ann=121", "Bob=87"],
    ("rules", "NAME"): "czech",
    ("peg", "CARDS…"): "5H 5D JS QC",
    ("peg", "CARDS"): "5H 5D JS QC",
    ("peg", "…"): "1 2",
    ("score", "CARDS…"): "5H 5C 5S JD 5D",
    ("score", "..."): "5H 5C 5S JD 5D",
    ("discard", "CARDS…"): "5H JH 6C 7D KS 2C",
    ("discard", "CARDS"): "5H JH 6C 7D KS 2C",
    ("discard", "..."): "5H JH 6C 7D KS 2C",
    ("key add", "FILE"): "table-1.key",
    ("stats players", "FILE"): "season.png",
    ("standings schedule", "PLAYER"): "Ann",
    ("standings schedule", "..."): "Bob Cat Dan",
    ("standings schedule", "N"): "2",
    ("standings close", "DATE"): "2026-11-24",  # not tonight: the bridge's results stay
}

# Usage lines whose shortest form needs one of its optional parts: the example that runs.
EXAMPLE_LINES = {
    # the starter is optional once the deal's starter is known; here it is not yet
    "boardctl peg TRACK [POINTS] --hand|--crib CARDS… [--starter CARD]": (
        "boardctl peg 1 --hand 5H 5D JS QC --starter 5S"
    ),
    # a PNG file or --text
    "boardctl snapshot [FILE.png] [--demo NAME | --state FILE|JSON|- | --journal P] [--text]": (
        "boardctl snapshot board.png"
    ),
}

# Outputs a doc shows from data of its own story: only their header's words are compared.
SHOWN_FROM_OTHER_DATA = {
    "boardctl standings --from night.jsonl": "the doc's own night of partnership games",
    "boardctl standings --from night.jsonl --by player": "the doc's own night of partnership games",
}

# Commands that read standard input when no file is named: what they are given here.
STDIN = {"boardctl results --verify": "results.csv"}

# Commands that cannot run here, by a pattern on the command as written, with the reason.
NOT_HERE: list[tuple[str, str]] = [
    (r"^boardctl firmware install", "needs a Raspberry Pi Pico on USB (mpremote copies the files)"),
    (r"^boardctl selftest", "needs the LED strip on a Pico and real buttons (real GPIO)"),
    (r"--display leds", "needs the LED strip on a Pico on USB"),
    (r"^boardctl fault-sign", "sends the fault sign to a Pico on USB (run by systemd on a board)"),
    (
        r"^sudo -u boardctl ",
        "on an installed board: the user boardctl and /opt/boardctl (systemd/install.sh)",
    ),
    (r"^sudo boardctl", "on an installed board: root's PATH has no boardctl here"),
    (
        r"pip install",
        "makes a virtualenv and installs the package in it from the checkout: "
        "tests/test_wheel_install.py does that with the built wheel and plays the demo",
    ),
    (
        r"^(\.venv/bin/)?boardctl run( --display none)?( &)?$",
        "starts the service: the checker's virtual board is this command "
        "(`boardctl run --display none`, with a buzzer on a mock pin); a second one on the same "
        "journal is refused by design",
    ),
]

NO_JQ = "needs jq (the Debian package), which this machine does not have"
MENTION = "names the verb in a sentence; its usage line is checked"
# A verb's name in prose, not a command line: it needs arguments the sentence does not give.
MENTIONS = {
    "boardctl score",
    "boardctl discard",
    "boardctl peg",
    "boardctl peg --hand",
    "boardctl key add",
    "boardctl snapshot",
    "boardctl snapshot --state",
    "boardctl stats players --png",
    "boardctl refile KIND",
}

# Commands that run until stopped: they pass when still running after LONG_RUNNING seconds.
RUNS_UNTIL_STOPPED = re.compile(
    r"^(\.venv/bin/)?boardctl (mqtt|web|web serve|standings --follow|watch)"
    r"( --(?!count|timeout)| \||$)"
)
LONG_RUNNING = 3.0

# The game state a command needs (first match wins; default "play").
SCENE_RULES: list[tuple[str, str]] = [
    (r"^boardctl cut --starter", "deal"),
    (r"^boardctl cut", "cut"),
    (r"^boardctl peg 1 --kind heels", "deal"),
    (r"^boardctl peg 1 .*(--hand|--crib|--kind hand)", "show1"),
    (r"^boardctl peg 2 .*(--hand|--crib|--kind hand)", "show2"),
    (r"^boardctl undo", "entry"),
    (r"^boardctl redo", "undone"),
    (r"^boardctl refile", "asks"),
    (r"^boardctl confirm", "unconfirmed"),
    (r"^boardctl restore \d", "stopped"),
    (r"^boardctl (mqtt|standings)", "broker"),
    (r"^boardctl key init", "first"),
    (r"night\.jsonl", "broker"),
    (r"^boardctl results --verify", "director"),
]
# Scenes run in this order; a command's own order inside its scene group is its first place.
SCENE_ORDER = ["first", "cut", "deal", "play", "entry", "undone", "show1", "show2", "asks"]
SCENE_ORDER += ["unconfirmed", "director", "broker", "stopped"]

_PLACEHOLDERS = {
    "TRACK", "POINTS", "KIND", "N", "FILE", "PATH", "CARD", "CARDS", "CARDS…", "KEY", "VALUE",
    "BOARD", "NAME", "DATE", "SEAT", "LIST", "JSON", "P", "S", "R", "V", "X", "T", "ADDR", "ID",
    "DIR", "PLAYER", "TIME", "NAME=SCORE", "<board-id>", "FILE.png", "best-of-N", "Alice,Bob,...",
    "…", "...", "J",
}  # fmt: skip
_SUBVERBS = {"stats", "key", "standings", "web", "mqtt", "firmware"}


def is_synopsis(text: str) -> bool:
    """A usage line (``[--json]``, ``TRACK``, ``a|b``), not a command to type as it is."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "''", text)  # quoted arguments are as written
    if re.search(r"[\[…<]|\.\.\.|\|(?! )|(?<! )\|", text):
        return True
    return any(word in _PLACEHOLDERS for word in text.split())


def _verb(words: list[str]) -> str:
    verb = words[:1]
    if words[:1] and words[0] in _SUBVERBS and len(words) > 1 and re.fullmatch(r"[a-z]+", words[1]):
        verb = words[:2]
    return " ".join(verb)


def _example(verb: str, word: str, used: dict[str, int]) -> str | None:
    for key in ((verb, word), (verb.split(" ")[0], word), (None, word)):
        if key in EXAMPLES:
            value = EXAMPLES[key]
            if isinstance(value, list):
                used[word] = used.get(word, -1) + 1
                return value[min(used[word], len(value) - 1)]
            return value
    return None


def fill(text: str) -> tuple[str, str]:
    """The shortest form of a usage line with its placeholders filled, and its verb.

    Optional ``[...]`` parts are left out, ``a|b`` takes ``a``; a placeholder with no
    example raises ``KeyError``.
    """
    while True:
        shorter = re.sub(r"\[[^\[\]]*\]", "", text)
        if shorter == text:
            break
        text = shorter
    program = re.match(_COMMAND_WORD, text)
    assert program is not None, text
    words = text[program.end() :].replace("<board id>", "<board-id>").split()
    verb = _verb(words)
    out, used = [program.group()], dict[str, int]()
    for word in words:
        if "|" in word:
            word = word.split("|")[0]
        if word in _PLACEHOLDERS or word.endswith("…"):
            example = _example(verb, word, used)
            if example is None and word in ("…", "..."):
                continue
            if example is None:
                raise KeyError(f"no example value for {word} of boardctl {verb}")
            word = example
        out.append(word)
    return " ".join(out), verb


@dataclass(frozen=True)
class Plan:
    """How one documented command is run here, or why not."""

    text: str  # as written
    command: str = ""  # what runs (the text, or a usage line filled in)
    scene: str = "play"
    reason: str = ""  # why it does not run here
    until_stopped: bool = False
    verb: str = ""  # a usage line's verb, whose --help must name its options


def plan(text: str) -> Plan:
    """What to run for a documented command line."""
    if text in MENTIONS:
        return Plan(text, reason=MENTION)
    for pattern, reason in NOT_HERE:
        if re.search(pattern, text):
            return Plan(text, reason=reason)
    if re.search(r"\|\s*jq\b", text) and not shutil.which("jq"):
        return Plan(text, reason=NO_JQ)
    command, verb = text, ""
    if is_synopsis(text):
        try:
            command, verb = fill(text)
        except KeyError as exc:
            return Plan(text, reason=f"usage line: {exc.args[0]} (add it to EXAMPLES)")
        command = EXAMPLE_LINES.get(text, command)
        for pattern, reason in NOT_HERE:
            if re.search(pattern, command):
                return Plan(text, command, reason=reason)
    if command in STDIN:
        command += " < " + STDIN[command]
    scene = next((name for pattern, name in SCENE_RULES if re.search(pattern, command)), "play")
    until_stopped = bool(RUNS_UNTIL_STOPPED.search(command))
    return Plan(text, command, scene, until_stopped=until_stopped, verb=verb)


# -- the virtual board --------------------------------------------------------------------

DOCS_BROKER_PORT = 1883  # [mqtt] port 0 = 1883 on localhost: the docs' default broker
SERVICE_CONFIG = '[link]\nkind = "null"\n\n[sound]\nbuzzer = 12\n'  # a piezo on a mock pin


def _port_free(port: int) -> bool:
    import socket

    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as mosquitto listens
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class VirtualBoard:
    """``boardctl run --display none`` on mock pins in a temporary HOME, and what it needs.

    The journal starts with six finished demo games between Alice and Bob, so
    results, records and the season's picture have games to show.
    """

    def __init__(self, folder: Path) -> None:
        import os
        import sys

        self.folder = folder
        self.home = folder / "home"
        self.runtime = folder / "run"
        self.work = folder / "work"  # the commands' working folder
        for path in (self.home, self.runtime, self.work / "docs" / "images"):
            path.mkdir(parents=True, exist_ok=True)
        self.runtime.chmod(0o700)
        bin_dir = Path(sys.executable).parent
        (self.work / ".venv").mkdir(exist_ok=True)
        if not (self.work / ".venv" / "bin").exists():
            (self.work / ".venv" / "bin").symlink_to(bin_dir)
        keep = ("PATH", "LANG", "LC_ALL", "TZ", "TERM")
        self.env = {key: os.environ[key] for key in keep if key in os.environ}
        self.env.update(
            HOME=str(self.home),
            XDG_RUNTIME_DIR=str(self.runtime),
            PATH=f"{bin_dir}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            PYTHONUNBUFFERED="1",
        )
        self.journal = self.home / ".local" / "state" / "boardctl" / "journal.sqlite"
        self.socket = self.runtime / "boardctl" / "control.sock"
        self.config = folder / "service.toml"
        self.config.write_text(SERVICE_CONFIG)
        self.service: subprocess.Popen[bytes] | None = None
        self.broker: Broker | None = None

    # the service

    def start(self) -> None:
        self.journal.parent.mkdir(parents=True, exist_ok=True)
        # the board id of its results, as the docs' examples name it (boardctl key add table-1 ...)
        (self.journal.parent / "board-id").write_text("table-1\n")
        demo = ["boardctl", "demo", "--games", "6", "--seed", "3", "--speed", "0"]
        demo += ["--display", "none", "--journal", str(self.journal)]
        subprocess.run(demo, env=self.env, cwd=self.work, check=True, capture_output=True)
        command = ["boardctl", "run", "--display", "none", "--config", str(self.config)]
        log = (self.folder / "service.log").open("ab")
        self.service = subprocess.Popen(
            command, env=self.env, cwd=self.work, stdin=subprocess.DEVNULL, stdout=log, stderr=log
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                self.op({"op": "ping"})
                return
            except ControlError:
                if self.service.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        "the service did not start: " + (self.folder / "service.log").read_text()
                    ) from None
                time.sleep(0.1)

    def stop(self) -> None:
        if self.service is not None and self.service.poll() is None:
            self.service.terminate()
            self.service.wait(30)

    def op(self, message: dict[str, Any]) -> Any:
        from boardctl.service.client import request

        return request(self.socket, message, timeout=30)

    # the broker

    def start_broker(self) -> str:
        """Start mosquitto on the docs' default port; '' or why it cannot."""
        if not have_mosquitto():
            return "needs mosquitto (the Debian package)"
        if not _port_free(DOCS_BROKER_PORT):
            return f"needs the docs' default broker port {DOCS_BROKER_PORT}, which is in use here"
        self.broker = Broker(self.folder / "broker", persistence=False, port=DOCS_BROKER_PORT)
        self.broker.start()
        return ""

    def close(self) -> None:
        self.stop()
        if self.broker is not None:
            self.broker.close()

    # scenes: the game state a command needs, made through the control socket

    def scene(self, name: str) -> None:
        if name in ("stopped", "first", "director", "broker"):
            name = "play"
        free = name == "unconfirmed"
        self.op(
            {
                "op": "new_game",
                "variant": "six-card",
                "players": 2,
                "target": 121,
                "preset": "acc",
                "mode": "free" if free else "guided",
                "match": 0,
                "rules": "acc",
                "house_rules": [],
                "names": ["Alice", "Bob"],
                "confirm_result": free,
            }
        )
        steps: dict[str, list[dict[str, Any]]] = {
            "cut": [],
            "deal": [{"op": "cut", "dealer": 0}],
            "play": [{"op": "cut", "dealer": 0}, {"op": "next"}],
            "entry": [{"op": "cut", "dealer": 0}, {"op": "next"}, _peg(0, 2)],
            "undone": [{"op": "cut", "dealer": 0}, {"op": "next"}, _peg(0, 2), {"op": "undo"}],
            "show1": [{"op": "cut", "dealer": 1}, {"op": "next"}, {"op": "next"}],
            "show2": [{"op": "cut", "dealer": 0}, {"op": "next"}, {"op": "next"}],
            "asks": [{"op": "cut", "dealer": 1}, _peg(1, 2)],
            "unconfirmed": [_peg(0, 29, "hand")] * 5,
        }
        for step in steps[name]:
            self.op(step)


def _peg(track: int, points: int, kind: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"op": "peg", "track": track, "points": points}
    if kind:
        message["kind"] = kind
    return message


# -- running them -------------------------------------------------------------------------


@dataclass
class Result:
    """One documented command line and what it did."""

    documented: Documented
    plan: Plan
    exit: int | None = None  # None: not run, or still running when stopped
    first_line: str = ""
    ran_until_stopped: bool = False
    missing_options: tuple[str, ...] = ()
    seconds: float = 0.0
    output: str = ""

    @property
    def shown_differs(self) -> str:
        """Where the output the doc shows differs from the real one ('' if it does not)."""
        shown = self.documented.shown
        if not shown or not self.ran:
            return ""
        actual = self.output.splitlines()
        if self.documented.text in SHOWN_FROM_OTHER_DATA:
            # the header's words (its columns are as wide as the names); the rows are the doc's
            shown = (" ".join(shown[0].split()),)
            actual = [" ".join(line.split()) for line in actual[:1]]
        return output_differs(shown, actual)

    @property
    def ran(self) -> bool:
        return not self.plan.reason

    @property
    def ok(self) -> bool:
        """Ran as the doc says: exit 0, or still running for a command that runs until stopped;
        and every option it names is one its verb's --help lists."""
        if self.missing_options or self.shown_differs:
            return False
        if not self.ran:
            return True
        if "Traceback (most recent call last)" in self.output:
            return False
        if self.plan.until_stopped:
            return self.ran_until_stopped
        return self.exit == 0

    @property
    def outcome(self) -> str:
        if not self.ran:
            missing = "; --help does not list " + ", ".join(self.missing_options)
            return "not run: " + self.plan.reason + (missing if self.missing_options else "")
        if self.plan.until_stopped:
            status = (
                f"running after {LONG_RUNNING:g} s, stopped"
                if self.ran_until_stopped
                else f"exit {self.exit}"
            )
        else:
            status = f"exit {self.exit}"
        if self.missing_options:
            status += "; --help does not list " + ", ".join(self.missing_options)
        if "Traceback (most recent call last)" in self.output:
            status += "; printed a traceback"
        if self.documented.shown:
            differs = self.shown_differs
            status += (
                f"; output differs from the doc's: {differs}" if differs else "; output as shown"
            )
        return status


def alone(command: str) -> bool:
    """A command that touches neither the board nor a file another command reads: a demo that
    keeps its games in memory (``boardctl demo --games 200`` plays for half a minute)."""
    words = command.split()
    return words[:2] == ["boardctl", "demo"] and not {"--journal", ">", "|"} & set(words)


def timed(board: VirtualBoard, command: str, until_stopped: bool) -> tuple[int | None, str, float]:
    """:func:`run_command`, with its seconds."""
    started = time.monotonic()
    status, output = run_command(board, command, until_stopped)
    return status, output, time.monotonic() - started


def run_command(board: VirtualBoard, command: str, until_stopped: bool) -> tuple[int | None, str]:
    """Run one command line in bash as written; (exit status or None if still running, output)."""
    import os
    import signal

    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=board.work,
        env=board.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=LONG_RUNNING if until_stopped else 120)
        return proc.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
        return None, out.decode(errors="replace")


def output_differs(shown: tuple[str, ...], actual: list[str]) -> str:
    """The first shown line the real output does not have in its place ('' if none).

    A line ``...`` in the doc stands for any lines; trailing spaces do not count.
    """
    actual = [line.rstrip() for line in actual]
    while actual and not actual[-1]:
        actual.pop()
    parts: list[list[str]] = [[]]
    for line in shown:
        if line.strip() == "...":
            parts.append([])
        else:
            parts[-1].append(line.rstrip())
    head, tail = parts[0], parts[-1] if len(parts) > 1 else []
    if actual[: len(head)] != head:
        bad = next(i for i, line in enumerate(head) if i >= len(actual) or actual[i] != line)
        return (
            f"line {bad + 1} is {actual[bad] if bad < len(actual) else '(none)'!r}, "
            f"the doc shows {head[bad]!r}"
        )
    if tail and actual[-len(tail) :] != tail:
        return f"the last lines are {actual[-len(tail) :]!r}, the doc shows {tail!r}"
    return ""


def _first_line(output: str) -> str:
    return next((line.strip() for line in output.splitlines() if line.strip()), "(no output)")


def _help_lists(
    board: VirtualBoard, verb: str, text: str, cache: dict[str, str]
) -> tuple[str, ...]:
    """The options a usage line names that its verb's --help does not list."""
    if verb not in cache:
        status, output = run_command(board, f"boardctl {verb} --help", False)
        if status != 0 and " " in verb:
            status, output = run_command(board, f"boardctl {verb.split()[0]} --help", False)
        cache[verb] = output
    options = dict.fromkeys(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))
    return tuple(option for option in options if option not in cache[verb])


def _prepare_files(board: VirtualBoard) -> None:
    """The example files the docs' commands name, made by the board's own commands."""
    key = board.journal.parent / "board.key"
    if key.exists():
        shutil.copy(key, board.work / "board.key")
        shutil.copy(key, board.work / "table-1.key")
    for command in (
        "boardctl results --csv > results.csv",
        "boardctl status --json > view.json",
        "boardctl standings add Ann=121 Bob=87 --manual manual.jsonl",
        # the evening before a play-off (--playoffs-since 2026-12-01T21:00), on wooden boards
        "boardctl standings add Ann=121 Bob=90 --end 2026-12-01T20:00",
        "boardctl standings add Cat=121 Dan=100 --end 2026-12-01T20:30",
        "boardctl standings add Ann=121 Cat=110 --end 2026-12-01T20:45",
    ):
        run_command(board, command, False)
    demo = "boardctl demo --games 1 --seed 5 --display none --journal game.sqlite"
    if not (board.work / "game.sqlite").exists():
        run_command(board, demo, False)


def check(folder: Path, root: Path = ROOT) -> list[Result]:
    """Run every documented command against a fresh virtual board in ``folder``."""
    documented = documented_commands(root)
    plans = {item.text: plan(item.text) for item in documented}
    first_place = {item.text: index for index, item in reversed(list(enumerate(documented)))}
    to_run = sorted(
        (text for text, item in plans.items() if item.command and not item.reason),
        key=lambda text: (_order(plans[text]), first_place[text]),
    )
    board = VirtualBoard(folder)
    outcomes: dict[str, tuple[int | None, str, tuple[str, ...], float]] = {}
    helps: dict[str, str] = {}
    ran: dict[tuple[str, str], tuple[int | None, str, float]] = {}  # each command runs once
    beside = ThreadPoolExecutor(2)  # what touches no board (a demo in memory), beside the rest
    try:
        board.start()
        early = {
            (item.command, item.scene): beside.submit(
                timed, board, item.command, item.until_stopped
            )
            for item in map(plans.__getitem__, to_run)
            if alone(item.command)
        }
        broker_reason: str | None = None  # started for the first command that needs it
        prepared = False
        for text in to_run:
            item = plans[text]
            if item.scene != "first" and not prepared:
                _prepare_files(board)
                prepared = True
            if item.scene == "broker" and broker_reason is None:
                broker_reason = board.start_broker()
            if item.scene == "broker" and broker_reason:
                plans[text] = Plan(text, item.command, reason=broker_reason)
                continue
            if (item.command, item.scene) in early:
                ran[item.command, item.scene] = early[item.command, item.scene].result()
            if (item.command, item.scene) not in ran:
                if item.scene == "stopped":
                    board.stop()
                else:
                    board.scene(item.scene)
                started = time.monotonic()
                status, output = run_command(board, item.command, item.until_stopped)
                seconds = time.monotonic() - started
                ran[item.command, item.scene] = (status, output, seconds)
            status, output, seconds = ran[item.command, item.scene]
            missing = _help_lists(board, item.verb, text, helps) if item.verb else ()
            outcomes[text] = (status, output, missing, seconds)
        for text, item in plans.items():
            if item.reason and text not in outcomes:
                missing = _help_lists(board, _verb_of(text), text, helps)
                outcomes[text] = (None, "", missing, 0.0)
    finally:
        beside.shutdown(cancel_futures=True)
        board.close()
    results = []
    for doc in documented:
        status, output, missing, seconds = outcomes.get(doc.text, (None, "", (), 0.0))
        until_stopped = plans[doc.text].until_stopped and status is None
        results.append(
            Result(
                doc,
                plans[doc.text],
                status,
                _first_line(output) if plans[doc.text].command else "",
                until_stopped,
                missing,
                seconds,
                output,
            )
        )
    return results


def _verb_of(text: str) -> str:
    """The verb of a command line as written, after sudo and the program's path."""
    words = re.sub(r"^(sudo\s+(-u\s+\S+\s+)?)?\S*boardctl\s+", "", text).split()
    return _verb([word for word in words if not word.startswith("-")][:2])


def _order(item: Plan) -> tuple[int, int]:
    """Scenes in SCENE_ORDER; in the broker's, the bridge first and decommission last."""
    inside = 0
    if item.scene == "broker":
        inside = (
            0 if item.command == "boardctl mqtt" else 2 if "decommission" in item.command else 1
        )
    return SCENE_ORDER.index(item.scene), inside


def table(results: list[Result]) -> str:
    """The results as a Markdown table."""
    rows = ["| where | command as written | ran | result | s | first line of output |"]
    rows.append("|---|---|---|---|---|---|")
    for result in results:
        ran = result.plan.command if result.plan.command != result.documented.text else "as written"
        if not result.ran:
            ran = "—" if not result.plan.command else ran
        cells = [
            result.documented.where,
            f"`{result.documented.text}`",
            ran if ran in ("as written", "—") else f"`{ran}`",
            result.outcome,
            f"{result.seconds:.1f}" if result.ran else "",
            result.first_line if result.ran else "",
        ]
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="boardctl-doc-commands-") as folder:
        results = check(Path(folder))
    text = table(results)
    print(text, end="")
    if args.markdown:
        args.markdown.write_text(text)
    failed = [result for result in results if not result.ok]
    print(
        f"\n{len(results)} documented command lines, {sum(r.ran for r in results)} run, "
        f"{len(failed)} not as documented"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
