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
