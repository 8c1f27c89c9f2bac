"""End to end in one process: MockFactory pins -> engine -> journal -> frames on the link."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.board import builtin_layout, pixel
from boardctl.config import Config, parse_config
from boardctl.game.keeper import Scorekeeper
from boardctl.link import RecordingLink
from boardctl.service import app
from boardctl.service.loop import Call


class ManualClock:
    """A monotonic clock that moves only when a test advances it.

    A board built on it times every press, hold, debounce and commit by the test's own
    steps, so a busy machine that stalls the test thread cannot stretch a press into a
    long press or split a count in two.
    """

    def __init__(self) -> None:
        self._now = time.monotonic()
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds


def built(tmp_path: Path, factory: MockFactory, config: Config) -> app.Board:
    """A whole board (app.build) on mock pins and a recording link, not served: a test runs
    its loop, or only looks at what was built."""
    return app.build(
        config,
        journal=tmp_path / "journal.sqlite",
        socket_path=tmp_path / "control.sock",
        display="none",
        link=RecordingLink(),
        factory=factory,
        keyboard=False,
    )


class Rig:
    """A whole board (app.build) served by a background thread, pressed through pins.

    With ``clock`` (a :class:`ManualClock`), time on the board passes only in :meth:`press`
    and :meth:`elapse`; without it, the board runs on the wall clock.
    """

    def __init__(
        self,
        tmp_path: Path,
        factory: MockFactory,
        config: Config,
        link: Any,
        *,
        clock: ManualClock | None = None,
    ) -> None:
        self.config = config
        self.factory = factory
        self.link = link
        self.clock = clock
        self.board = app.build(
            config,
            journal=tmp_path / "state" / "journal.sqlite",
            socket_path=tmp_path / "run" / "control.sock",
            display="none",
            link=link,  # None: the configured link (see test_e2e_link.py)
            factory=factory,
            keyboard=False,
            clock=clock or time.monotonic,
        )
        self.loop = self.board.loop
        self.thread = threading.Thread(target=self.loop.run, daemon=True)
        self.thread.start()

    def pin(self, name: str) -> Any:
        pins = self.config.pins
        if name in ("undo", "menu"):
            number = getattr(pins, name)
        else:
            track, role = name.split(".")
            number = getattr(pins.tracks[int(track[5:]) - 1], role)
        return self.factory.pin(number)

    def sync(self) -> None:
        """Wait until the loop has handled everything posted so far."""
        done = threading.Event()
        self.loop.post(Call(done.set))
        assert done.wait(5)

    def elapse(self, seconds: float) -> None:
        """Let ``seconds`` pass on the board: on the manual clock, or by sleeping."""
        if self.clock is None:
            time.sleep(seconds)
            return
        self.sync()  # every edge so far is handled at the time it was made
        self.clock.advance(seconds)
        self.sync()  # the loop has run its timers at the new time

    def press(self, name: str, *, hold: float = 0.008, bounce: bool = False) -> None:
        pin = self.pin(name)
        pin.drive_low()
        if bounce:  # contact chatter, as a real switch does (much shorter than the debounce)
            pin.drive_high()
            pin.drive_low()
        self.elapse(hold)
        pin.drive_high()
        if bounce:
            pin.drive_low()
            pin.drive_high()
        if self.clock is not None:  # the release settles before the next press
            self.clock.advance(2 * self.config.inputs.debounce)
        self.sync()

    def enter(self, track: int, points: int) -> None:
        """Enter ``points`` with the +5 and +1 buttons, then commit with the encoder push."""
        for _ in range(points // 5):
            self.press(f"track{track}.plus5")
        for _ in range(points % 5):
            self.press(f"track{track}.plus1")
        self.press(f"track{track}.encoder_push")

    def status(self) -> dict[str, Any]:
        result: dict[str, Any] = {}
        done = threading.Event()

        def read() -> None:
            result.update(self.loop.keeper.status())
            done.set()

        self.loop.post(Call(read))
        assert done.wait(5)
        return result

    def wait_for(self, check: Callable[[], bool], timeout: float = 10.0) -> None:
        """Let time pass until ``check()`` holds (on the manual clock, in 50 ms steps)."""
        deadline = time.monotonic() + (timeout if self.clock is None else 6 * timeout)
        while not check():
            assert time.monotonic() < deadline, (
                f"timed out: pending {self.loop.panel.pending}, status {self.status()}"
            )
            self.elapse(0.01 if self.clock is None else 0.05)

    def close(self) -> None:
        self.loop.stop()
        self.thread.join(5)
        assert not self.thread.is_alive()
        self.board.close()


# Short timings keep the tests fast. Bounce itself is tested with exact edge times in
# test_inputs_gpio.py; here chatter is only added where the debounce is long enough
# (50 ms) that a busy machine cannot stretch it past the lockout.
FAST = {"inputs": {"commit_idle": 0.8, "debounce": 0.002, "long_press": 0.4}}
BOUNCY = {"inputs": {"commit_idle": 0.8, "debounce": 0.05, "long_press": 0.6}}
# For tests whose every entry ends with its own commit: room for a busy machine, so that a slow
# press is never read as held and a count is never committed half-entered.
STEADY = {"inputs": {"commit_idle": 5.0, "debounce": 0.002, "long_press": 1.0}}


@contextlib.contextmanager
def free_rig(tmp_path: Path, factory: MockFactory, inputs: dict[str, Any]) -> Iterator[Rig]:
    """A running free-mode board with the ``inputs`` timings, closed afterwards."""
    config = parse_config({**inputs, "game": {"mode": "free"}})
    r = Rig(tmp_path, factory, config, RecordingLink())
    try:
        yield r
    finally:
        r.close()


@pytest.fixture
def rig(tmp_path: Path, mock_factory: MockFactory) -> Iterator[Rig]:
    with free_rig(tmp_path, mock_factory, FAST) as r:
        yield r


@pytest.fixture
def bouncy_rig(tmp_path: Path, mock_factory: MockFactory) -> Iterator[Rig]:
    with free_rig(tmp_path, mock_factory, BOUNCY) as r:
        yield r


def test_three_bouncy_presses_then_the_idle_commit_light_hole_3(bouncy_rig: Rig) -> None:
    rig = bouncy_rig
    layout = builtin_layout("two-121")
    for _ in range(3):
        rig.press("track1.plus1", hold=0.06, bounce=True)
        time.sleep(0.06)
    assert rig.loop.panel.pending == (3, 0)
    rig.wait_for(lambda: rig.status()["tracks"][0]["front"] == 3)
    rig.sync()
    frame = rig.link.frames[-1]
    hole3 = pixel(frame, layout.led_of(0, 3))
    other = pixel(frame, layout.led_of(1, 3))
    assert max(hole3) > 0 and other == (0, 0, 0)
    # the journal holds exactly one entry: 3 points for track 1
    with Scorekeeper.open(rig.board.journal, readonly=True) as keeper:
        pegs = [row["event"] for row in keeper.history() if row["op"] == "peg"]
    assert pegs == [{"op": "peg", "track": 0, "points": 3, "kind": "pegging"}]


def test_a_whole_guided_game_entered_through_buttons(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    config = parse_config({**STEADY, "game": {"mode": "guided", "variant": "six-card"}})
    rig = Rig(tmp_path, mock_factory, config, RecordingLink(), clock=ManualClock())
    try:
        rig.press("track1.plus1")  # the cut: track 1 deals first
        rig.wait_for(lambda: rig.status()["phase"] == "deal")
        hands = 0
        while rig.status()["winner"] is None:
            hands += 1
            assert hands < 40
            status = rig.status()
            dealer = status["dealer"]
            pone = 1 - dealer
            rig.press("menu")  # dealt: to the play
            assert rig.status()["phase"] == "play"
            rig.enter(pone + 1, 2)  # a fifteen
            rig.enter(dealer + 1, 1)  # a go
            if rig.status()["winner"] is not None:
                break
            rig.press("menu")  # to the show
            for track, points in ((pone, 24), (dealer, 20), (dealer, 16)):
                if rig.status()["winner"] is not None:
                    break
                assert rig.status()["to_count"] == track
                rig.enter(track + 1, points)
        status = rig.status()
        assert status["winner"] in (0, 1)
        assert status["tracks"][status["winner"]]["front"] == 121
        assert status["phase"] == "over"
        # a refused count (19 is impossible) changed nothing
        before = rig.status()
        rig.enter(1, 19)
        assert rig.status()["tracks"] == before["tracks"]
    finally:
        rig.close()
    with Scorekeeper.open(tmp_path / "state" / "journal.sqlite", readonly=True) as keeper:
        assert keeper.status()["winner"] == status["winner"]


def test_two_tracks_pressed_at_once_both_count(rig: Rig) -> None:
    a, b = rig.pin("track1.plus1"), rig.pin("track2.plus5")
    a.drive_low()
    b.drive_low()
    time.sleep(0.02)
    a.drive_high()
    b.drive_high()
    rig.sync()
    rig.wait_for(lambda: [t["front"] for t in rig.status()["tracks"]] == [1, 5])


def test_undo_button_and_long_press(rig: Rig) -> None:
    rig.enter(1, 6)
    rig.enter(2, 4)
    rig.press("undo")
    assert [t["front"] for t in rig.status()["tracks"]] == [6, 0]
    rig.press("track1.plus1", hold=rig.config.inputs.long_press + 0.1)  # long press = undo
    # a second undo with no entry since only asks (a flaky contact erases one entry at most)
    assert [t["front"] for t in rig.status()["tracks"]] == [6, 0]
    assert rig.loop.panel.mode == "undo_confirm"
    rig.press("menu")  # confirmed
    assert [t["front"] for t in rig.status()["tracks"]] == [0, 0]
    assert rig.loop.panel.pending == (0, 0)
