"""The page's one client of the control socket, and the server's guards, against fake services.

The fake speaks the control socket's JSON lines on a real Unix socket: with the ``watch``
stream as the service sends it (the snapshot, then event lines each followed by a state line),
or without it (``unknown op``), so both paths of :meth:`Source.watch` are exercised; the real
service is used by the browser tests.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from boardctl.board.layout import builtin_layout
from boardctl.web.page_config import parse_web_config
from boardctl.web.pairing import Pairing
from boardctl.web.server import make_app
from boardctl.web.socket_source import NoAnswer, Snapshot, Source


def status(front: int, name: str = "Ann") -> dict[str, Any]:
    return {
        "target": 121,
        "phase": "play",
        "seq": front,
        "tracks": [{"name": name, "front": front, "back": 0}, {"name": "Bob", "front": 0}],
    }


class FakeService:
    """A control socket: ``status``/``frame``/commands, and ``watch`` if ``watch=True``."""

    def __init__(self, path: Path, *, watch: bool) -> None:
        self.path = path
        self.watch = watch
        self.front = 0
        self.n = 0
        self.requests: list[dict[str, Any]] = []
        self.watchers: list[asyncio.StreamWriter] = []
        self.server: asyncio.AbstractServer | None = None

    async def start(self) -> None:
        self.server = await asyncio.start_unix_server(self._client, str(self.path))

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        for writer in self.watchers:
            writer.close()
        self.watchers.clear()
        await self.server.wait_closed()

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request["op"]
        if op == "watch" and not self.watch:
            return {"ok": False, "error": "unknown op 'watch'; known: ping, status"}
        if op == "status":
            return {"ok": True, "result": status(self.front)}
        if op == "frame":
            return {"ok": True, "result": {"leds": 2, "rgb": f"{self.front:02x}0000000000"}}
        if op == "peg" and request.get("points", 0) > 29:
            return {"ok": False, "error": "a hand counts 0-29 points, not 40"}
        return {"ok": True, "result": {"ok": True}}

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while line := await reader.readline():
            request = json.loads(line)
            self.requests.append(request)
            if request["op"] == "watch" and self.watch:
                self.watchers.append(writer)
                snap = {"protocol": 1, "n": self.n, "status": status(self.front), "view": {}}
                self._send(writer, {"ok": True, "result": snap})
                continue
            self._send(writer, self.reply(request))
        writer.close()

    @staticmethod
    def _send(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
        writer.write(json.dumps(message).encode() + b"\n")

    def change(self, front: int) -> None:
        """A peg was journalled: every watcher gets its event line, then the state line."""
        self.front = front
        for writer in self.watchers:
            self._send(writer, {"n": self.n + 1, "event": {"op": "peg"}, "seq": front})
            state = {"status": status(front), "view": {}}
            self._send(writer, {"n": self.n + 2, "state": state})
        self.n += 2


def run(body: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(body(), 20))


async def take(stream: AsyncGenerator[Snapshot, None], n: int = 1) -> list[Snapshot]:
    return [await asyncio.wait_for(anext(stream), 5) for _ in range(n)]


def test_watch_uses_the_services_stream(tmp_path: Path) -> None:
    async def body() -> None:
        fake = FakeService(tmp_path / "c.sock", watch=True)
        await fake.start()
        source = Source(fake.path, poll_interval=10)  # a poll would never come in time
        stream = source.watch()
        (first,) = await take(stream)
        assert first.via == "watch" and first.status is not None
        fake.change(7)
        (second,) = await take(stream)
        assert second.status is not None and second.status["tracks"][0]["front"] == 7
        assert second.rgb.startswith("07")  # the LEDs fetched with ``frame``
        assert source.mode == "watch"
        ops = [r["op"] for r in fake.requests]
        assert ops.count("watch") == 1 and "status" not in ops  # the stream carried the status
        await stream.aclose()
        source.close()
        await fake.stop()

    run(body)


def test_watch_reads_the_protocols_event_and_state_lines(tmp_path: Path) -> None:
    async def body() -> None:
        fake = FakeService(tmp_path / "c.sock", watch=True)
        await fake.start()
        source = Source(fake.path, poll_interval=10)
        stream = source.watch()
        (first,) = await take(stream)
        assert first.via == "watch" and first.status is not None
        assert first.status["tracks"][0]["front"] == 0
        fake.change(7)
        fake.change(9)
        second, third = await take(stream, 2)  # one snapshot per change, none for the event
        assert second.status is not None and second.status["tracks"][0]["front"] == 7
        assert third.status is not None and third.status["tracks"][0]["front"] == 9
        ops = [r["op"] for r in fake.requests]
        assert "status" not in ops  # the state lines carried the status
        assert ops.count("frame") == 3  # the LEDs: once for the snapshot and once per state
        await stream.aclose()
        source.close()
        await fake.stop()

    run(body)


def test_watch_falls_back_to_polling_when_the_service_has_no_watch(tmp_path: Path) -> None:
    async def body() -> None:
        fake = FakeService(tmp_path / "c.sock", watch=False)
        await fake.start()
        source = Source(fake.path, poll_interval=0.02)
        seen: list[Snapshot] = []

        async def consume() -> None:
            async for snap in source.watch():
                seen.append(snap)

        async def until(condition: Callable[[], bool]) -> None:
            for _ in range(1000):  # the event, on a busy machine too (at most ~10 s)
                if condition():
                    return
                await asyncio.sleep(0.01)
            raise AssertionError("timed out")

        task = asyncio.create_task(consume())
        await until(lambda: sum(r["op"] == "status" for r in fake.requests) >= 4)
        assert len(seen) == 1 and seen[0].via == "poll" and source.mode == "poll"  # nothing new
        fake.front = 5
        await until(lambda: len(seen) >= 2)
        assert len(seen) == 2  # yielded only because something changed
        assert seen[1].status is not None and seen[1].status["tracks"][0]["front"] == 5
        task.cancel()
        source.close()
        await fake.stop()

    run(body)


def test_watch_reports_the_service_down_then_reconnects(tmp_path: Path) -> None:
    async def body() -> None:
        path = tmp_path / "c.sock"
        fake = FakeService(path, watch=True)
        await fake.start()
        source = Source(path, poll_interval=0.02)
        stream = source.watch()
        await take(stream)
        await fake.stop()
        path.unlink()
        (down,) = await take(stream)
        assert not down.up
        assert "not running" in down.reason or "closed" in down.reason
        again = FakeService(path, watch=False)  # back, as an older service without watch
        again.front = 3
        await again.start()
        (back,) = await take(stream)
        assert back.up and back.via == "poll"
        assert back.status is not None and back.status["tracks"][0]["front"] == 3
        await stream.aclose()
        source.close()
        await again.stop()

    run(body)


class MuteService(FakeService):
    """Takes every request and answers none but the reads (a stopped service's queue)."""

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        if request["op"] in ("status", "frame"):
            return super().reply(request)
        return {}

    @staticmethod
    def _send(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
        if message:
            writer.write(json.dumps(message).encode() + b"\n")


def test_a_write_is_sent_again_only_with_its_request_id(tmp_path: Path) -> None:
    async def body() -> None:
        fake = MuteService(tmp_path / "c.sock", watch=False)
        await fake.start()
        source = Source(fake.path, timeout=0.2)
        with pytest.raises(NoAnswer):
            await source.request({"op": "peg", "track": 0, "points": 2})
        assert [r["op"] for r in fake.requests] == ["peg"]  # sent once: it could count twice
        with pytest.raises(NoAnswer):
            await source.request({"op": "peg", "track": 0, "points": 3, "request_id": "r-1"})
        again = [r for r in fake.requests if r.get("points") == 3]
        assert [r["request_id"] for r in again] == ["r-1", "r-1"]  # on a new connection
        assert await source.request({"op": "status"})  # reads still answered
        source.close()
        await fake.stop()

    run(body)


def test_an_unanswered_command_is_reported_not_confirmed_with_its_request_id(
    tmp_path: Path,
) -> None:
    async def body() -> None:
        fake = MuteService(tmp_path / "c.sock", watch=False)
        await fake.start()
        client, token, host = await _client(tmp_path, fake, timeout=0.2)
        headers = {"Host": host, "Origin": f"http://{host}", "X-Board-Token": token}
        peg = {"op": "peg", "track": 0, "points": 2, "request_id": "tap-0000000000000002"}
        response = await client.post("/api/command", json=peg, headers=headers)
        reply = await response.json()
        assert response.status == 202 and reply["confirmed"] is False
        assert reply["request_id"] == peg["request_id"] and "same request id" in reply["error"]
        await fake.stop()  # now nothing listens: not reachable, not confirmed either
        response = await client.post("/api/command", json=peg, headers=headers)
        assert response.status == 503 and (await response.json())["confirmed"] is False
        sent = [r for r in fake.requests if r["op"] == "peg"]
        assert {r["request_id"] for r in sent} == {peg["request_id"]} and len(sent) == 2
        await client.close()

    run(body)


# --- the server's guards -----------------------------------------------------------------
async def _client(
    tmp_path: Path, fake: FakeService, timeout: float = 5.0
) -> tuple[TestClient[Any, Any], str, str]:
    config = parse_web_config({"web": {"port": 8121}})
    pairing = Pairing(tmp_path / "web")
    _, token = pairing.redeem(pairing.new_code())
    source = Source(fake.path, timeout=timeout)
    app = make_app(config, source, builtin_layout("two-121"), pairing)
    client: TestClient[Any, Any] = TestClient(TestServer(app))
    await client.start_server()
    return client, token, "127.0.0.1:8121"


def test_commands_need_the_pages_origin_and_a_paired_token(tmp_path: Path) -> None:
    async def body() -> None:
        fake = FakeService(tmp_path / "c.sock", watch=False)
        await fake.start()
        client, token, host = await _client(tmp_path, fake)
        good = {"Host": host, "Origin": f"http://{host}", "X-Board-Token": token}
        peg = {"op": "peg", "track": 0, "points": 2, "request_id": "tap-0000000000000001"}

        async def post(headers: dict[str, str], body: Any = peg) -> tuple[int, dict[str, Any]]:
            response = await client.post("/api/command", json=body, headers=headers)
            return response.status, await response.json()

        assert (await post({**good, "Host": "evil.example:8121"}))[0] == 421
        assert (await post({**good, "Origin": "http://evil.example"}))[0] == 403
        assert (await post({k: v for k, v in good.items() if k != "Origin"}))[0] == 403
        assert (await post({k: v for k, v in good.items() if k != "X-Board-Token"}))[0] == 401
        assert (await post({**good, "X-Board-Token": "forged"}))[0] == 401
        assert not any(r["op"] == "peg" for r in fake.requests)  # none reached the service

        code, reply = await post(good)
        assert code == 200 and reply["ok"]
        assert fake.requests[-1] == peg
        code, reply = await post(good, {**peg, "points": 40})
        assert code == 409 and reply["error"] == "a hand counts 0-29 points, not 40"
        code, reply = await post(good, {**peg, "track": "x", "points": 1})
        assert code == 400 and "track must be a whole number" in reply["error"]
        code, reply = await post(good, {"op": "press", "button": "undo", "request_id": "x" * 16})
        assert code == 400
        for rid in (None, "", "short", "x" * 65, "tap 0000000000000001", 12345678901234567):
            bad = {**peg, "request_id": rid} if rid is not None else {"op": "peg", "track": 0}
            code, reply = await post(good, bad)
            assert code == 400 and "request_id" in reply["error"], rid
        assert [r["op"] for r in fake.requests].count("peg") == 2
        await client.close()
        await fake.stop()

    run(body)


def test_pairing_over_http_and_the_pages_security_headers(tmp_path: Path) -> None:
    async def body() -> None:
        fake = FakeService(tmp_path / "c.sock", watch=False)
        await fake.start()
        client, _, host = await _client(tmp_path, fake)
        headers = {"Host": host, "Origin": f"http://{host}"}
        code = Pairing(tmp_path / "web").new_code()
        response = await client.post("/api/pair", json={"code": code}, headers=headers)
        reply = await response.json()
        assert response.status == 200 and reply["ok"] and len(reply["token"]) > 30
        response = await client.post("/api/pair", json={"code": code}, headers=headers)
        assert response.status == 403
        page = await client.get("/", headers={"Host": host})
        assert "script-src 'self'" in page.headers["Content-Security-Policy"]
        assert page.headers["X-Frame-Options"] == "DENY"
        state = await (await client.get("/api/state", headers={"Host": host})).json()
        assert state["paired"] is False and state["status"]["tracks"][0]["name"] == "Ann"
        await client.close()
        await fake.stop()

    run(body)


def test_the_state_with_no_page_watching_follows_the_board(tmp_path: Path) -> None:
    """``/api/state`` read with no page streaming is the board now each time, not the first read
    kept: only the watch (running while pages stream) sets the state the pages share."""

    async def body() -> None:
        fake = FakeService(tmp_path / "c.sock", watch=True)
        await fake.start()
        client, _, host = await _client(tmp_path, fake)
        fronts = []
        for front in (3, 8):
            fake.change(front)
            state = await (await client.get("/api/state", headers={"Host": host})).json()
            fronts.append(state["status"]["tracks"][0]["front"])
        assert fronts == [3, 8]
        await client.close()
        await fake.stop()

    run(body)
