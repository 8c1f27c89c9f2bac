"""A real Home Assistant follows a board through ``boardctl mqtt`` and a real mosquitto.

Home Assistant core (pinned in .ci/homeassistant.sh, its own virtualenv on Python 3.13) starts on a
fresh config folder, is onboarded through its REST API and gets the MQTT integration through its
own config flow against the test broker. A ``boardctl run`` service (mock pins) named "Table 4"
and its bridge then play a skunked game entered with ``boardctl peg``; the test watches Home
Assistant's ``state_changed`` events (websocket API) for the six entities the docs promise (and
their device), their values, the ``game_over`` and ``skunk`` events and the entities going
unavailable when the bridge is killed. ``-m homeassistant`` runs it alone.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from boardctl import __version__
from boardctl.mqtt.discovery import MANUFACTURER, MODEL
from tests.conftest import REPO
from tests.homeassistant import (
    SLOW,
    Changes,
    HomeAssistant,
    NoPython313,
    Session,
    following,
    install,
    start_bridge,
)
from tests.mqtt_broker import Broker, have_mosquitto
from tests.test_e2e_process import Service

pytestmark = [pytest.mark.slow, pytest.mark.homeassistant]

DEVICE = "cribbage_board_table_4"
TRACKS = [f"sensor.{DEVICE}_track_{n}_score" for n in (1, 2)]
PHASE, DEALER, TO_COUNT = (f"sensor.{DEVICE}_{name}" for name in ("phase", "dealer", "whose_count"))
GAME = f"event.{DEVICE}_game"
ENTITIES = {*TRACKS, PHASE, DEALER, TO_COUNT, GAME}


def sensors(status: dict[str, Any]) -> dict[str, str]:
    """The sensors' states the board's status should give (the discovery templates' meaning)."""

    def name(index: int | None) -> str:
        return "none" if index is None else str(status["tracks"][index]["name"])

    return {
        TRACKS[0]: str(status["tracks"][0]["front"]),
        TRACKS[1]: str(status["tracks"][1]["front"]),
        PHASE: str(status["phase"]),
        DEALER: name(status["dealer"]),
        TO_COUNT: name(status["to_count"]),
    }


def matches(changes: Changes, expected: dict[str, str]) -> bool | None:
    latest = changes.latest()
    return True if all(latest.get(k) == v for k, v in expected.items()) else None


def peg(service: Service, track: int, points: int) -> None:
    """``boardctl peg TRACK POINTS`` against the service's socket."""
    command = [sys.executable, "-m", "boardctl", "peg", str(track), str(points)]
    command += ["--config", str(service.config), "--socket", str(service.socket)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=60)


@pytest.fixture
def home_assistant(tmp_path: Path, broker: Broker) -> Iterator[HomeAssistant]:
    """Home Assistant started (it stops before the broker does)."""
    try:
        python = install()
    except NoPython313 as reason:  # issue 28: only where no Python 3.13 exists (CI here has one)
        pytest.skip(str(reason))
    ha = HomeAssistant(python, tmp_path / "homeassistant")
    ha.start()
    try:
        yield ha
    finally:
        ha.stop()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    assert have_mosquitto(), "these tests need mosquitto (apt-get install mosquitto)"
    broker = Broker(tmp_path / "broker")
    broker.start()
    yield broker
    broker.close()


@pytest.fixture
def board(tmp_path: Path, broker: Broker) -> Iterator[Service]:
    (tmp_path / "board").mkdir()
    service = Service(tmp_path / "board")
    service.config.write_text(
        '[link]\nkind = "null"\n[game]\nmode = "free"\ntarget = 61\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\nboard_id = "Table 4"\n'
    )
    yield service
    service.close()


def test_home_assistant_shows_the_board_its_events_and_its_bridge_going_away(
    home_assistant: HomeAssistant, broker: Broker, board: Service, tmp_path: Path
) -> None:
    bridge_log = tmp_path / "bridge.log"

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            session = await home_assistant.onboard(http, SLOW)
            await session.wait_running(SLOW)
            async with following(session) as changes:
                await session.add_mqtt(broker.port)
                await asyncio.to_thread(board.start)
                board.ask("set", key="names", value=["Ann", "Bob"])
                bridge = start_bridge(board, bridge_log)
                try:
                    await play(session, changes, bridge)
                finally:
                    if bridge.poll() is None:
                        bridge.kill()
                        bridge.wait(10)

    async def play(session: Session, changes: Changes, bridge: subprocess.Popen[bytes]) -> None:
        # the six entities, with the ids the docs promise, showing the board's status (no event yet)
        def shown() -> dict[str, str]:
            return {**sensors(board.ask("status")), GAME: "unknown"}

        await changes.wait(lambda: matches(changes, shown()), "entities")
        found = await session.states(f"sensor.{DEVICE}")
        found |= await session.states(f"event.{DEVICE}")
        assert set(found) == ENTITIES
        name = found[TRACKS[0]]["attributes"]["friendly_name"]
        assert name == "Cribbage board Table 4 Track 1 score"
        devices = await session.command("config/device_registry/list")
        [device] = [d for d in devices if ["mqtt", "boardctl_Table_4"] in d["identifiers"]]
        shown_as = (device["name"], device["manufacturer"], device["model"], device["sw_version"])
        assert shown_as == ("Cribbage board Table 4", MANUFACTURER, MODEL, __version__)
        docs = (REPO / "docs" / "mqtt.md").read_text()
        assert all(f"`{entity}`" in docs for entity in ENTITIES), "docs/mqtt.md names them"

        await asyncio.to_thread(peg, board, 1, 12)
        after = sensors(board.ask("status"))
        assert after[TRACKS[0]] == "12"
        await changes.wait(lambda: matches(changes, after), "the peg's score")

        for points in (20, 20, 21):  # Bob wins 61 to 12: a skunk
            await asyncio.to_thread(peg, board, 2, points)
        status = board.ask("status")
        assert status["winner"] == 1
        level = status["tracks"][0]["lines_failed"]
        assert level >= 1

        def events() -> list[dict[str, Any]] | None:
            fired = [
                c["new_state"]["attributes"]
                for c in changes.seen
                if c["entity_id"] == GAME and c["new_state"]
                if c["new_state"]["attributes"].get("event_type")
            ]
            return fired if len(fired) >= 2 else None

        fired = await changes.wait(events, "the game_over and skunk events")
        assert [e["event_type"] for e in fired] == ["game_over", "skunk"]
        assert all(e["winner"] == "Bob" and e["scores"] == [12, 61] for e in fired)
        assert fired[1]["level"] == level
        await changes.wait(lambda: matches(changes, sensors(board.ask("status"))), "final status")

        bridge.kill()  # its last will: the broker says "offline" for it
        bridge.wait(10)
        gone = dict.fromkeys(ENTITIES, "unavailable")
        await changes.wait(lambda: matches(changes, gone), "unavailable after the bridge died")

    asyncio.run(scenario())
    log = home_assistant.log()
    assert "[homeassistant.bootstrap]" in log  # its live log (--skip-pip's warning is always there)
    mqtt_complaints = re.findall(
        r"^.* (?:WARNING|ERROR) .*\[homeassistant\.components\.mqtt[^\]]*\].*$", log, re.MULTILINE
    )
    assert mqtt_complaints == []  # no discovery payload it refused, no event type it did not know
