"""The DDP back-end against a UDP listener on 127.0.0.1 that decodes what arrives."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from boardctl.errors import ConfigError
from boardctl.link import open_link
from boardctl.link.adalight import scale_frame
from boardctl.link.ddp import DdpLink, ddp_datagrams, parse_address
from tests.wled import DdpReceiver, Strip


class Listener:
    """A WLED board on 127.0.0.1: receives DDP datagrams, checks their headers, and hands
    them to WLED's own DDP parser (tests/wled.py, ``handleDDPPacket()`` of
    wled00/e131.cpp) on a strip of ``leds`` LEDs."""

    def __init__(self, leds: int = 1500, skip_out_of_sequence: bool = False) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(2.0)
        self.port = self.sock.getsockname()[1]
        self.wled = DdpReceiver(Strip(leds), skip_out_of_sequence)
        self.headers: list[bytes] = []
        self.drop = 0  # datagrams to lose on the way (a torn frame)

    def frame(self) -> bytes:
        """Read datagrams until one with the push flag; what WLED shows of the bytes sent."""
        extent = 0
        while True:
            data = self.sock.recv(2048)
            header, payload = data[:10], data[10:]
            self.headers.append(header)
            assert header[0] & 0xC0 == 0x40 and header[2] == 0x0B and header[3] == 1
            offset = int.from_bytes(header[4:8], "big")
            assert int.from_bytes(header[8:10], "big") == len(payload) <= 1440
            extent = max(extent, offset + len(payload))
            if self.drop:
                self.drop -= 1
                continue
            self.wled.handle(data)
            if header[0] & 0x01:
                assert self.wled.short == 0 and self.wled.rejected == 0
                return self.wled.strip.shows[-1][:extent]

    def nothing(self) -> bool:
        self.sock.settimeout(0.05)
        try:
            self.sock.recv(2048)
        except TimeoutError:
            return True
        finally:
            self.sock.settimeout(2.0)
        return False


@pytest.fixture
def listener() -> Iterator[Listener]:
    udp = Listener()
    yield udp
    udp.sock.close()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_frames_of_600_leds_arrive_in_two_datagrams_on_change_and_every_second(
    listener: Listener,
) -> None:
    clock = Clock()
    link = open_link("ddp", device=f"127.0.0.1:{listener.port}", clock=clock, start=False)
    assert isinstance(link, DdpLink) and link.connected
    frame = bytes(i % 251 for i in range(3 * 600))
    link.show(frame)
    assert listener.frame() == frame
    first, second = listener.headers
    assert first[0] == 0x40 and second[0] == 0x41  # push only on the last datagram
    assert int.from_bytes(second[4:8], "big") == 1440  # 480 LEDs in the first
    assert first[1] == second[1] == 1  # one sequence number per frame
    link.show(frame)
    assert listener.nothing()  # unchanged: not sent again at once
    clock.now += 0.5
    link.tick()
    assert listener.nothing()
    clock.now += 0.6  # a second since the last send: resent, WLED stays in realtime mode
    link.tick()
    assert listener.frame() == frame and listener.headers[-1][1] == 2
    link.set_brightness(128)
    assert listener.frame() == scale_frame(frame, 128)  # brightness on the host
    link.close()
    assert not link.connected


def test_the_sequence_number_runs_1_to_15() -> None:
    assert [ddp_datagrams(b"\x01\x02\x03", n)[0][1] for n in (1, 15)] == [1, 15]


def test_bad_addresses_are_config_errors() -> None:
    assert parse_address("wled.local") == ("wled.local", 4048)
    assert parse_address("10.0.0.7:4049") == ("10.0.0.7", 4049)
    for bad in ("", ":4048", "host:port", "host:70000"):
        with pytest.raises(ConfigError):
            open_link("ddp", device=bad, start=False)


class CountingResolver:
    """Looks a name up as the link asks, counting; answers from ``answers`` in turn (an
    OSError is raised), the last one for ever."""

    def __init__(self, *answers: tuple[str, int] | OSError) -> None:
        self.answers = list(answers)
        self.calls = 0

    def __call__(self, host: str, port: int) -> tuple[str, int]:
        assert host == "wled.local"
        answer = self.answers[min(self.calls, len(self.answers) - 1)]
        self.calls += 1
        if isinstance(answer, OSError):
            raise answer
        return answer


def test_the_name_is_resolved_once_when_the_link_opens_not_per_datagram(
    listener: Listener,
) -> None:
    resolver = CountingResolver(("127.0.0.1", listener.port))
    link = DdpLink(path="wled.local", clock=Clock(), start=False, resolve=resolver)
    assert resolver.calls == 1  # at open
    for n in range(30):
        frame = bytes((n, 1, 2)) * 600  # 600 LEDs: two datagrams a frame
        link.show(frame)
        assert listener.frame() == frame
        link.tick()
    assert link.sent == 60 and resolver.calls == 1  # 60 datagrams, one lookup
    link.close()


def test_a_failed_send_makes_the_links_thread_look_the_name_up_again(
    listener: Listener,
) -> None:
    # The name first resolves to an address the socket may not send to (broadcast without
    # SO_BROADCAST: EACCES), then (the board got a new address) to the listener.
    resolver = CountingResolver(("255.255.255.255", 4048), ("127.0.0.1", listener.port))
    link = DdpLink(path="wled.local", clock=Clock(), start=False, resolve=resolver)
    frame = bytes(range(30))
    link.show(frame)
    assert not link.connected and link.error and resolver.calls == 1
    link.show(bytes(reversed(frame)))  # show() never looks up: the thread does
    assert resolver.calls == 1 and listener.nothing()
    link.tick()  # the link's thread: a new lookup, then the frame at once
    assert resolver.calls == 2 and link.connected
    assert listener.frame() == bytes(reversed(frame))
    link.tick()
    assert resolver.calls == 2
    link.close()


def test_a_name_that_does_not_resolve_at_open_is_looked_up_by_the_thread_not_show(
    listener: Listener, caplog: pytest.LogCaptureFixture
) -> None:
    unknown = socket.gaierror("Name or service not known")
    resolver = CountingResolver(unknown, unknown)
    link = DdpLink(path="wled.local", clock=Clock(), start=False, resolve=resolver)
    assert not link.connected and "not known" in caplog.text
    for n in range(10):
        link.show(bytes((n, 0, 0)))
    assert resolver.calls == 1 and listener.nothing()
    resolver.answers.append(("127.0.0.1", listener.port))
    link.tick()  # still failing: a second lookup, logged once
    link.tick()  # resolves: the last frame goes out
    assert resolver.calls == 3 and link.connected
    assert listener.frame() == bytes((9, 0, 0))
    assert caplog.text.count("not known") == 1
    link.close()


@pytest.mark.parametrize("leds", [4, 256, 480, 481, 1500])
def test_wleds_ddp_parser_shows_exactly_the_frame_the_link_sends(leds: int) -> None:
    wled = Listener(leds)
    clock = Clock()
    link = open_link("ddp", device=f"127.0.0.1:{wled.port}", clock=clock, start=False)
    try:
        frame = bytes((5 * i + leds) % 256 for i in range(3 * leds))
        link.show(frame)
        assert wled.frame() == frame == wled.wled.strip.pixels  # the whole strip, exactly
        assert len(wled.headers) == -(-leds // 480)  # 480 LEDs a datagram
        link.set_brightness(77)
        assert wled.frame() == scale_frame(frame, 77)  # brightness on the host
    finally:
        link.close()
        wled.sock.close()


def test_wled_skipping_out_of_sequence_datagrams_drops_none_of_ours() -> None:
    wled = Listener(1000, skip_out_of_sequence=True)  # three datagrams a frame
    link = open_link("ddp", device=f"127.0.0.1:{wled.port}", clock=Clock(), start=False)
    try:
        for n in range(40):  # the sequence number wraps 15 -> 1 twice
            frame = bytes((n, 2 * n % 256, 3)) * 1000
            link.show(frame)
            assert wled.frame() == frame
        assert {h[1] for h in wled.headers} == set(range(1, 16))
    finally:
        link.close()
        wled.sock.close()


def test_a_frame_torn_by_a_lost_datagram_is_whole_again_at_the_next_refresh() -> None:
    wled = Listener(1500)
    clock = Clock()
    link = open_link("ddp", device=f"127.0.0.1:{wled.port}", clock=clock, start=False)
    try:
        old = bytes((1, 2, 3)) * 1500
        link.show(old)
        assert wled.frame() == old
        assert isinstance(link, DdpLink)
        new = bytes((9, 8, 7)) * 1500
        wled.drop = 1  # the first datagram of the next frame is lost
        link.show(new)
        torn = wled.frame()
        assert torn[: 3 * 480] == old[: 3 * 480] and torn[3 * 480 :] == new[3 * 480 :]
        clock.now += 1.0  # the refresh: the whole frame again
        link.tick()
        assert wled.frame() == new
    finally:
        link.close()
        wled.sock.close()
