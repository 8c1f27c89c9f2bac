"""The service loop with the real engine and renderer; the link records frames."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from boardctl.board import Renderer, builtin_layout
from boardctl.board.overlay import OverlayRenderer
from boardctl.errors import ControlError, EntryError
from boardctl.game.commands import Command, parse_board_command
from boardctl.game.keeper import Scorekeeper
from boardctl.inputs.events import Edge, Tap
from boardctl.inputs.panel import Panel
from boardctl.link import RecordingLink
from boardctl.service.loop import Call, ServiceLoop, status_line
from boardctl.service.notify import Notifier


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class CountingRenderer(Renderer):
    """Counts its render passes (a frame and its next change come from one pass)."""

    calls = 0

    def render_with_next(self, view: Any, now: float) -> tuple[bytes, float | None]:
        self.calls += 1
        return super().render_with_next(view, now)


class CountingKeeper(Scorekeeper):
    """Counts the status dicts it builds."""

    status_calls = 0

    def status(self) -> dict[str, Any]:
        self.status_calls += 1
        return super().status()


def make_loop(
    setup: dict[str, Any] | None = None, notifier: Notifier | None = None
) -> tuple[ServiceLoop, RecordingLink, Clock, CountingRenderer]:
    keeper = CountingKeeper.memory(setup or {"variant": "six-card", "mode": "free"})
    layout = builtin_layout("two-121")
    renderer = CountingRenderer(layout)
    link = RecordingLink()
    clock = Clock()
    loop = ServiceLoop(
        keeper,
        OverlayRenderer(renderer, layout),
        link,
        panel=Panel(tracks=2),
        notifier=notifier,
        clock=clock,
    )
    return loop, link, clock, renderer


def lit(frame: bytes, led: int) -> bool:
    return frame[3 * led : 3 * led + 3] != b"\0\0\0"


def test_first_frame_then_ready_with_a_status_line(tmp_path: Path) -> None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(2)
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "notify"), "WATCHDOG_USEC": "2000000"})
    loop, link, _, _ = make_loop(notifier=notifier)
    loop.start()
    assert len(link.frames) == 1  # the first frame is out before READY=1
    messages = [sock.recv(4096).decode() for _ in range(3)]
    assert messages[0].startswith("STATUS=Track 1 0 · Track 2 0")
    assert messages[1].startswith("READY=1")
    assert messages[2] == "WATCHDOG=1"
    loop.close()
    sock.close()


def test_three_presses_commit_once_and_light_hole_3() -> None:
    loop, link, clock, _ = make_loop()
    layout = builtin_layout("two-121")
    loop.start()
    for _i in range(3):
        loop.post(Edge("track1.plus1", True, clock.now))
        loop.run_once(max_wait=0)
        clock.now += 0.1
        loop.post(Edge("track1.plus1", False, clock.now))
        loop.run_once(max_wait=0)
        clock.now += 0.2
    assert loop.panel.pending == (3, 0)
    assert loop.keeper.status()["tracks"][0]["front"] == 0
    assert loop.view().tracks[0].pending == 3
    clock.now += 1.5
    loop.run_once(max_wait=0)
    assert loop.keeper.status()["tracks"][0]["front"] == 3
    assert loop.panel.pending == (0, 0)
    assert lit(link.frames[-1], layout.led_of(0, 3))
    assert not lit(link.frames[-1], layout.led_of(1, 3))
    loop.close()


def test_nothing_is_rendered_while_nothing_changes() -> None:
    loop, link, clock, renderer = make_loop()
    loop.start()
    before_renders, before_frames = renderer.calls, len(link.frames)
    for _ in range(50):
        clock.now += 10
        loop.run_once(max_wait=0)
    assert renderer.calls == before_renders
    assert len(link.frames) == before_frames
    assert loop._timeout(clock.now) is None  # the loop would sleep until an event
    loop.close()


def test_a_button_peg_renders_once_a_refresh_and_reads_the_status_once() -> None:
    loop, _link, clock, renderer = make_loop()
    keeper = loop.keeper
    assert isinstance(keeper, CountingKeeper)
    loop.start()
    renders, passes, statuses = loop.renders, renderer.calls, keeper.status_calls
    loop.post(Edge("track1.plus5", True, clock.now))
    loop.run_once(max_wait=0)
    clock.now += 0.1
    loop.post(Edge("track1.plus5", False, clock.now))
    loop.run_once(max_wait=0)
    assert keeper.status_calls == statuses  # a pending entry is the panel's: no status read
    clock.now += 1.6  # past commit_idle: the entry is journalled
    loop.run_once(max_wait=0)
    assert keeper.state.tracks[0].front == 5 and loop.panel.pending == (0, 0)
    assert loop.renders > renders  # pending, blinking, shown, committed ...
    assert renderer.calls - passes == loop.renders - renders  # ... each frame one pass
    assert keeper.status_calls - statuses == 1  # the commit's status, also systemd's line
    assert "Track 1 5" in loop._status
    loop.close()


def test_a_pending_entry_blinks_and_the_loop_wakes_only_for_its_deadlines() -> None:
    loop, _link, clock, _ = make_loop()
    loop.start()
    loop.post(Edge("track2.plus5", True, clock.now))
    loop.run_once(max_wait=0)
    timeout = loop._timeout(clock.now)
    assert timeout is not None and 0 < timeout <= 1.0  # blink step or long-press threshold
    loop.close()


def test_a_refused_button_entry_flashes_the_error_and_changes_nothing() -> None:
    loop, _link, clock, _ = make_loop()
    loop.start()
    loop.post(Tap("track1.plus5"))
    for _ in range(7):
        loop.post(Tap("track1.plus5"))
    loop.run_once(max_wait=0)
    assert loop.panel.pending == (40, 0)
    clock.now += 2
    loop.run_once(max_wait=0)  # the commit of 40 is refused
    assert loop.keeper.status()["tracks"][0]["front"] == 0
    assert loop.view().error_at is not None
    loop.close()


def test_a_clean_stop_turns_the_leds_dark_and_drops_only_the_pending_entry() -> None:
    loop, link, _clock, _ = make_loop()
    layout = builtin_layout("two-121")
    loop.start()
    loop.dispatcher.execute(parse_board_command({"op": "peg", "track": 1, "points": 7}))
    loop.post(Tap("track1.plus1"))
    loop.run_once(max_wait=0)
    assert loop.panel.pending == (1, 0)
    assert lit(link.frames[-1], layout.led_of(1, 7))
    loop.stop()
    loop.run_once(max_wait=0)
    assert loop.stopping
    loop.finish()
    assert link.goodbyes == 1 and link.frames[-1] == bytes(3 * layout.led_count)  # dark
    assert link.closed
    assert [t["front"] for t in loop.keeper.status()["tracks"]] == [0, 7]  # kept; +1 dropped
    loop.close()


def test_control_requests_share_the_buttons_checks() -> None:
    loop, _link, _clock, _ = make_loop()
    loop.start()
    with pytest.raises(EntryError):
        loop.requests.handle({"op": "peg", "track": 0, "points": 40})
    result = loop.requests.handle({"op": "peg", "track": 0, "points": 5})
    assert result["status"]["tracks"][0]["front"] == 5
    status = loop.requests.handle({"op": "status"})
    assert status["pending"] == [0, 0]
    assert loop.requests.handle({"op": "press", "button": "track2.plus1"})["pending"] == [0, 1]
    with pytest.raises(ControlError, match="unknown button"):
        loop.requests.handle({"op": "press", "button": "track9.fire"})
    with pytest.raises(ControlError, match="track1 to track2"):
        loop.requests.handle({"op": "press", "button": "track3.plus1"})
    assert loop.requests.handle({"op": "status"})["pending"] == [0, 1]  # nothing changed
    frame = loop.requests.handle({"op": "frame"})
    assert frame["leds"] == 256 and len(frame["rgb"]) == 256 * 6
    assert loop.requests.handle({"op": "set", "key": "brightness", "value": 40}) == {
        "brightness": 40
    }
    with pytest.raises(EntryError, match="brightness"):
        loop.requests.handle({"op": "set", "key": "brightness", "value": 400})
    loop.close()


def test_guided_buttons_pick_the_dealer_and_enter_zero_counts() -> None:
    loop, _link, clock, _ = make_loop({"variant": "six-card", "mode": "guided"})
    loop.start()
    assert loop.keeper.status()["phase"] == "cut"
    loop.post(Tap("track2.plus1"))  # track 2 won the cut
    loop.run_once(max_wait=0)
    clock.now += 2
    loop.run_once(max_wait=0)
    status = loop.keeper.status()
    assert status["dealer"] == 1 and status["phase"] == "deal"
    loop.post(Tap("menu"))  # dealt: to the play
    loop.run_once(max_wait=0)
    assert loop.keeper.status()["phase"] == "play"
    loop.post(Tap("menu"))  # play over: to the show
    loop.run_once(max_wait=0)
    status = loop.keeper.status()
    assert status["phase"] == "show" and status["to_count"] == 0
    loop.post(Tap("menu"))  # the non-dealer's hand counts nothing
    loop.run_once(max_wait=0)
    assert loop.keeper.status()["to_count"] == 1
    loop.close()


def test_settings_mode_is_drawn_instead_of_the_game() -> None:
    loop, link, _clock, _ = make_loop()
    layout = builtin_layout("two-121")
    loop.start()
    loop.post(Tap("menu", 1))
    loop.run_once(max_wait=0)
    assert loop.panel.mode == "settings"
    frame = link.frames[-1]
    assert lit(frame, layout.led_of(0, 1)) and lit(frame, layout.led_of(0, 5))
    assert lit(frame, layout.led_of(0, 6)) and not lit(frame, layout.led_of(0, 7))  # 6 settings
    loop.post(Tap("undo"))
    loop.run_once(max_wait=0)
    assert loop.panel.mode == "entry"
    loop.close()


def test_status_line_names_the_winner() -> None:
    status: dict[str, Any] = {
        "target": 61,
        "phase": "over",
        "winner": 1,
        "tracks": [{"name": "A", "front": 40}],
    }
    status["tracks"].append({"name": "B", "front": 61})
    assert status_line(status) == "A 40 · B 61 · B won · target 61"


@pytest.fixture
def running() -> Iterator[tuple[ServiceLoop, RecordingLink]]:
    loop, link, _, _ = make_loop()
    loop.clock = __import__("time").monotonic
    thread = threading.Thread(target=loop.run, daemon=True)
    thread.start()
    try:
        yield loop, link
    finally:
        loop.stop()
        thread.join(5)
        loop.close()


def test_posts_from_other_threads_wake_the_sleeping_loop(
    running: tuple[ServiceLoop, RecordingLink],
) -> None:
    loop, _link = running
    done = threading.Event()
    loop.post(Call(done.set))
    assert done.wait(2)
    assert not loop.stopping


def test_a_game_the_layout_cannot_show_is_refused_before_it_is_journalled() -> None:
    from boardctl.service.app import layout_check

    loop, _link, _clock, _ = make_loop()
    keeper = loop.keeper
    assert isinstance(keeper, Scorekeeper)
    loop.validate = layout_check(builtin_layout("two-121"), keeper)
    loop.start()
    seq = loop.keeper.status()["seq"]
    with pytest.raises(EntryError, match=r"has 2 tracks; a five-player game needs 5"):
        loop.requests.handle({"op": "new_game", "variant": "five-player"})
    with pytest.raises(EntryError, match="a game to 200 does not fit"):
        loop.requests.handle({"op": "set", "key": "target", "value": 200})
    assert loop.keeper.status()["seq"] == seq
    loop.requests.handle({"op": "new_game", "variant": "five-card"})  # fits: 2 tracks to 61
    assert loop.keeper.status()["target"] == 61
    loop.close()


def test_a_journal_the_layout_cannot_show_keeps_the_service_up() -> None:
    keeper = Scorekeeper.memory({"variant": "three-player", "mode": "free"})
    layout = builtin_layout("two-121")
    link = RecordingLink()
    loop = ServiceLoop(keeper, OverlayRenderer(Renderer(layout), layout), link, panel=Panel(3))
    loop.start()  # no exception: a red warning instead of the game
    frame = link.frames[-1]
    assert frame[3 * layout.led_of(0, 0) : 3 * layout.led_of(0, 0) + 3] == bytes((220, 0, 0))
    loop.dispatcher.execute(parse_board_command({"op": "new_game", "variant": "six-card"}))
    loop.run_once(max_wait=0)
    assert link.frames[-1] != frame
    loop.close()


def test_a_configured_game_must_fit_the_configured_layout() -> None:
    from boardctl.config import parse_config
    from boardctl.errors import ConfigError
    from boardctl.service.app import check_config_fits

    config = parse_config({"game": {"variant": "three-player"}}, "board.toml")
    with pytest.raises(ConfigError, match=r"board\.toml: game\.variant 'three-player'"):
        check_config_fits(config, builtin_layout("two-121"))
    check_config_fits(config, builtin_layout("three-121"))


def test_a_journal_failure_flashes_the_error_and_the_loop_goes_on() -> None:
    from boardctl.errors import JournalError

    loop, _link, _clock, _ = make_loop()
    loop.start()

    class Unsaved:
        def __init__(self, command: Command) -> None:
            self.inner = prepare(command)

        def view(self) -> Any:
            return self.inner.view()

        def commit(self) -> dict[str, Any]:
            raise JournalError("disk full")

        def abort(self) -> None:
            self.inner.abort()

    prepare = loop.keeper.prepare
    loop.keeper.prepare = Unsaved  # type: ignore[method-assign]
    loop.post(Tap("track1.encoder_push"))
    loop.post(Tap("track1.plus1"))
    loop.post(Tap("track1.encoder_push"))
    loop.run_once(max_wait=0)
    assert loop.view().error_at is not None
    assert loop.view().tracks[0].front == 0
    assert not loop.stopping
    loop.close()


def test_a_display_that_fails_is_dropped_not_fatal() -> None:
    loop, link, _clock, _ = make_loop()

    def gone(view: Any, frame: bytes) -> None:
        raise BrokenPipeError("terminal closed")

    loop.display = gone
    loop.start()
    assert loop.display is None and link.frames
    loop.close()


def test_status_says_whether_the_led_link_is_connected() -> None:
    from boardctl.cli.verbs import format_status

    loop, link, _clock, _renderer = make_loop()
    loop.start()
    loop.requests.link_kind = "serial"
    link.connected = False
    status = loop.requests.handle({"op": "status"})
    assert status["link"] == {"kind": "serial", "connected": False}
    assert "LED link (serial): NOT connected" in format_status(status)
    link.connected = True
    status = loop.requests.handle({"op": "status"})
    assert format_status(status).endswith("LED link (serial): connected")


def test_an_unread_notify_socket_does_not_freeze_the_loop(tmp_path: Path) -> None:
    """systemd not reading its socket: every entry still commits and reaches the LEDs."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))  # never read
    loop, link, _, _ = make_loop(notifier=Notifier({"NOTIFY_SOCKET": str(tmp_path / "notify")}))
    loop.start()
    done = threading.Event()

    def enter() -> None:
        for _ in range(40):  # each entry changes the STATUS= line
            loop.dispatcher.execute(parse_board_command({"op": "peg", "track": 0, "points": 1}))
        done.set()

    threading.Thread(target=enter, daemon=True).start()
    assert done.wait(10), "the loop froze on an unread notify socket"
    assert loop.keeper.status()["tracks"][0]["front"] == 40
    assert link.frames
    loop.close()
    sock.close()
