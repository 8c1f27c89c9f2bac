"""Results under their event: retention, closing an event, what a director fetches, a season.

A real mosquitto (tests/mqtt_broker.py); the bridge runs in this process on an
injected clock where the test needs the days to pass.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl.cli import main
from boardctl.config import MqttConfig
from boardctl.game.keeper import Scorekeeper
from boardctl.mqtt import retention, topics
from boardctl.mqtt.bridge import Bridge, Paths
from boardctl.results.sign import write_key
from boardctl.standings import StandingsError, archive, season
from boardctl.standings.collect import collect
from boardctl.standings.games import from_record
from boardctl.standings.report import report
from tests.bridge_results import finished_results
from tests.mqtt_broker import Broker
from tests.test_mqtt import SETUP, Probe, apply, win

DAY = 86400.0


def one_finished_game(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """A journal in ``tmp_path`` with one game won 61-20, and that game's result."""
    journal = tmp_path / "journal.sqlite"
    with Scorekeeper.open(journal, setup=SETUP) as keeper:
        win(keeper, 0, 20)
        apply(keeper, {"op": "next"})
    (game,) = finished_results(journal, "b1")
    return journal, game


def config_for(broker: Broker) -> MqttConfig:
    return MqttConfig(host="127.0.0.1", port=broker.port, board_id="b1")


def test_a_game_counts_for_the_evening_it_was_played_in_until_day_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert retention.event_of("2026-12-02T04:30:00.000Z") == "2026-12-01"  # 23:30 local
        assert retention.event_of("2026-12-02T10:59:00.000Z") == "2026-12-01"  # 05:59 local
        assert retention.event_of("2026-12-02T11:00:00.000Z") == "2026-12-02"  # 06:00 local
        assert retention.event_of("2026-12-02T04:30:00.000Z", day_starts=0) == "2026-12-01"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert retention.kept("2026-12-01", "2026-12-15") and not retention.kept(
        "2026-12-01", "2026-12-16"
    )
    assert not retention.kept("not-a-date", "2026-12-15")
    assert retention.is_withdrawal(b"") and retention.is_withdrawal(b'{"withdrawn": true}')
    assert not retention.is_withdrawal(b'{"withdrawn": false}') and not retention.is_withdrawal(
        b"x"
    )


def run_bridge(bridge: Bridge) -> threading.Thread:
    thread = threading.Thread(target=bridge.run)
    thread.start()
    return thread


def stop(bridge: Bridge, thread: threading.Thread) -> None:
    bridge.stop()
    thread.join(10)
    assert not thread.is_alive()


def test_the_bridge_withdraws_its_results_once_their_event_is_past_keep_days(
    broker: Broker, tmp_path: Path
) -> None:
    journal, game = one_finished_game(tmp_path)
    night = retention.event_of(game["end"])
    topic = topics.result("boardctl", "b1", topics.slot(night, game["id"]))
    clock = [time.time()]
    paths = Paths(tmp_path / "none.sock", journal, tmp_path / "acks.json")
    bridge = Bridge(config_for(broker), paths, "b1", clock=lambda: clock[0])
    probe = Probe(broker, "boardctl/b1/results/#")
    thread = run_bridge(bridge)
    try:
        assert probe.wait(lambda seen: json.loads(seen.get(topic) or b"null") == game)
        clock[0] += 14 * DAY  # still kept on the 14th day after
        time.sleep(1.5)  # the bridge's tick reads the clock every second
        assert probe.seen[topic] != b""
        clock[0] += DAY
        assert probe.wait(lambda seen: seen.get(topic) == b"")  # cleared: past keep_days
    finally:
        stop(bridge, thread)
        probe.close()
    bridge = Bridge(config_for(broker), paths, "b1", clock=lambda: clock[0])
    thread = run_bridge(bridge)  # a restarted bridge does not bring it back
    try:
        assert probe.wait(lambda seen: False, 2) is False
        assert collect(config_for(broker)) == {}
    finally:
        stop(bridge, thread)


def test_closing_an_event_archives_its_signed_results_and_clears_them_for_good(
    broker: Broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "journal.sqlite"
    key = write_key(tmp_path / "board.key")
    with Scorekeeper.open(journal, setup=SETUP) as keeper:
        for n in range(3):
            win(keeper, n % 2, 20 + n)
            apply(keeper, {"op": "next"})
    games = finished_results(journal, "b1", key)
    night = retention.event_of(games[0]["end"])
    paths = Paths(tmp_path / "none.sock", journal, tmp_path / "acks.json")
    bridge = Bridge(config_for(broker), paths, "b1")
    thread = run_bridge(bridge)
    probe = Probe(broker, "boardctl/#")
    config = tmp_path / "config.toml"
    config.write_text(f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n')
    keys = tmp_path / "keys.json"
    assert main(["key", "add", "b1", str(tmp_path / "board.key"), "--keyring", str(keys)]) == 0
    folder = tmp_path / "events"
    try:
        assert probe.wait(lambda _: len(collect(config_for(broker), only=[night])) == 3)
        capsys.readouterr()
        assert main(["standings", "--config", str(config), "--archives", str(folder),
                     "close", night]) == 0  # fmt: skip
        assert f"closed {night}: 3 results" in capsys.readouterr().out
        assert collect(config_for(broker)) == {}  # cleared from the broker
        closed = topics.closed("boardctl", night)
        assert probe.wait(lambda seen: closed in seen)  # (the probe's copy may come later)
        mark = probe.seen[closed]
        assert json.loads(mark)["event"] == night
        # the bridge, reconnecting, does not put them back: the event is closed
        stop(bridge, thread)
        bridge = Bridge(config_for(broker), paths, "b1")
        thread = run_bridge(bridge)
        assert probe.wait(lambda seen: seen.get("boardctl/b1/availability") == b"offline")
        time.sleep(1.0)
        assert collect(config_for(broker)) == {}
    finally:
        stop(bridge, thread)
        probe.close()
    # the archive: every record as the board signed it, verified with the director's keys
    lines = (folder / f"{night}.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == sorted(g["id"] for g in games)
    assert [json.loads(line) for line in lines] == sorted(games, key=lambda g: g["id"])
    base = ["standings", "--keyring", str(keys), "--archives", str(folder)]
    base += ["--manual", str(tmp_path / "none.jsonl")]
    (tmp_path / "none.jsonl").write_text("")
    assert main([*base, "--json", "season", night]) == 0
    document = json.loads(capsys.readouterr().out)
    expected = report([from_record(g) for g in games])
    assert document["games"] == 3 and document["apart"] == []
    assert [(r["player"], r["game_points"], r["spread"]) for r in document["standings"]] == [
        (r.player, r.game_points, r.spread) for r in expected.rows
    ]
    # a changed archive line fails verification and does not count
    tampered = json.loads(lines[0])
    tampered["end"] = "2026-01-01T00:00:00.000Z"
    (folder / f"{night}.jsonl").write_text("\n".join([json.dumps(tampered), *lines[1:]]) + "\n")
    assert main([*base, "--json", "season"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["games"] == 2 and "1 failing verification" in err


def record(board: str, game: str, end: str, names: tuple[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = {"id": game, "board": board, "names": list(names), "scores": [121, 95]}
    body |= {"winner": 0, "game_points": 2, "skunk": 0, "end": end, "final": True}
    return body


def test_a_director_fetches_only_the_events_it_ranks_however_many_past_events_are_kept(
    broker: Broker, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Counted, not timed: the messages that reach the director's client."""
    publisher = Probe(broker, "none")
    try:
        for day in range(1, 31):  # thirty past nights of eight results, and tonight's five
            night = f"2026-11-{day:02d}"
            for n in range(8 if day < 30 else 5):
                body = record(f"b{n}", f"{day}-{n}", f"{night}T20:00:00.000Z", ("Ann", "Bob"))
                topic = topics.result("boardctl", f"b{n}", topics.slot(night, body["id"]))
                publisher.client.publish(topic, json.dumps(body), 1, True).wait_for_publish(5)
    finally:
        publisher.close()
    fetched: list[str] = []
    parse = topics.parse_result

    def counting(prefix: str, topic: str) -> tuple[str, str] | None:
        fetched.append(topic)
        return parse(prefix, topic)

    monkeypatch.setattr(topics, "parse_result", counting)
    tonight = collect(config_for(broker), only=["2026-11-30"])
    assert len(tonight) == 5 and len(fetched) == 5  # 237 more are retained, none fetched
    fetched.clear()
    assert len(collect(config_for(broker))) == 29 * 8 + 5 and len(fetched) == 237
    # closing the past nights leaves the broker (and every director's fetch) with tonight's
    folder = tmp_path / "events"
    for day in range(1, 30):
        archive.close(config_for(broker), f"2026-11-{day:02d}", folder)
    fetched.clear()
    assert len(collect(config_for(broker))) == 5 and len(fetched) == 5
    assert len(archive.load(folder / "2026-11-01.jsonl")) == 8


def test_season_standings_rank_every_archive_with_the_roster_keeping_players_one(
    tmp_path: Path,
) -> None:
    key = write_key(tmp_path / "board.key")
    folder = tmp_path / "events"
    nights = {
        "2026-11-03": [("Ann", "Bob"), ("Cat", "ann ")],
        "2026-11-10": [("A. Smith", "Bob"), ("Bob", "Cat")],
    }
    journal = tmp_path / "journal.sqlite"
    with Scorekeeper.open(journal, setup=SETUP) as keeper:
        for pairs in nights.values():
            for pair in pairs:  # the first named wins 61-20 (a skunk: 3 game points)
                apply(keeper, {"op": "set", "key": "names", "value": list(pair)})
                win(keeper, 0, 20)
                apply(keeper, {"op": "next"})
    games = finished_results(journal, "t1", key)
    archive.write(archive.path_of(folder, "2026-11-03"), games[:2])
    archive.write(archive.path_of(folder, "2026-11-10"), games[2:])
    players = season.roster({"Ann Smith": ["Ann", "A. Smith"]})
    events = season.archived(folder)
    checked = season.season(events, folder, {"t1": key})
    assert events == list(nights) and len(checked.verified) == 4
    rows = report([season.named(g, players) for g in checked.verified]).rows
    # by hand: Ann Smith won twice and lost once; Bob won once, lost twice; Cat 1-1
    table = {r.player: (r.games, r.wins, r.game_points, r.spread) for r in rows}
    assert table == {
        "Ann Smith": (3, 2, 6, 41 + 41 - 41),
        "Bob": (3, 1, 3, -41 - 41 + 41),
        "Cat": (2, 1, 3, 41 - 41),
    }
    assert [r.player for r in rows] == ["Ann Smith", "Cat", "Bob"]  # level but on spread
    with pytest.raises(StandingsError, match="both"):
        season.roster({"Ann Smith": ["Ann"], "Ann Jones": ["ann"]})
    bad = tmp_path / "roster.toml"
    bad.write_text('[players]\n"Ann" = "A"\n')
    with pytest.raises(StandingsError, match="must list"):
        season.load_roster(bad)
    with pytest.raises(StandingsError, match="not an event"):
        archive.path_of(folder, "../x")


@given(
    board=st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True),
    event=st.dates().map(lambda d: d.isoformat()),
    first=st.integers(1, 10**9),
    crc=st.integers(0, 2**32 - 1),
)
def test_a_result_topic_gives_back_its_board_event_and_game(
    board: str, event: str, first: int, crc: int
) -> None:
    game = f"{first}-{crc:08x}"
    topic = topics.result("boardctl", board, topics.slot(event, game))
    assert topics.parse_result("boardctl", topic) == (board, f"{event}/{game}")
    assert topics.parse_result("boardctl", f"boardctl/{board}/results/{game}") == (board, game)
    assert topics.parse_closed("boardctl", topics.closed("boardctl", event)) == event


@given(at=st.integers(0, 4_000_000_000), starts=st.integers(0, 23))
def test_the_event_of_a_moment_is_the_local_date_day_starts_hours_before(
    at: int, starts: int
) -> None:
    import datetime

    moment = datetime.datetime.fromtimestamp(at, datetime.UTC)
    local = datetime.datetime.fromtimestamp(at).astimezone()
    expected = (local - datetime.timedelta(hours=starts)).date().isoformat()
    assert retention.event_of(moment.isoformat(), starts) == expected == retention.today(at, starts)
    assert retention.kept(expected, expected) and not retention.kept("0001-01-01", expected)


def test_an_upgraded_bridge_moves_its_results_from_the_old_topics_to_their_event(
    broker: Broker, tmp_path: Path
) -> None:
    journal, game = one_finished_game(tmp_path)
    old = f"boardctl/b1/results/{game['id']}"  # before events, and the old acknowledgements
    publisher = Probe(broker, "none")
    publisher.client.publish(old, json.dumps(game), 1, True).wait_for_publish(5)
    publisher.close()
    acks = tmp_path / "acks.json"
    acks.write_text(json.dumps({"version": 1, "results": {game["id"]: "0" * 16}}))
    new = topics.result("boardctl", "b1", topics.slot(retention.event_of(game["end"]), game["id"]))
    probe = Probe(broker, "boardctl/b1/results/#")
    bridge = Bridge(config_for(broker), Paths(tmp_path / "none.sock", journal, acks), "b1")
    thread = run_bridge(bridge)
    try:
        assert probe.wait(lambda seen: seen.get(old) == b"" and seen.get(new) == json.dumps(
            game, separators=(",", ":")).encode())  # fmt: skip
        assert probe.wait(lambda _: json.loads(acks.read_text())["results"].keys() == {
            topics.slot(retention.event_of(game["end"]), game["id"])})  # fmt: skip
    finally:
        stop(bridge, thread)
        probe.close()


def test_an_archive_reads_back_a_name_with_a_line_separator_in_it(tmp_path: Path) -> None:
    path = archive.path_of(tmp_path, "2026-11-03")
    record = {"board": "b1", "id": "7", "names": ["Ann\u2028Lee", "Bob"]}  # (JSON keeps U+2028)
    archive.write(path, [record])
    (payload,) = archive.load(path).values()
    assert json.loads(payload) == record
