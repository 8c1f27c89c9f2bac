"""A real Home Assistant core for the tests: installed by .ci/homeassistant.sh, driven by its APIs.

:func:`install` runs the install script (cached: a second each warm run) and returns the
interpreter of Home Assistant's own virtualenv, or raises :class:`NoPython313`.
:class:`HomeAssistant` starts ``python -m homeassistant`` on a fresh config folder with a free
127.0.0.1 port and onboards it through its REST API like the frontend does; :class:`Session`
talks to it with the access token (REST and the websocket API, through aiohttp), and
:class:`Changes` keeps its ``state_changed`` events for a test to wait on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import aiohttp

from tests.mqtt_broker import free_port

if TYPE_CHECKING:
    from tests.test_e2e_process import Service

REPO = Path(__file__).resolve().parent.parent
SLOW = 300.0  # seconds to wait for anything: Home Assistant starts slowly on a busy 2-core machine
INSTALL = REPO / ".ci" / "homeassistant.sh"
NO_PYTHON = 3  # the install script's exit status where no Python 3.13 exists
USER, PASSWORD = "ci", "boardctl-ci-password"
T = TypeVar("T")


class NoPython313(Exception):
    """No Python 3.13 on this machine: Home Assistant 2025.4 cannot run."""


def install() -> str:
    """The python of Home Assistant's cached virtualenv (installed first when missing)."""
    done = subprocess.run(["bash", str(INSTALL)], capture_output=True, text=True, timeout=1800)
    if done.returncode == NO_PYTHON:
        raise NoPython313(done.stderr.strip())
    if done.returncode != 0:
        raise RuntimeError(f"{INSTALL.name} failed:\n{done.stderr}")
    return done.stdout.strip()


class HomeAssistant:
    """``python -m homeassistant --config <folder> --skip-pip``, HTTP on 127.0.0.1 only."""

    def __init__(self, python: str, folder: Path) -> None:
        self.python = python
        self.folder = folder
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.client_id = f"{self.url}/"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "configuration.yaml").write_text(
            "homeassistant:\n  name: boardctl CI\n  latitude: 0\n  longitude: 0\n"
            "  elevation: 0\n  unit_system: metric\n  time_zone: UTC\n  country: GB\n"
            f"http:\n  server_host: 127.0.0.1\n  server_port: {self.port}\n"
            "api:\nconfig:\nonboarding:\nwebsocket_api:\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None
        self.started = self.answered = 0.0  # time.monotonic() of the start, of the first answer

    def start(self) -> None:
        self.started = time.monotonic()
        command = [self.python, "-m", "homeassistant", "--config", str(self.folder), "--skip-pip"]
        self.proc = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=(self.folder / "stderr.log").open("ab")
        )

    def log(self) -> str:
        path = self.folder / "home-assistant.log"
        return path.read_text(errors="replace") if path.exists() else ""

    async def onboard(self, http: aiohttp.ClientSession, timeout: float) -> Session:
        """Wait for the HTTP server, create the owner, trade the code for a token."""

        async def answer() -> Any:
            if self.proc is not None and self.proc.poll() is not None:
                stderr = (self.folder / "stderr.log").read_text(errors="replace")
                raise RuntimeError(f"Home Assistant exited ({self.proc.returncode}):\n{stderr}")
            return await _get_json(http, f"{self.url}/api/onboarding")

        onboarding = await _poll(answer, timeout)
        self.answered = time.monotonic()
        assert {"step": "user", "done": False} in onboarding, onboarding
        user = {"name": "CI", "username": USER, "password": PASSWORD, "language": "en"}
        async with http.post(
            f"{self.url}/api/onboarding/users", json={**user, "client_id": self.client_id}
        ) as reply:
            assert reply.status == 200, await reply.text()
            code = (await reply.json())["auth_code"]
        token = {"grant_type": "authorization_code", "code": code, "client_id": self.client_id}
        async with http.post(f"{self.url}/auth/token", data=token) as reply:
            assert reply.status == 200, await reply.text()
            access = (await reply.json())["access_token"]
        return Session(http, self.url, access)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


class Session:
    """An onboarded Home Assistant: REST with the bearer token, and the websocket API."""

    def __init__(self, http: aiohttp.ClientSession, url: str, token: str) -> None:
        self.http = http
        self.url = url
        self.token = token
        self.headers = {"Authorization": f"Bearer {token}"}

    async def get(self, path: str) -> Any:
        async with self.http.get(f"{self.url}{path}", headers=self.headers) as reply:
            assert reply.status == 200, f"GET {path}: {reply.status} {await reply.text()}"
            return await reply.json()

    async def post(self, path: str, body: dict[str, Any]) -> Any:
        async with self.http.post(f"{self.url}{path}", headers=self.headers, json=body) as reply:
            assert reply.status == 200, f"POST {path}: {reply.status} {await reply.text()}"
            return await reply.json()

    async def wait_running(self, timeout: float) -> None:
        """Until Home Assistant says it has started (``/api/config``'s state ``RUNNING``)."""

        async def running() -> bool | None:
            return True if (await self.get("/api/config"))["state"] == "RUNNING" else None

        await _poll(running, timeout)

    async def states(self, prefix: str) -> dict[str, dict[str, Any]]:
        """The current state objects of the entities whose ids start with ``prefix``."""
        states = await self.get("/api/states")
        return {s["entity_id"]: s for s in states if s["entity_id"].startswith(prefix)}

    async def add_mqtt(self, port: int) -> dict[str, Any]:
        """The MQTT integration through its config flow, as a user adds it in the frontend."""
        flow = await self.post("/api/config/config_entries/flow", {"handler": "mqtt"})
        assert (flow["type"], flow["step_id"]) == ("form", "broker"), flow
        body = {"broker": "127.0.0.1", "port": port}
        entry: dict[str, Any] = await self.post(
            f"/api/config/config_entries/flow/{flow['flow_id']}", body
        )
        assert entry["type"] == "create_entry", entry
        return entry

    @contextlib.asynccontextmanager
    async def websocket(self) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
        """The websocket API, authenticated."""
        async with self.http.ws_connect(f"{self.url}/api/websocket") as ws:
            assert (await ws.receive_json())["type"] == "auth_required"
            await ws.send_json({"type": "auth", "access_token": self.token})
            assert (await ws.receive_json())["type"] == "auth_ok"
            yield ws

    async def command(self, kind: str) -> Any:
        """One websocket command's result (``config/device_registry/list`` ...)."""
        async with self.websocket() as ws:
            await ws.send_json({"id": 1, "type": kind})
            reply = await ws.receive_json()
            assert reply["success"] is True, reply
            return reply["result"]

    async def state_changes(self) -> AsyncIterator[dict[str, Any]]:
        """Every ``state_changed`` event's data from now on (websocket ``subscribe_events``)."""
        async with self.websocket() as ws:
            await ws.send_json({"id": 1, "type": "subscribe_events", "event_type": "state_changed"})
            assert (await ws.receive_json())["success"] is True
            while True:
                message = await ws.receive_json()
                if message.get("type") == "event":
                    yield message["event"]["data"]


class Changes:
    """Home Assistant's ``state_changed`` events, kept as they arrive, and a wait for one."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        self.times: list[float] = []  # time.monotonic() of each one's arrival
        self.arrived = asyncio.Event()
        self.ended = False

    async def follow(self, session: Session) -> None:
        try:
            async for data in session.state_changes():
                self.seen.append(data)
                self.times.append(time.monotonic())
                self.arrived.set()
        finally:
            self.ended = True  # Home Assistant closed the websocket (or died)
            self.arrived.set()

    def latest(self) -> dict[str, str]:
        """Each entity's newest state."""
        return {c["entity_id"]: c["new_state"]["state"] for c in self.seen if c["new_state"]}

    async def wait(self, find: Callable[[], T | None], what: str) -> T:
        try:
            async with asyncio.timeout(SLOW):
                while True:
                    self.arrived.clear()
                    if (found := find()) is not None:
                        return found
                    if self.ended:
                        raise AssertionError(f"{what}: Home Assistant's event stream ended")
                    await self.arrived.wait()
        except TimeoutError:
            raise AssertionError(f"{what}: not within {SLOW} s; last: {self.latest()}") from None


@contextlib.asynccontextmanager
async def following(session: Session) -> AsyncIterator[Changes]:
    """:class:`Changes` filled from the websocket while the block runs."""
    changes = Changes()
    task = asyncio.create_task(changes.follow(session))
    try:
        yield changes
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def start_bridge(service: Service, log: Path) -> subprocess.Popen[bytes]:
    """``boardctl mqtt`` for the service (its config's ``[mqtt]``), stderr to ``log``."""
    command = [sys.executable, "-m", "boardctl", "mqtt", "--config", str(service.config)]
    command += ["--socket", str(service.socket), "--journal", str(service.journal)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(command, env=env, stderr=log.open("ab"))


async def _get_json(http: aiohttp.ClientSession, url: str) -> Any:
    async with http.get(url) as reply:
        if reply.status != 200:
            return None
        return json.loads(await reply.text())


async def _poll(read: Callable[[], Any], timeout: float) -> Any:
    """``await read()`` until it returns something other than None (connection refused = None)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = await read()
        except aiohttp.ClientConnectionError:
            value = None
        if value is not None:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"nothing within {timeout} s")
        await asyncio.sleep(0.25)
