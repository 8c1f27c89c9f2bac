"""Button edge -> frame written to the LED link: latency over 1,000 presses.

The whole service in one process, as ``boardctl run`` builds it: MockFactory
pins (gpiozero calls back on the pressing thread, as a GPIO edge thread
would), the engine with its SQLite journal, the renderer, and the real serial
link writing to the firmware controller running behind a pty. The clock
starts just before ``pin.drive_low()`` and stops when ``link.show()`` has
written the frame.

Each cycle is three presses: +1 (a pending entry appears), encoder push (the
commit: a journal write) and undo (another journal write). The +1 and the
commit act on the press edge; undo acts on the release edge (a long hold
would mean redo), so its clock starts at the release.

The service sends the frame of an entry first and then writes it to the
journal (an fsync) before it handles anything else; the script also notes
when that write has returned (edge -> durable) and waits for the loop (and
the emulated controller, a thread of this process) to be idle again before
the next press, so each press is timed on its own, as presses by hand are.

A pending entry blinks (0.3 s on, 0.3 s off, in phase with the renderer's
clock): a +1 pressed during the "off" half changes no LED until the blink
turns on, so its figure is the blink, not the service. Those presses are
counted separately.

    PYTHONPATH=. python benchmarks/bench_service_latency.py [--presses 1000]
        [--link serial|adalight|null] [--burn N] [--pi-class 8] [--sound]

``--link adalight``: an Adalight link (a WLED board's) on a pty whose far end is read at
115,200 baud (11,520 bytes a second, WLED's default line) by WLED's own Adalight parser
(tests/wled.py); besides edge -> frame handed to the link, it prints edge -> frame shown
by WLED (the 774-byte packet of 256 LEDs takes 67 ms on that line).

``--sound`` wires the sound as a board with a buzzer and a voice has it: a buzzer on
GPIO12 (a mock PWM pin) playing every cue, and a voice that takes a second per phrase
(a stand-in for espeak-ng, cut short by the next event), so the figures show whether a
press ever waits for sound.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, cast

import pi_class
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "firmware"))

from boardctl.config import parse_config  # noqa: E402
from boardctl.link import open_link  # noqa: E402
from boardctl.service import app  # noqa: E402
from boardctl.service.fault import JournalKeeper  # noqa: E402
from boardctl.service.loop import Call  # noqa: E402


class TimedLink:
    """Wraps a link: notes when each frame has been written."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.shown = threading.Event()
        self.at = 0.0
        self.frame = b""

    def show(self, frame: bytes) -> None:
        self.inner.show(frame)
        self.at = time.perf_counter()
        self.frame = frame
        self.shown.set()

    @property
    def connected(self) -> bool:
        return bool(self.inner.connected)

    def set_brightness(self, level: float) -> None:
        self.inner.set_brightness(level)

    def goodbye(self) -> None:
        self.inner.goodbye()

    def close(self) -> None:
        self.inner.close()


class TimedJournal:
    """Wraps a journal's ``append``: notes when each event is durably written."""

    def __init__(self, journal: Any) -> None:
        self.append_inner = journal.append
        self.at = 0.0
        journal.append = self.append

    def append(self, *args: Any, **kwargs: Any) -> Any:
        record = self.append_inner(*args, **kwargs)
        self.at = time.perf_counter()
        return record


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class WledLine:
    """A WLED board's serial line at 115,200 baud (tests/wled.py), as the service's device:
    ``wait_for`` a frame at the link's brightness, ``latency`` of a press."""

    def __init__(self, leds: int, baud: int = 115_200) -> None:
        from tests.wled import SerialLine

        self.line = SerialLine(leds, baud)
        self.path = self.line.path
        self.link: Any = None

    def wait_for(self, frame: bytes, timeout: float) -> bool:
        from boardctl.link.adalight import scale_frame

        return self.line.wait_for(
            self.line.shows(scale_frame(frame, self.link.brightness)), timeout
        )

    def latency(self, frame: bytes, start: float) -> float:
        """ms from ``start`` until WLED showed ``frame``."""
        if not self.wait_for(frame, 3):
            raise SystemExit("WLED never showed the frame of a press")
        return (self.line.shown[-1][0] - start) * 1000

    def close(self) -> None:
        self.line.close()


def _open_link(kind: str) -> tuple[Any, Any]:
    """The emulated controller (serial), the WLED line (adalight) or None, and a connected
    link to it."""
    if kind == "adalight":
        line = WledLine(256)
        inner = open_link("adalight", path=line.path)
        line.link = inner
        deadline = time.monotonic() + 5
        while not inner.connected and time.monotonic() < deadline:
            time.sleep(0.01)
        return line, inner
    if kind != "serial":
        return None, open_link("null")
    from emulator import PtyDevice

    device = PtyDevice(led_count=256)
    device.plug()
    inner = open_link("serial", path=device.path)
    deadline = time.monotonic() + 5
    while not inner.connected and time.monotonic() < deadline:
        time.sleep(0.01)
    return device, inner


class SlowVoice:
    """Speaks each phrase for a second (or until stopped), as espeak-ng would take."""

    def __init__(self) -> None:
        self.phrases = 0
        self._stop = threading.Event()

    def speak(self, text: str) -> None:
        self.phrases += 1
        self._stop.clear()
        self._stop.wait(1.0)

    def stop(self) -> None:
        self._stop.set()


def _config(sound: bool) -> Any:
    """Free mode, no commit timeout; with ``sound``, a buzzer on GPIO12."""
    raw: dict[str, Any] = {
        "game": {"mode": "free"},
        "inputs": {"debounce": 0.0005, "commit_idle": 60.0},
    }
    if sound:
        raw["sound"] = {"buzzer": 12}
    return parse_config(raw)


def _slow_voice(board: Any) -> None:
    """Give the board's announcer (if sound is wired) the slow voice."""
    from boardctl.sound.voice import SpeechQueue

    if board.sound is not None:
        board.sound.speech = SpeechQueue(SlowVoice())


def parse_args() -> argparse.Namespace:
    """The options; under ``--pi-class``/``--burn`` the script runs again and exits here."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=1000)
    parser.add_argument("--link", choices=("serial", "adalight", "null"), default="serial")
    parser.add_argument("--sound", action="store_true", help="a buzzer and a slow voice wired")
    pi_class.add_options(parser)
    args = parser.parse_args()
    code = pi_class.rerun(args)
    if code is not None:
        sys.exit(code)
    return args


def settle(board: Any, device: Any) -> None:
    """Wait until the loop has handled everything before (the journal write too)."""
    idle = threading.Event()
    board.loop.post(Call(idle.set))
    if not idle.wait(2):
        raise SystemExit("the loop did not come back")
    # the emulated controller is a thread of this process (one GIL with the service),
    # unlike a real Pico: let it finish the last frame too (WLED: the line idle again)
    frame = board.loop.frame
    if device is not None and frame is not None and not device.wait_for(frame, 3):
        raise SystemExit("the controller did not show the last frame")


def main() -> None:
    args = parse_args()
    load = os.getloadavg()
    print(
        f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)"
    )
    factory = MockFactory()
    Device.pin_factory = factory
    config = _config(args.sound)
    device, inner = _open_link(args.link)
    link = TimedLink(inner)
    with tempfile.TemporaryDirectory() as tmp:
        board = app.build(
            config,
            journal=Path(tmp) / "journal.sqlite",
            socket_path=Path(tmp) / "control.sock",
            display="none",
            link=link,
            factory=factory,
            keyboard=False,
        )
        _slow_voice(board)
        journal = TimedJournal(cast(JournalKeeper, board.loop.keeper).journal)
        thread = threading.Thread(target=board.loop.run, daemon=True)
        thread.start()
        time.sleep(0.2)

        pins = config.pins
        buttons = {
            "+1": factory.pin(pins.tracks[0].plus1),
            "commit": factory.pin(pins.tracks[0].encoder_push),
            "undo": factory.pin(pins.undo),
        }
        results: dict[str, list[float]] = {name: [] for name in buttons}
        durable: dict[str, list[float]] = {"commit": [], "undo": []}
        on_wled: dict[str, list[float]] = {name: [] for name in buttons}
        blink_delayed: list[float] = []
        count = 0
        while count < args.presses:
            for name, pin in buttons.items():
                if count >= args.presses:
                    break
                if name == "undo":
                    pin.drive_low()
                    time.sleep(0.002)
                settle(board, device)
                link.shown.clear()
                written = journal.at
                start = time.perf_counter()
                if name == "undo":
                    pin.drive_high()
                else:
                    pin.drive_low()
                if not link.shown.wait(2):
                    raise SystemExit(f"no frame after a {name} press")
                elapsed = (link.at - start) * 1000
                if name == "+1" and elapsed > 50:
                    blink_delayed.append(elapsed)
                else:
                    results[name].append(elapsed)
                    if isinstance(device, WledLine):
                        on_wled[name].append(device.latency(link.frame, start))
                if name in durable:
                    settle(board, device)
                    if journal.at == written:
                        raise SystemExit(f"a {name} press wrote nothing to the journal")
                    durable[name].append((journal.at - start) * 1000)
                time.sleep(0.002)
                if name != "undo":
                    pin.drive_high()
                time.sleep(0.002)
                count += 1
        board.loop.stop()
        thread.join(5)
        board.close()
    if device is not None:
        device.close()
    kind = f"{args.link} link, sound wired" if args.sound else f"{args.link} link"
    summarize(kind, results, durable, blink_delayed)
    if args.link == "adalight":
        print("button edge -> frame shown by WLED's parser at 115,200 baud, ms:")
        for name, values in on_wled.items():
            report(name, values)


def summarize(
    kind: str,
    results: dict[str, list[float]],
    durable: dict[str, list[float]],
    blink_delayed: list[float],
) -> None:
    """Print the figures."""
    every = [v for values in results.values() for v in values]
    if blink_delayed:
        print(
            f"{len(blink_delayed)} +1 presses fell in the pending blink's off half: first "
            f"frame after p50={statistics.median(blink_delayed):.0f} ms (the blink, not counted)"
        )
    print(f"button edge -> frame written ({kind}), {len(every)} frames, ms:")
    rows = [("all presses", every), *results.items()]
    for name, values in rows:
        report(name, values)
    print("button edge -> event durably in the journal (after the frame), ms:")
    for name, values in durable.items():
        report(name, values)


def report(name: str, values: list[float]) -> None:
    if values:
        print(
            f"  {name:<12} n={len(values):>4}  p50={statistics.median(values):.3f}"
            f"  p99={percentile(values, 99):.3f}  max={max(values):.3f}"
        )


if __name__ == "__main__":
    import machine_load

    machine_load.report("before")
    main()
    machine_load.report("after")
