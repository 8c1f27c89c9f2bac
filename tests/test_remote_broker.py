"""The broker of docs/remote.md: a user per board and the page's ACL, with the page's code."""

from __future__ import annotations

import re
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from gpiozero.pins.mock import MockFactory
from paho.mqtt.enums import CallbackAPIVersion

from boardctl.config import MqttConfig, parse_config
from boardctl.link import RecordingLink
from boardctl.remote import link_path, paired
from boardctl.remote.guest import GuestLink
from boardctl.remote.messages import decode_code, encode, topic
from boardctl.remote.store import OUTBOX_FILE, Outbox
from tests.mqtt_broker import Broker, have_mosquitto
from tests.test_e2e import STEADY, ManualClock, Rig

# The linked boards meet on a real mosquitto (.ci/run installs it): missing, the tests fail.
assert have_mosquitto(), "these tests need mosquitto (apt-get install mosquitto)"

PAGE = (Path(__file__).resolve().parent.parent / "docs" / "remote.md").read_text()


def wait_for(check: Callable[[], bool], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def page_secret() -> bytes:
    """The secret of the code the page shows ``remote invite`` printing."""
    code = re.search(r"^    code: (\S+)$", PAGE, re.M)
    assert code is not None
    return decode_code(code.group(1))


def test_the_pages_code_gives_the_game_and_key_the_page_shows() -> None:
    link = paired.Pairing("host", page_secret())
    assert f"hosts the game {link.game} " in PAGE and f"link key: {link.key_id} " in PAGE


def certificates(folder: Path) -> tuple[Path, tuple[str, ...]]:
    """A CA made here and a certificate it signs for 127.0.0.1: the CA's file and the TLS
    listener's lines of mosquitto's configuration (as the page's, with these files)."""
    folder.mkdir()

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    key = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    openssl("req", "-x509", *key, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=boardctl test CA")  # fmt: skip
    openssl("req", *key, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", "server.pem", "-days", "2",
            "-extfile", "san.ext")  # fmt: skip
    return folder / "ca.pem", (f"certfile {folder}/server.pem", f"keyfile {folder}/server.key")


@pytest.mark.parametrize("tls", [False, True], ids=["plain", "tls"])
def test_two_boards_play_through_the_pages_acl_and_a_third_user_gets_nothing_in_or_out(
    tmp_path: Path, mock_factory: MockFactory, tls: bool
) -> None:
    acl = PAGE.split("<!-- acl -->")[1].split("```")[1].removeprefix("text\n")
    users = {"home-a": "pw-a", "home-b": "pw-b", "other": "pw-o"}
    ca, listener = certificates(tmp_path / "tls") if tls else (None, ())
    with_tls: dict[str, Any] = {"tls": True, "ca_file": str(ca)} if tls else {}
    broker = Broker(tmp_path / "broker", users=users, acl=acl, extra=listener)
    broker.start()
    secret = page_secret()
    passwords = {}
    for user, password in users.items():
        passwords[user] = tmp_path / f"{user}.password"
        passwords[user].write_text(password + "\n")
    journal = tmp_path / "host" / "state" / "journal.sqlite"
    journal.parent.mkdir(parents=True)
    paired.save(link_path(journal), paired.Pairing("host", secret))
    section = {"host": "127.0.0.1", "port": broker.port, "keepalive": 5, "username": "home-a",
               "password_file": str(passwords["home-a"]), **with_tls}  # fmt: skip
    config = parse_config({**STEADY, "game": {"mode": "free"}, "mqtt": section})
    host = Rig(tmp_path / "host", mock_factory, config, RecordingLink(), clock=ManualClock())
    joined_mqtt = MqttConfig(host="127.0.0.1", port=broker.port, keepalive=5, username="home-b",
                             password_file=str(passwords["home-b"]), **with_tls)  # fmt: skip
    link = paired.Pairing("guest", secret)
    guest = GuestLink(link, joined_mqtt, Outbox(tmp_path / "guest" / OUTBOX_FILE, link.game))
    other = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="other")
    heard: list[str] = []
    other.on_message = lambda c, u, m: heard.append(m.topic)
    other.username_pw_set("other", "pw-o")
    if tls:
        other.tls_set(ca_certs=str(ca))
    subscribed = threading.Event()
    other.on_subscribe = lambda *args: subscribed.set()
    try:
        rid = guest.submit({"op": "peg", "track": 1, "points": 5})
        wait_for(lambda: guest.outbox.answer(rid) is not None)
        wait_for(lambda: guest.state is not None and guest.reachable)
        other.connect("127.0.0.1", broker.port)
        other.loop_start()
        other.subscribe(topic("boardctl", link.game, "#"), qos=1)
        assert subscribed.wait(10)
        forged = encode("cmd", "guest", game=link.game, key=link.key, body={"entry": {"op":
                        "peg", "track": 0, "points": 29}, "after": ""}, request_id="x")  # fmt: skip
        other.publish(topic("boardctl", link.game, "cmd"), forged, qos=1).wait_for_publish(10)
        second = guest.submit({"op": "peg", "track": 1, "points": 1})  # a marker after it
        wait_for(lambda: guest.outbox.answer(second) is not None)
        assert [t["front"] for t in host.status()["tracks"]] == [0, 6]  # the ACL dropped it
        assert heard == []  # nor could it read the game's retained board or its answers
        if tls:  # the boards spoke TLS: the listener takes nothing else
            hosting = host.board.remote.host
            assert hosting is not None and hosting.connected
            plain = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="plain")
            plain.username_pw_set("home-b", "pw-b")
            plain.connect("127.0.0.1", broker.port)  # MQTT in the clear: no CONNACK comes
            for _ in range(20):
                plain.loop(0.1)
            assert not plain.is_connected()
    finally:
        other.disconnect()
        other.loop_stop()
        guest.close()
        host.close()
        broker.kill()
