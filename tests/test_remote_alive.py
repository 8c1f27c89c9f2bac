"""The echo through the broker that finds a stalled connection (boardctl.remote.alive), on
times given."""

from __future__ import annotations

from boardctl.remote.alive import Echo


def test_an_echo_goes_every_second_and_a_missing_one_finds_the_connection_stalled() -> None:
    echo = Echo(every=1.0, stalled_after=1.5)
    assert echo.step(0.0, connected=False) == "wait"  # nothing sent while not connected
    assert echo.step(0.0, connected=True) == "send"
    first = echo.number
    assert echo.step(1.5, connected=True) == "wait"  # on its way
    echo.echoed(first, 0.2)
    assert echo.step(0.7, connected=True) == "wait"  # back: the next one a second later
    assert echo.step(1.2, connected=True) == "send"
    second = echo.number
    assert second != first
    echo.echoed(first, 1.3)  # an old echo says nothing of this one
    assert echo.step(2.6, connected=True) == "wait"
    assert echo.step(2.71, connected=True) == "stalled"  # 1.5 s and no echo: made anew
    assert echo.step(2.72, connected=False) == "wait"  # reconnecting
    assert echo.step(3.8, connected=True) == "send"  # the fresh connection is watched too
    echo.echoed(echo.number, 3.9)
    assert echo.number == 0


def test_a_connection_lost_while_an_echo_is_on_its_way_is_not_called_stalled_later() -> None:
    echo = Echo(every=1.0, stalled_after=1.5)
    assert echo.step(0.0, connected=True) == "send"
    assert echo.step(0.5, connected=False) == "wait"
    assert echo.step(5.0, connected=True) == "send"  # a new echo, not a stall of the old one


def test_a_slow_round_trip_stretches_the_wait_before_a_connection_is_called_stalled() -> None:
    # a far broker or a busy board: echoes come back after 0.6 s, so 1 s would be too eager
    echo = Echo(every=1.0, stalled_after=1.0)
    now = 0.0
    for _ in range(3):
        assert echo.step(now, connected=True) == "send"
        echo.echoed(echo.number, now + 0.6)
        now += 1.6
    assert abs(echo.round_trip - 0.6) < 1e-9
    assert echo.stalled_after_s() == 4 * echo.round_trip
    assert echo.step(now, connected=True) == "send"
    assert echo.step(now + 2.3, connected=True) == "wait"  # later than 1 s, not yet 2.4 s
    assert echo.step(now + 2.5, connected=True) == "stalled"
    # a near broker: the floor stands
    near = Echo(every=1.0, stalled_after=1.0)
    assert near.step(0.0, connected=True) == "send"
    near.echoed(near.number, 0.05)
    assert near.stalled_after_s() == 1.0
