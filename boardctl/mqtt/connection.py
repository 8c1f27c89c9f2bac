"""A paho-mqtt client set up from ``[mqtt]``: address, TLS, credentials, reconnection (paho,
the extra ``boardctl[mqtt]``, is imported here only)."""

from __future__ import annotations

import contextlib
import queue
import ssl
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.config import MqttConfig
from boardctl.mqtt import MqttError

if TYPE_CHECKING:
    import paho.mqtt.client as mqtt

RECONNECT_MIN = 1  # seconds; paho doubles the wait after each failed attempt ...
RECONNECT_MAX = 5  # ... up to this
ACK_WAIT = 10.0  # seconds for each acknowledgement of the broker

Events = queue.SimpleQueue[tuple[str, Any, bytes]]


def port(config: MqttConfig) -> int:
    """The broker's port: the configured one, else 8883 with TLS and 1883 without."""
    return config.port or (8883 if config.tls else 1883)


def password(config: MqttConfig) -> str | None:
    """The password from ``password_file`` (first line), or None without one."""
    if not config.password_file:
        return None
    try:
        return Path(config.password_file).read_text(encoding="utf-8").splitlines()[0]
    except (OSError, UnicodeDecodeError, IndexError) as exc:
        raise MqttError(
            f"mqtt.password_file {config.password_file}: cannot read it ({exc})"
        ) from None


def make_client(config: MqttConfig, client_id: str) -> mqtt.Client:
    """A client for the configured broker (not yet connected)."""
    try:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion
    except ImportError:
        raise MqttError("the MQTT bridge needs paho-mqtt: pip install 'boardctl[mqtt]'") from None
    client = mqtt.Client(
        CallbackAPIVersion.VERSION2,
        client_id=client_id,
        protocol=mqtt.MQTTv311,
        clean_session=True,
    )
    if config.username:
        client.username_pw_set(config.username, password(config))
    if config.tls:
        for key in ("ca_file", "cert_file", "key_file"):
            name = getattr(config, key)
            if name and not Path(name).is_file():
                raise MqttError(f"mqtt.{key} {name}: no such file")
        try:
            client.tls_set(
                ca_certs=config.ca_file or None,
                certfile=config.cert_file or None,
                keyfile=config.key_file or None,
                tls_version=ssl.PROTOCOL_TLS_CLIENT,
            )
        except (ssl.SSLError, ValueError, OSError) as exc:
            raise MqttError(f"mqtt: cannot set up TLS ({exc})") from None
    client.reconnect_delay_set(RECONNECT_MIN, RECONNECT_MAX)
    client.max_inflight_messages_set(100)
    client.max_queued_messages_set(0)
    return client


def unreachable(config: MqttConfig, reason: object) -> MqttError:
    """The error for a broker that cannot be reached or refuses us (one wording everywhere)."""
    return MqttError(f"cannot reach the MQTT broker {config.host}:{port(config)} ({reason})")


def wait_published(infos: Iterable[mqtt.MQTTMessageInfo], config: MqttConfig, what: str) -> None:
    """Wait for the broker to acknowledge each message; :class:`MqttError` if it does not."""
    for info in infos:
        with contextlib.suppress(RuntimeError, ValueError):
            info.wait_for_publish(timeout=ACK_WAIT)
        if not info.is_published():
            raise unreachable(config, f"it did not acknowledge {what}")


@contextlib.contextmanager
def session(config: MqttConfig, client_id: str) -> Iterator[tuple[mqtt.Client, Events]]:
    """A client connecting, its loop running, and its events: ``("connect", reason, b"")``,
    ``("suback", reason codes, b"")``, ``("message", topic, payload)``; disconnected at the end."""
    client = make_client(config, client_id)
    events: Events = queue.SimpleQueue()
    client.on_connect = lambda c, u, f, rc, p: events.put(("connect", rc, b""))
    client.on_subscribe = lambda c, u, mid, rcs, p: events.put(("suback", rcs, b""))
    client.on_message = lambda c, u, m: events.put(("message", m.topic, bytes(m.payload)))
    try:  # (paho then reconnects by itself)
        client.connect(config.host, port(config), config.keepalive)
    except (OSError, ValueError) as exc:
        raise unreachable(config, exc) from None
    client.loop_start()
    try:
        yield client, events
    finally:
        client.disconnect()
        client.loop_stop()
