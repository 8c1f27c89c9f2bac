"""The control socket: protocol, permissions, and requests meant to hurt it."""

from __future__ import annotations

import contextlib
import io
import json
import os
import selectors
import socket
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.errors import ControlError, EntryError
from boardctl.game.commands import OPS as ENGINE_OPS
from boardctl.game.commands import parse_board_command
from boardctl.service import client, control
from boardctl.service.control import ControlServer, parse_request
from boardctl.service.settings import SOUND_SETTINGS, check_sound_setting, setting_keys
from boardctl.service.watch import Watch
from boardctl.service.wire import WAIT_AT_MOST, WithFile


class Server:
    """A ControlServer served from a background thread, as the service loop does."""

    def __init__(self, path: Path) -> None:
        self.requests: list[dict[str, Any]] = []
        self.files: list[io.FileIO] = []  # passed with replies (closed once passed)
        self.selector = selectors.DefaultSelector()
        self.now = 0.0
        self.server = ControlServer(
            path, self.handle, self.selector, clock=lambda: self.now, watch=Watch()
        )
        self.running = True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def handle(self, request: dict[str, Any]) -> Any:
        self.requests.append(request)
        op = request["op"]
        if op == "peg" and request["points"] > 29:
            raise EntryError(f"{request['points']} points is more than any count")
        if op == "history":
            rows = 10_000 if request.get("all") else 5  # all: about 2 MB, over MAX_OUTPUT
            return [{"seq": i, "text": "x" * 200} for i in range(rows)]
        if op == "redo":
            raise RuntimeError("a bug in the engine")
        if op == "results":  # a file passed with the reply, as the CSV export is
            file = io.FileIO(os.memfd_create("text"), "r+")
            file.write(b"a,b\r\n")
            self.files.append(file)
            return WithFile({"bytes": 5}, file)
        return {"echo": request}

    def serve(self) -> None:
        while self.running:
            for key, mask in self.selector.select(0.02):
                key.data(mask)
            self.server.tick(self.now)

    def close(self) -> None:
        self.running = False
        self.thread.join(5)
        self.server.close()
        self.selector.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "run" / "control.sock")
    try:
        yield s
    finally:
        s.close()


def connect(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(5)
    sock.connect(str(path))
    return sock


def lines(sock: socket.socket, count: int) -> list[dict[str, Any]]:
    data = b""
    while data.count(b"\n") < count:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return [json.loads(line) for line in data.splitlines()]


def test_socket_file_is_mode_0660(server: Server) -> None:
    mode = stat.S_IMODE(os.stat(server.server.path).st_mode)
    assert mode == 0o660
    assert stat.S_ISSOCK(os.stat(server.server.path).st_mode)


def test_client_request_round_trip(server: Server) -> None:
    result = client.request(server.server.path, {"op": "peg", "track": 1, "points": 4})
    assert result == {"echo": {"op": "peg", "track": 1, "points": 4}}
    with pytest.raises(ControlError, match="36 points is more than any count"):
        client.request(server.server.path, {"op": "peg", "track": 1, "points": 36})


def test_several_requests_on_one_connection_keep_order_and_ids(server: Server) -> None:
    sock = connect(server.server.path)
    sock.sendall(b'{"op":"ping","id":1}\n{"op":"undo","id":"b"}\n{"op":"status"}\n')
    replies = lines(sock, 3)
    assert [r.get("id") for r in replies] == [1, "b", None]
    assert all(r["ok"] for r in replies)
    sock.close()


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        (b"hello\n", "not a JSON request"),
        (b"\xff\xfe\x00garbage\n", "not a JSON request"),
        (b"[1, 2]\n", "must be a JSON object"),
        (b'{"op": 3}\n', "unknown op 3"),
        (b'{"op": "format_disk"}\n', "unknown op 'format_disk'"),
        (b'{"op": "peg", "track": "one", "points": 2}\n', "peg: track must be a whole number"),
        (b'{"op": "peg", "track": true, "points": 2}\n', "peg: track must be a whole number"),
        (b'{"op": "peg", "track": 0}\n', "peg: points must be a whole number, not None"),
        (b'{"op": "peg", "track": 0, "points": 1, "evil": 1}\n', "unknown field 'evil'"),
        (b'{"op": "set", "key": "colour", "value": 1}\n', "set: unknown setting 'colour'"),
        (b'{"op": "press", "button": 3}\n', "press: 'button' must be a string"),
        (b'{"op": "history", "all": 1}\n', "history: 'all' must be true/false"),
        (b'{"op": "redo"}\n', "internal error: RuntimeError"),
        (b"1e999999\n", "must be a JSON object"),
        (b"[" * 100000 + b"\n", "request longer than"),
    ],
)
def test_malformed_requests_get_an_error_reply_and_the_service_stays_up(
    server: Server, line: bytes, needle: str
) -> None:
    sock = connect(server.server.path)
    sock.sendall(line)
    reply = lines(sock, 1)[0]
    assert reply["ok"] is False
    assert needle in reply["error"]
    sock.close()
    assert client.request(server.server.path, {"op": "ping"}) == {"echo": {"op": "ping"}}


def test_deeply_nested_json_is_refused_not_crashing(server: Server) -> None:
    sock = connect(server.server.path)
    sock.sendall(b"[" * 50000 + b"]" * 50000 + b"\n")  # under MAX_LINE? no: 100 kB
    reply = lines(sock, 1)[0]
    assert reply["ok"] is False
    sock.close()
    nested = b"[" * 30000 + b"]" * 30000 + b"\n"  # 60 kB, deeper than json's recursion
    sock = connect(server.server.path)
    sock.sendall(nested)
    reply = lines(sock, 1)[0]
    assert reply == {"ok": False, "error": "not a JSON request (nested too deeply)"}
    sock.close()
    assert client.request(server.server.path, {"op": "ping"})


def test_an_endless_line_is_cut_off_and_the_client_dropped(server: Server) -> None:
    sock = connect(server.server.path)
    with pytest.raises(OSError):
        for _ in range(100):
            sock.sendall(b"x" * 65536)  # never a newline
    sock.close()
    deadline = time.monotonic() + 5
    while server.server.clients and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.server.clients == 0
    assert client.request(server.server.path, {"op": "ping"})


def test_a_slow_client_does_not_block_others(server: Server) -> None:
    slow = connect(server.server.path)
    slow.sendall(b'{"op": "pi')  # and then nothing
    start = time.monotonic()
    assert client.request(server.server.path, {"op": "ping"})
    assert time.monotonic() - start < 2.0
    slow.sendall(b'ng"}\n')  # finishing later still works
    assert lines(slow, 1)[0]["ok"] is True
    slow.close()


def test_idle_clients_are_dropped_after_the_timeout(server: Server) -> None:
    idle = connect(server.server.path)
    deadline = time.monotonic() + 2
    while server.server.clients < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.server.clients == 1
    server.now = control.CLIENT_TIMEOUT + 1
    assert idle.recv(10) == b""  # closed by the server
    idle.close()


def test_a_client_that_never_reads_its_replies_is_dropped(server: Server) -> None:
    greedy = connect(server.server.path)
    request = b'{"op": "history"}\n'
    sent = 0
    try:
        for _ in range(20000):
            greedy.sendall(request * 50)
            sent += 50
    except OSError:
        pass
    deadline = time.monotonic() + 5
    while server.server.clients and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.server.clients == 0
    greedy.close()
    assert client.request(server.server.path, {"op": "ping"})


def test_too_many_clients_are_turned_away_politely(server: Server) -> None:
    held = []
    for _ in range(control.MAX_CLIENTS):
        sock = connect(server.server.path)
        sock.sendall(b'{"op":"ping"}\n')
        assert lines(sock, 1)[0]["ok"]
        held.append(sock)
    extra = connect(server.server.path)
    reply = lines(extra, 1)
    assert reply and "too many clients" in reply[0]["error"]
    for sock in [*held, extra]:
        sock.close()


def test_a_stale_socket_file_is_replaced_but_a_live_one_is_not(tmp_path: Path) -> None:
    path = tmp_path / "control.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # left behind, nobody listening
    first = Server(path)
    try:
        assert client.request(path, {"op": "ping"})
        with pytest.raises(ControlError, match="already running"):
            ControlServer(path, lambda r: None, selectors.DefaultSelector(), watch=Watch())
    finally:
        first.close()
    assert not path.exists()


def test_service_down_is_reported_as_such(tmp_path: Path) -> None:
    with pytest.raises(client.ServiceDown, match="not running"):
        client.request(tmp_path / "none.sock", {"op": "status"})


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=200).map(str.encode))
def test_any_bytes_give_a_reply_never_an_exception(line: bytes) -> None:
    server = ControlServer.__new__(ControlServer)
    server._handler = lambda request: {"op": request["op"]}
    reply, _watch = server.answer(line)  # (no client: never held)
    assert reply is not None and set(reply) <= {"ok", "result", "error", "id"}
    assert isinstance(reply["ok"], bool)
    json.dumps(reply)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["op", "track", "points", "kind", "key", "value", "id", "x"]),
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats()
        | st.text(max_size=5)
        | st.sampled_from([*control.SERVICE_OPS, *ENGINE_OPS, *setting_keys()]),
    )
)
def test_parse_request_accepts_only_well_typed_requests(request: dict[str, Any]) -> None:
    try:
        parsed = parse_request(json.dumps(request))
    except ControlError as exc:
        assert str(exc)
    else:
        if parsed["op"] in control.SERVICE_OPS:
            spec = control.SERVICE_OPS[parsed["op"]]
            for key, value in parsed.items():
                if key not in ("op", "id"):
                    assert isinstance(value, spec[key][0])
        elif parsed["op"] == "set" and parsed.get("key") in SOUND_SETTINGS:  # the board's own
            assert set(parsed) <= {"op", "key", "value", "id"}
            check_sound_setting(parsed["key"], parsed.get("value"))
        else:  # an engine command: exactly what the engine's parser takes
            command = {k: v for k, v in parsed.items() if k != "id"}
            assert parse_board_command(command).op == parsed["op"]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["names", "roster", "request_id", "id", "kind"]),
    st.text(st.characters(blacklist_categories=()), max_size=6),  # lone surrogates too
)
def test_every_string_that_passes_the_edge_is_unicode_text_and_the_rest_is_refused(
    field: str, text: str
) -> None:
    request: dict[str, Any] = {"op": "new_game" if field in ("names", "roster") else "peg"}
    request.update({"track": 0, "points": 1} if request["op"] == "peg" else {})
    request[field] = [text, "B"] if field in ("names", "roster") else text
    line = json.dumps(request)  # JSON spells a lone surrogate as an escape: "\ud800"
    lone = any(0xD800 <= ord(c) <= 0xDFFF for c in text)
    try:
        parsed = parse_request(line)
    except ControlError as exc:  # a lone surrogate, or a name or kind refused for its shape
        assert ("is not Unicode text" in str(exc)) == lone, exc
    else:
        assert not lone
        json.dumps(parsed, ensure_ascii=False).encode()  # what the journal stores: UTF-8


def test_a_flood_of_requests_is_answered_in_batches_between_other_work(server: Server) -> None:
    sock = connect(server.server.path)
    count = control.MAX_BATCH * 5 + 3
    sock.sendall(b'{"op":"ping"}\n' * count)
    replies = lines(sock, count)
    assert len(replies) == count and all(r["ok"] for r in replies)
    sock.close()


def test_one_read_answers_at_most_a_batch(tmp_path: Path) -> None:
    selector = selectors.DefaultSelector()
    handled: list[dict[str, Any]] = []
    server = ControlServer(tmp_path / "c.sock", handled.append, selector, watch=Watch())
    sock = connect(server.path)
    for key, mask in selector.select(1):
        key.data(mask)  # accept
    sock.sendall(b'{"op":"ping"}\n' * (control.MAX_BATCH * 2))
    time_limit = time.monotonic() + 2
    while not handled and time.monotonic() < time_limit:
        for key, mask in selector.select(0.1):
            key.data(mask)
    assert len(handled) == control.MAX_BATCH  # the rest waits for the next loop turn
    assert server.deadline() == float("-inf")  # ... which comes at once
    server.tick(0.0)
    assert len(handled) == control.MAX_BATCH * 2
    assert server.deadline() != float("-inf")
    sock.close()
    server.close()
    selector.close()


def test_a_client_turned_away_is_told_too_many_clients_not_broken_pipe(server: Server) -> None:
    held = []
    for _ in range(control.MAX_CLIENTS):
        sock = connect(server.server.path)
        sock.sendall(b'{"op":"ping"}\n')
        assert lines(sock, 1)[0]["ok"]
        held.append(sock)
    for _ in range(20):  # the refusal races the request: try it often
        with pytest.raises(ControlError, match="too many clients") as caught:
            client.request(server.server.path, {"op": "ping"})
        assert "pipe" not in str(caught.value).lower()
    for sock in held:
        sock.close()


def test_one_reply_larger_than_the_output_limit_is_delivered(server: Server) -> None:
    rows = client.request(server.server.path, {"op": "history", "all": True})
    assert len(rows) == 10_000
    assert len(json.dumps(rows)) > control.MAX_OUTPUT


def test_a_file_passed_with_a_reply_reaches_the_client_and_is_closed_in_the_service(
    server: Server,
) -> None:
    files: list[int] = []
    try:
        assert client.request(server.server.path, {"op": "results"}, files=files) == {"bytes": 5}
        (fd,) = files
        assert os.pread(fd, 100, 0) == b"a,b\r\n"
    finally:
        for fd in files:
            os.close(fd)
    closed_in_the_service(server)  # (closed once sent: the reply may come first)
    # a client that does not take descriptors: they are closed for it, the reply is whole
    assert client.request(server.server.path, {"op": "results"}) == {"bytes": 5}
    with connect(server.server.path) as sock:  # nor does a plain client: the kernel closes it
        sock.sendall(b'{"op": "results"}\n')
        assert lines(sock, 1) == [{"ok": True, "result": {"bytes": 5}}]


def test_a_file_for_a_client_gone_before_its_reply_is_closed(server: Server) -> None:
    with connect(server.server.path) as sock:
        sock.sendall(b'{"op": "results"}\n')
        sock.shutdown(socket.SHUT_RDWR)
    closed_in_the_service(server)


def closed_in_the_service(server: Server) -> None:
    """Wait until the one file the service made has been closed there."""
    deadline = time.monotonic() + 5
    while not server.files or not server.files[0].closed:
        assert time.monotonic() < deadline, "a file was left open"
        time.sleep(0.005)
    assert len(server.files) == 1


def test_a_client_that_leaves_large_replies_unread_is_dropped(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    sock = connect(server.server.path)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            for _ in range(4):  # each reply about 2 MB; none is read
                sock.sendall(b'{"op": "history", "all": true}\n')
                time.sleep(0.2)
        time.sleep(0.3)
        assert "does not read its replies; dropping it" in caplog.text
        assert client.request(server.server.path, {"op": "ping"}) is not None  # others go on
    finally:
        sock.close()


class Reading(Server):
    """``records`` as a journal reader answers it: not ready until the test says it is made."""

    def __init__(self, path: Path) -> None:
        self.made = threading.Event()
        super().__init__(path)

    def handle(self, request: dict[str, Any]) -> Any:
        if request["op"] != "records":
            return super().handle(request)
        self.requests.append(request)
        if self.made.is_set():
            return {"ready": True, "records": 3}
        return {"ready": False, "seq": 0, "events": 7}


def asked(server: Server, times: int) -> None:
    """Wait until the handler has been asked ``times`` times (a held request is asked again)."""
    deadline = time.monotonic() + 5
    while len(server.requests) < times:
        assert time.monotonic() < deadline, f"asked {len(server.requests)} times"
        time.sleep(0.005)


@pytest.fixture
def reading(tmp_path: Path) -> Iterator[Reading]:
    s = Reading(tmp_path / "control.sock")
    try:
        yield s
    finally:
        s.close()


def test_a_request_that_waits_is_held_until_its_answer_is_made_and_keeps_its_place(
    reading: Reading,
) -> None:
    with connect(reading.server.path) as sock:
        sock.sendall(b'{"op": "records", "wait": true, "id": 1}\n{"op": "ping", "id": 2}\n')
        asked(reading, 3)  # asked, then again at the loop's turns: held, the ping behind it
        assert [r["op"] for r in reading.requests] == ["records"] * len(reading.requests)
        reading.made.set()
        first, second = lines(sock, 2)
    assert first == {"ok": True, "result": {"ready": True, "records": 3}, "id": 1}
    assert second["id"] == 2 and second["ok"]
    # asked again with the journal's last event at the first ask (entries made meanwhile
    # cannot hold it), and "wait" handed on as asked
    assert reading.requests[0].get("since") is None
    assert all(r["since"] == 7 and r["wait"] is True for r in reading.requests[1:-1])


def test_a_held_request_gets_the_not_ready_reply_once_held_for_its_longest(
    reading: Reading,
) -> None:
    with connect(reading.server.path) as sock:
        sock.sendall(b'{"op": "records", "wait": true}\n')
        asked(reading, 2)
        reading.now = WAIT_AT_MOST  # (the injected clock)
        (reply,) = lines(sock, 1)
        assert reply == {"ok": True, "result": {"ready": False, "seq": 0, "events": 7}}
        sock.sendall(b'{"op": "records"}\n')  # without "wait": answered at once
        (again,) = lines(sock, 1)
        assert again == reply


def test_the_client_asks_with_wait_and_gets_the_answer_without_asking_again(
    reading: Reading, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[dict[str, Any]] = []
    ask = client.request

    def counted(path: Any, message: dict[str, Any], **kwargs: Any) -> Any:
        sent.append(message)
        return ask(path, message, **kwargs)

    monkeypatch.setattr(client, "request", counted)

    def make() -> None:
        asked(reading, 2)
        reading.made.set()

    threading.Thread(target=make, daemon=True).start()
    answer = client.request_ready(reading.server.path, {"op": "records"})
    assert answer == {"ready": True, "records": 3}
    assert sent == [{"op": "records", "wait": True}]  # held, not asked again


def test_a_held_request_of_a_client_that_shut_its_side_is_still_answered(reading: Reading) -> None:
    with connect(reading.server.path) as sock:
        sock.sendall(b'{"op": "records", "wait": true}\n')
        sock.shutdown(socket.SHUT_WR)  # as `socat` or `nc -N` do after their request
        asked(reading, 3)
        reading.made.set()
        assert lines(sock, 1) == [{"ok": True, "result": {"ready": True, "records": 3}}]
        assert sock.recv(10) == b""  # then closed
