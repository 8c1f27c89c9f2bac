"""The MQTT bridge's parts: results from the journal, acknowledgements, discovery, the unit.

The bridge itself runs here against a real mosquitto (tests/mqtt_broker.py),
with the journal written by a scorekeeper and no service running (the bridge
then reads the journal alone and says the board is offline).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import unicodedata
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from boardctl.config import MqttConfig, parse_config
from boardctl.errors import ConfigError
from boardctl.game import JsonValue
from boardctl.game.commands import parse_command
from boardctl.game.keeper import Scorekeeper
from boardctl.game.status import status_dict
from boardctl.mqtt import discovery, retention, topics
from boardctl.mqtt.acks import Acks
from boardctl.mqtt.bridge import Bridge, Paths
from boardctl.mqtt.decommission import decommission
from boardctl.mqtt.result_feed import ResultFeed, digest
from tests.bridge_results import finished_results
from tests.mqtt_broker import Broker

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd" / "boardctl-mqtt.service"
SETUP: dict[str, JsonValue] = {"variant": "six-card", "mode": "free", "target": 61}


def apply(keeper: Scorekeeper, data: dict[str, Any]) -> Any:
    """A command as the control socket and the CLI give it: JSON, parsed once."""
    return keeper.apply(parse_command(data))


def win(keeper: Scorekeeper, track: int, loser_points: int) -> None:
    """One game: the loser's points, then the winner's 61."""
    for chunk in [20] * (loser_points // 20) + [loser_points % 20]:
        if chunk:
            apply(keeper, {"op": "peg", "track": 1 - track, "points": chunk})
    for points in (20, 20, 20, 1):
        apply(keeper, {"op": "peg", "track": track, "points": points})


# --- results from the journal ----------------------------------------------------


def test_results_follow_the_journal_through_undo_and_next(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with Scorekeeper.open(path, setup=SETUP) as keeper:
        apply(keeper, {"op": "set", "key": "names", "value": ["Ann", "Bob"]})
        win(keeper, 0, 20)
        feed = ResultFeed(path, "b1")
        assert feed.refresh()
        (only,) = feed.results.values()
        assert (only["scores"], only["winner"], only["skunk"], only["final"]) == (
            [61, 20],
            0,
            1,
            False,
        )
        assert (only["game_points"], only["spread"], only["names"]) == (3, 41, ["Ann", "Bob"])
        apply(keeper, {"op": "undo"})  # the winning entry taken back: no result any more
        assert feed.refresh() and feed.results == {}
        apply(keeper, {"op": "peg", "track": 1, "points": 20})  # Bob to 40
        apply(keeper, {"op": "peg", "track": 0, "points": 1})  # Ann wins 61-40: no skunk
        apply(keeper, {"op": "next"})
        win(keeper, 1, 45)
        apply(keeper, {"op": "next"})
        assert feed.refresh()
        feed.close()
        results = finished_results(path, "b1")
        assert [(r["scores"], r["winner"], r["skunk"], r["final"]) for r in results] == [
            ([61, 40], 0, 0, True),
            ([45, 61], 1, 0, True),
        ]
        assert [r["id"] for r in results] == list(feed.results)
        first = keeper.journal
        assert first is not None
    # an independent check of the ids: each is the game's first event and its checksum
    from boardctl.store.journal import Journal

    with Journal.open(path, readonly=True) as journal:
        starts: list[str] = []
        for record in journal.records():
            if record.event["op"] in ("new_game", "next") and (
                record.event["op"] == "new_game" or starts
            ):
                starts.append(f"{record.seq}-{journal.last_crc:08x}")
    assert [r["id"] for r in results] == starts[:2]


def test_the_feed_read_event_by_event_equals_the_results_of_the_whole_journal(
    tmp_path: Path,
) -> None:
    """Two matches to 5 game points and a single game, read as they are written."""
    from boardctl.results.source import load_games

    path = tmp_path / "journal.sqlite"
    feed = ResultFeed(path, "b1")
    with Scorekeeper.open(path, setup={**SETUP, "match": 5}) as keeper:

        def step(command: dict[str, Any]) -> None:
            apply(keeper, command)
            feed.refresh()

        for match in range(2):
            if match:
                step({"op": "new_game", "variant": "six-card", "mode": "free", "match": 5})
            for game in range(3):
                if keeper.status()["match_winner"] is not None:
                    break
                if game:
                    step({"op": "next"})
                winner = (match + game) % 2
                loser = (20,) if game % 2 == 0 else (20, 20)  # a skunk (3 GP), then 2 GP
                for points in loser:
                    step({"op": "peg", "track": 1 - winner, "points": points})
                for points in (20, 20, 20, 1):
                    step({"op": "peg", "track": winner, "points": points})
        step({"op": "new_game", "variant": "six-card", "mode": "free", "match": 0})
        win(keeper, 1, 40)
        feed.refresh()
    whole = [g.result.to_dict() for g in load_games(path, board="b1")]
    # each match: A by a skunk (3), B (2), A by a skunk (3): A has 6 and the match
    assert [(r["match"], r["game"], r["game_points"]) for r in whole] == [
        (1, 1, 3),
        (1, 2, 2),
        (1, 3, 3),
        (2, 1, 3),
        (2, 2, 2),
        (2, 3, 3),
        (3, 1, 2),
    ]
    assert [{k: v for k, v in r.items() if k != "id"} for r in feed.results.values()] == whole
    assert [r["final"] for r in feed.results.values()] == [True] * 6 + [False]
    feed.close()


def test_acks_survive_a_restart_and_a_torn_file_means_publish_again(tmp_path: Path) -> None:
    path = tmp_path / "acks.json"
    acks = Acks(path)
    acks.acknowledged("1-aa", "d1")
    acks.acknowledged("2-bb", "d2")
    acks.acknowledged("2-bb", None)
    assert not path.exists()  # nothing is written until a flush
    acks.flush()
    assert Acks(path).digests == {"1-aa": "d1"} and not acks.dirty
    path.write_text('{"version": 1, "results": {"1-a')
    assert Acks(path).digests == {}


def test_a_board_id_that_cannot_be_a_topic_level_is_refused(tmp_path: Path) -> None:
    from boardctl.cli import main
    from boardctl.mqtt import MqttError

    (tmp_path / "board-id").write_text("room 2/table 4\n")
    with pytest.raises(MqttError, match="topic level"):
        topics.check_level("room 2/table 4")
    assert topics.check_level("room2-table4") == "room2-table4"
    code = main(["mqtt", "--journal", str(tmp_path / "journal.sqlite"), "--socket", "/nonexistent"])
    assert code == 1  # refused before anything connects


def test_the_mqtt_section_is_checked() -> None:
    config = parse_config({"mqtt": {"host": "broker.club", "tls": True, "board_id": "table-3"}})
    assert config.mqtt.board_id == "table-3" and config.mqtt.tls
    for bad in ({"board_id": "a/b"}, {"prefix": "#"}, {"port": 70000}, {"keepalive": "x"}):
        with pytest.raises(ConfigError, match="mqtt"):
            parse_config({"mqtt": bad})


# --- Home Assistant discovery ------------------------------------------------------

# Home Assistant's documented discovery abbreviations (homeassistant/components/mqtt/
# abbreviations.py and the MQTT discovery page) for the keys the payloads use.
HA_ABBREVIATIONS = {
    "avty_t": "availability_topic",
    "dev": "device",
    "evt_typ": "event_types",
    "ic": "icon",
    "name": "name",
    "stat_cla": "state_class",
    "stat_t": "state_topic",
    "uniq_id": "unique_id",
    "val_tpl": "value_template",
}
HA_DEVICE_ABBREVIATIONS = {
    "cu": "configuration_url",
    "ids": "identifiers",
    "mdl": "model",
    "mf": "manufacturer",
    "name": "name",
    "sw": "sw_version",
}
# Required keys per component (the sensor and event integration pages).
HA_REQUIRED = {"sensor": {"state_topic"}, "event": {"state_topic", "event_types"}}
HA_STATE_CLASSES = {"measurement", "total", "total_increasing"}
TOPIC = re.compile(r"^homeassistant/(sensor|event)/[A-Za-z0-9_-]+/[A-Za-z0-9_-]+/config$")


def expand(payload: dict[str, Any]) -> dict[str, Any]:
    full = {}
    for key, value in payload.items():
        assert key in HA_ABBREVIATIONS, f"{key!r} is not a documented key or abbreviation"
        full[HA_ABBREVIATIONS[key]] = value
    device = full.get("device", {})
    full["device"] = {HA_DEVICE_ABBREVIATIONS[k]: v for k, v in device.items()}
    return full


def test_discovery_payloads_use_documented_keys_and_carry_the_required_ones() -> None:
    disc = discovery.Discovery("table 3", MqttConfig(config_url="http://table3.local/"))
    messages = disc.messages(3)
    status = status_dict(Scorekeeper.memory({"variant": "three-player", "mode": "free"}).state)
    unique = set()
    for topic, payload in messages.items():
        match = TOPIC.match(topic)
        assert match, topic
        full = expand(json.loads(discovery.encode(payload)))
        assert HA_REQUIRED[match.group(1)] <= set(full)
        assert set(full["device"]) <= set(HA_DEVICE_ABBREVIATIONS.values())
        assert full["device"]["identifiers"] and full["device"]["configuration_url"]
        assert full["availability_topic"] == "boardctl/table 3/availability"
        unique.add(full["unique_id"])
        assert full.get("state_class", "measurement") in HA_STATE_CLASSES
        for name in re.findall(r"value_json\.(\w+)", full.get("value_template", "")):
            assert name in status, name  # the template reads keys the state really has
    assert len(unique) == len(messages)  # one entity each
    assert len([t for t in messages if "_score/" in t]) == 3
    event = json.loads(discovery.encode(messages[disc.topic("event", "game")]))
    assert event["evt_typ"] == ["game_over", "skunk"]
    assert discovery.node_id("table 3") == "table_3"


def ha_slug(text: str) -> str:
    """Home Assistant's ``slugify`` for ASCII and accented Latin text (not other scripts)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_") or "unknown"


def entity_ids(disc: discovery.Discovery, tracks: int) -> list[str]:
    """The entity ids Home Assistant makes from the discovery messages: ``<component>.`` and
    the device's and the entity's names slugified (docs/mqtt.md, "Entity ids")."""
    out = []
    for topic, payload in disc.messages(tracks).items():
        component = topic.split("/")[-4]
        out.append(f"{component}.{ha_slug(payload['dev']['name'] + ' ' + payload['name'])}")
    return out


def test_the_entity_ids_home_assistant_makes_follow_from_the_payloads() -> None:
    """Device name + entity name, slugified; the docs' table says the same."""
    ids = entity_ids(discovery.Discovery("Table 4"), 3)
    assert "sensor.cribbage_board_table_4_track_1_score" in ids  # the id Home Assistant made
    assert ids == [
        "sensor.cribbage_board_table_4_track_1_score",
        "sensor.cribbage_board_table_4_track_2_score",
        "sensor.cribbage_board_table_4_track_3_score",
        "sensor.cribbage_board_table_4_phase",
        "sensor.cribbage_board_table_4_dealer",
        "sensor.cribbage_board_table_4_whose_count",
        "event.cribbage_board_table_4_game",
    ]
    assert ha_slug("Cribbage board Tärna--2 ") == "cribbage_board_tarna_2"
    docs = (REPO / "docs" / "mqtt.md").read_text()
    for entity in ids[:2] + ids[3:]:
        assert f"`{entity}`" in docs, entity
    assert "sensor.<node>_track1_score" not in docs  # the id it never made


def test_game_events_fire_once_at_the_win_with_the_skunk() -> None:
    keeper = Scorekeeper.memory(SETUP)
    before = keeper.status()
    win(keeper, 0, 20)
    after = keeper.status()
    events = discovery.game_events(before, after)
    assert [e["event_type"] for e in events] == ["game_over", "skunk"]
    assert events[1]["level"] == 1 and events[0]["scores"] == [61, 20]
    assert discovery.game_events(after, after) == []


# --- the bridge against a real broker ------------------------------------------------


class Probe:
    """A subscriber that keeps the last message of every topic it sees."""

    def __init__(self, broker: Broker, pattern: str) -> None:
        self.seen: dict[str, bytes] = {}
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"probe{time.time_ns()}")
        self.client.on_message = lambda c, u, m: self.seen.__setitem__(m.topic, bytes(m.payload))
        self.client.connect("127.0.0.1", broker.port)
        self.client.subscribe(pattern, 1)
        self.client.loop_start()

    def wait(self, check: Any, seconds: float = 10) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if check(self.seen):
                return True
            time.sleep(0.05)
        return bool(check(self.seen))

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def config_for(broker: Broker) -> MqttConfig:
    return MqttConfig(host="127.0.0.1", port=broker.port, board_id="b1")


def test_a_bridge_without_its_service_publishes_the_journal_and_withdraws_an_undone_win(
    broker: Broker, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.sqlite"
    keeper = Scorekeeper.open(journal, setup=SETUP)
    win(keeper, 0, 20)
    paths = Paths(tmp_path / "no-service.sock", journal, tmp_path / "acks.json")
    bridge = Bridge(config_for(broker), paths, "b1")
    thread = threading.Thread(target=bridge.run)
    probe = Probe(broker, "boardctl/b1/#")
    thread.start()
    try:
        (game,) = finished_results(journal, "b1")
        night = retention.event_of(game["end"])
        topic = topics.result("boardctl", "b1", topics.slot(night, game["id"]))
        assert probe.wait(lambda seen: json.loads(seen.get(topic, b"null") or b"null") == game)
        assert probe.wait(lambda seen: seen.get("boardctl/b1/availability") == b"offline")
        assert probe.wait(lambda seen: digest(game) in Acks(paths.acks).digests.values())
        apply(keeper, {"op": "undo"})  # the service is down: the CLI writes the journal
        withdrawal = retention.withdrawal("b1", game["id"], None)  # the board has no key here
        assert probe.wait(lambda seen: json.loads(seen.get(topic) or b"null") == withdrawal)
        assert probe.wait(lambda seen: Acks(paths.acks).digests == {
            topics.slot(night, game["id"]): digest(withdrawal)})  # fmt: skip
    finally:
        bridge.stop()
        thread.join(10)
        probe.close()
        keeper.close()
    assert not thread.is_alive()


def test_catch_up_after_the_bridge_was_away_and_decommission(
    broker: Broker, tmp_path: Path
) -> None:
    journal = tmp_path / "journal.sqlite"
    with Scorekeeper.open(journal, setup=SETUP) as keeper:
        for n in range(6):
            win(keeper, n % 2, 20 + n)
            apply(keeper, {"op": "next"})
    paths = Paths(tmp_path / "no-service.sock", journal, tmp_path / "acks.json")
    bridge = Bridge(config_for(broker), paths, "b1")
    thread = threading.Thread(target=bridge.run)
    thread.start()
    probe = Probe(broker, "boardctl/b1/results/+/+")
    try:
        assert probe.wait(lambda seen: len([p for p in seen.values() if p]) == 6)
    finally:
        bridge.stop()
        thread.join(10)
        probe.close()
    assert len(Acks(paths.acks).digests) == 6
    cleared = decommission(config_for(broker), "b1", results=True)
    assert cleared >= 6 + 2
    left = Probe(broker, "#")
    time.sleep(0.5)
    left.close()
    assert {t: p for t, p in left.seen.items() if "b1" in t} == {}


def test_standings_collect_every_board_and_follow_a_withdrawal(broker: Broker) -> None:
    from boardctl.standings.collect import collect

    config = config_for(broker)
    record = {"names": ["Ann", "Bob"], "scores": [121, 90], "winner": 0, "game_points": 2}
    for board, game in (("b1", "1-aa"), ("b2", "1-bb"), ("b2", "9-cc")):
        body = json.dumps({**record, "id": game, "board": board}).encode()
        probe = Probe(broker, "x")
        probe.client.publish(
            topics.result("boardctl", board, f"2026-12-01/{game}"), body, 1, True
        ).wait_for_publish(5)
        probe.close()
    assert set(collect(config)) == {
        ("b1", "2026-12-01/1-aa"),
        ("b2", "2026-12-01/1-bb"),
        ("b2", "2026-12-01/9-cc"),
    }
    seen: list[int] = []

    def follow(results: dict[tuple[str, str], Any]) -> bool:
        seen.append(len(results))
        if len(seen) == 1:  # the retained ones are in: withdraw one
            withdraw = Probe(broker, "x")
            topic = topics.result("boardctl", "b2", "2026-12-01/9-cc")
            withdraw.client.publish(topic, b"", 1, True).wait_for_publish(5)
            withdraw.close()
        return len(seen) < 2

    collect(config, follow=follow)
    assert seen == [3, 2]


# --- the unit ---------------------------------------------------------------------


def test_the_bridge_unit_verifies_and_is_hardened(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is missing: install the systemd package"
    program = Path(sys.executable).parent / "boardctl"
    copy = tmp_path / "boardctl-mqtt.service"
    copy.write_text(UNIT.read_text().replace("/opt/boardctl/venv/bin/boardctl", str(program)))
    verify = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True)
    assert verify.returncode == 0 and verify.stdout + verify.stderr == ""
    security = subprocess.run(
        [analyze, "security", "--offline=yes", "--no-pager", str(UNIT)],
        capture_output=True,
        text=True,
        env={**os.environ, "SYSTEMD_COLORS": "0"},
    )
    level = re.search(
        r"Overall exposure level for boardctl-mqtt\.service: (\d+\.\d+)", security.stdout
    )
    assert level and float(level.group(1)) <= 2.5
    text = UNIT.read_text()
    assert "boardctl mqtt run" in text and "User=boardctl" in text
    assert "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6" in text
    assert "\nRuntimeDirectory=" not in text  # /run/boardctl is the board service's
    board_unit = (REPO / "systemd" / "boardctl.service").read_text()
    assert "PrivateNetwork=yes" in board_unit  # the network is the bridge's alone


class FakeClient:
    """A paho client that records what is published (for the bridge's own logic alone)."""

    def __init__(self, config: MqttConfig, name: str) -> None:
        self.published: dict[str, bytes] = {}

    def will_set(self, *args: Any, **kwargs: Any) -> None:
        pass

    def publish(self, topic: str, payload: bytes | str, qos: int, retain: bool) -> Any:
        self.published[topic] = payload if isinstance(payload, bytes) else payload.encode()
        return mqtt.MQTTMessageInfo(len(self.published))


def test_a_restarted_bridge_that_syncs_before_its_first_read_republishes_what_the_broker_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = tmp_path / "journal.sqlite"
    with Scorekeeper.open(journal, setup=SETUP) as keeper:
        win(keeper, 0, 20)
        apply(keeper, {"op": "next"})
    (game,) = finished_results(journal, "b1")
    slot = topics.slot(retention.event_of(game["end"]), game["id"])
    paths = Paths(tmp_path / "no-service.sock", journal, tmp_path / "acks.json")
    acks = Acks(paths.acks)  # the broker acknowledged it before it was killed and lost it
    acks.acknowledged(slot, digest(game))
    acks.flush()
    monkeypatch.setattr("boardctl.mqtt.bridge.make_client", FakeClient)
    bridge = Bridge(config_for_port(1), paths, "b1")
    client: FakeClient = bridge.client  # type: ignore[assignment]
    bridge._connected = True  # connected; the broker's read-back is in, empty: it lost all
    bridge._reconcile()  # before the loop's first read of the journal
    topic = topics.result("boardctl", "b1", slot)
    assert json.loads(client.published[topic]) == game


def config_for_port(number: int) -> MqttConfig:
    return MqttConfig(host="127.0.0.1", port=number, board_id="b1")
