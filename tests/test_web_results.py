"""The pages' results, records and standings documents, from results as the broker holds them."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from boardctl.demo.game import DemoGame
from boardctl.errors import ConfigError
from boardctl.game.keeper import Scorekeeper
from boardctl.results.records import records
from boardctl.results.sign import sign_record
from boardctl.results.source import load_games
from boardctl.standings import by_hand, keyring
from boardctl.standings.games import from_record
from boardctl.standings.report import report
from boardctl.web.page_config import StandingsOptions, parse_web_config
from boardctl.web.results import Changes, Messages, board_document, standings_document

KEY = bytes(range(32))


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, object]]:
    """Six demo games on one board (real cards), as the bridge publishes them (signed)."""
    path = tmp_path_factory.mktemp("season") / "journal.sqlite"
    with Scorekeeper.open(path) as keeper:
        for seed in range(6):
            DemoGame(seed=seed, keeper=keeper).play()
    return [
        sign_record({"id": f"{g.result.first_seq}", **g.result.to_dict()}, KEY)
        for g in load_games(path)
    ]


def messages(records: list[dict[str, object]]) -> Messages:
    """The records as the broker holds them: payloads by (board, id)."""
    return {(str(r.get("board")), str(r.get("id"))): json.dumps(r).encode() for r in records}


def keys_for(tmp_path: Path, board: object) -> str:
    path = tmp_path / "board-keys.json"
    keyring.add(path, str(board), KEY)
    return str(path)


def test_the_board_document_lists_this_boards_results_and_the_records(
    season: list[dict[str, object]], tmp_path: Path
) -> None:
    other = {**season[0], "board": "elsewhere", "id": "other"}
    document = board_document(messages([*season, other]), str(season[0]["board"]))
    assert document["games"] == len(season)  # the other board's game is not this board's
    ends = [row["end"] for row in document["results"]]
    assert ends == sorted(ends, reverse=True)
    # the records are those of stats players for the same games, less what needs the entries
    path = tmp_path / "j.sqlite"
    with Scorekeeper.open(path) as keeper:
        for seed in range(6):
            DemoGame(seed=seed, keeper=keeper).play()
    full = records(load_games(path)).players
    for row in document["players"]:
        mine = full[str(row["name"]).casefold()]
        assert (row["games"], row["wins"], row["game_points"]) == (
            mine.games,
            mine.wins,
            mine.game_points,
        )
        assert (row["skunks_given"], row["skunks_taken"]) == (mine.skunks_given, mine.skunks_taken)
        assert row["average_spread"] == mine.average_spread
        assert row["average_hand"] is None and row["average_pegging"] is None
    assert board_document(messages([{"id": "bad", "board": "b", "format": 99}]), "")["games"] == 0


def test_the_standings_document_ranks_as_the_command_does(
    season: list[dict[str, object]], tmp_path: Path
) -> None:
    manual = tmp_path / "manual.jsonl"
    by_hand.add(manual, by_hand.manual_game([("Zed", 121), ("Alice", 60)], end="2099-01-01"))
    keys = keys_for(tmp_path, season[0]["board"])
    options = StandingsOptions(manual=str(manual), keyring=keys)
    board = str(season[0]["board"])
    junk = {(board, "junk"): b'{"names":"x"}', (board, "big"): b"[" * 5_000_000}
    forged = {**season[0], "end": "2099-12-31T00:00:00.000Z"}  # changed after signing: fails
    greedy = {**season[0], "id": "greedy", "game_points": 1_000_000}  # out of bounds: dropped
    unsigned = {**season[1], "board": "other", "key": "", "hmac": ""}  # no key held: apart
    held = {**messages(season), **junk, **messages([unsigned])}
    held[(board, "forged")] = json.dumps({**forged, "id": "forged"}).encode()
    held[(board, "greedy")] = json.dumps(greedy).encode()
    held[(board, "moved")] = messages(season)[(board, str(season[2]["id"]))]  # topic disagrees
    document = standings_document(held, options)
    games = [from_record(r) for r in season] + by_hand.load(manual)
    expected = report(games).to_dict()
    assert document["ok"] and document["skipped"] == 4 and "4 malformed" in document["note"]
    assert document["standings"] == expected["standings"] and document["games"] == len(games)
    assert document["latest"][0]["names"] == ["Zed", "Alice"]  # newest first
    apart = {(a["board"], a["id"]): a["reason"] for a in document["apart"]}
    assert "does not match" in apart[(board, "forged")]
    assert apart[("other", str(unsigned["id"]))] == "not signed; no key held for board other"
    counting = standings_document(held, StandingsOptions(keyring=keys, count_unverified=True))
    assert counting["games"] == len(season) + 1 and len(counting["apart"]) == 1
    late = standings_document(
        messages(season), StandingsOptions(playoffs_since="2099-01-01", keyring=keys)
    )
    assert late["bracket"] is not None and late["cut"] >= 2
    broken = standings_document(messages(season), StandingsOptions(manual=str(tmp_path)))
    assert broken["ok"] is False and "cannot read" in broken["error"]
    gone = standings_document(messages(season), StandingsOptions(manual=str(tmp_path / "no")))
    assert gone["ok"] is False and "no such file" in gone["error"]


def test_the_standings_section_of_web_toml_is_checked() -> None:
    config = parse_web_config(
        {"web": {"results": "mqtt"}, "standings": {"by": "player", "best_of": 5}}
    )
    assert config.results == "mqtt" and config.standings == StandingsOptions(by="player", best_of=5)
    for bad in (
        {"web": {"results": "journal"}},
        {"standings": {"best_of": 4}},
        {"standings": {"by": "seat"}},
        {"standings": {"since": 2026}},
        {"standings": {"colour": "red"}},
        {"standings": "all"},
    ):
        with pytest.raises(ConfigError):
            parse_web_config(bad)


def test_changes_reach_every_page_and_a_late_one_gets_the_newest() -> None:
    import asyncio

    async def body() -> None:
        changes = Changes()
        reader, late = changes.subscribe(), changes.subscribe()
        assert (await reader.get())["version"] == 0
        changes.changed("")
        assert (await reader.get())["version"] == 1  # a page that reads sees every change
        for _ in range(9):
            changes.changed("")
        changes.changed("the broker is away")
        seen = []
        while not late.empty():
            seen.append(late.get_nowait())
        assert len(seen) <= 4  # a page that does not read holds a few, the newest last
        assert seen[-1] == {"version": 11, "error": "the broker is away"}
        changes.unsubscribe(late)
        changes.changed("")
        assert late.empty()

    asyncio.run(body())


def test_the_feed_waits_for_the_broker_and_follows_its_results(
    season: list[dict[str, object]], tmp_path: Path
) -> None:
    """A real mosquitto: the feed says the broker is away, then takes every retained result."""
    import threading

    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from boardctl.config import MqttConfig
    from boardctl.web.results import ResultsFeed
    from tests.mqtt_broker import Broker, have_mosquitto

    assert have_mosquitto(), "this test needs mosquitto (apt-get install mosquitto)"
    broker = Broker(tmp_path / "broker")
    feed = ResultsFeed(MqttConfig(host="127.0.0.1", port=broker.port), timeout=2.0)
    seen = threading.Event()
    feed.start(seen.set)
    try:
        assert seen.wait(10) and "cannot reach the MQTT broker" in feed.error
        broker.start()
        client = mqtt.Client(CallbackAPIVersion.VERSION2)
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        for record in season[:3]:
            topic = f"boardctl/{record['board']}/results/2026-12-01/{record['id']}"
            client.publish(topic, json.dumps(record), qos=1, retain=True).wait_for_publish(5)
        client.loop_stop()
        client.disconnect()
        deadline = time.monotonic() + 30
        while len(feed.results) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert feed.error == ""
        games = sorted(slot.split("/")[1] for _, slot in feed.results)
        assert games == sorted(str(r["id"]) for r in season[:3])
    finally:
        broker.close()


def test_with_since_the_feed_reads_only_the_events_from_then_on(
    season: list[dict[str, object]], tmp_path: Path
) -> None:
    """``[standings] since``: an older event's retained results never reach the page's feed."""
    import datetime
    import threading

    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    from boardctl.config import MqttConfig
    from boardctl.web.results import ResultsFeed
    from tests.mqtt_broker import Broker

    broker = Broker(tmp_path / "broker")
    broker.start()
    try:
        client = mqtt.Client(CallbackAPIVersion.VERSION2)
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        nights = {"2026-11-20": season[:2], "2026-11-30": season[2:5]}
        for night, records in nights.items():
            for record in records:
                topic = f"boardctl/{record['board']}/results/{night}/{record['id']}"
                client.publish(topic, json.dumps(record), qos=1, retain=True).wait_for_publish(5)
        client.loop_stop()
        client.disconnect()
        tonight = datetime.datetime(2026, 11, 30, 22, 0).astimezone().timestamp()
        config = MqttConfig(host="127.0.0.1", port=broker.port)
        feed = ResultsFeed(config, timeout=2.0, since="2026-11-29", clock=lambda: tonight)
        seen = threading.Event()
        feed.start(seen.set)
        assert seen.wait(30) and feed.error == ""
        games = sorted(slot.split("/")[1] for _, slot in feed.results)
        assert games == sorted(str(r["id"]) for r in nights["2026-11-30"])
    finally:
        broker.close()
