"""Power cuts of the twin: QEMU killed while entries are committed from the control socket and
from the buttons, the same disks booted again, the board's score checked against what was
acknowledged before the cut.

QEMU's disks use cache=none (twin/boot.sh): a kill loses every write the guest had not
flushed. The two tracks take entries from two sources, each worth 1 point:

- the first track from the control socket (``guest_pegger.py run``): an entry is acknowledged
  when its reply came, which the service sends only once the entry is on disk; the one in
  flight at the cut is sent again after the boot with its request id, so the track must then
  hold exactly the acknowledged entries and that one;
- the second track from the buttons, pressed on the GPIO lines (``+1``, then the encoder's push
  to commit at once): an entry is acknowledged when the control socket's stream
  (``guest_pegger.py watch``) reported it journalled, which it does only after the write's
  fsync. A press carries no request id and nobody presses again after the boot, so the track
  must hold at least the acknowledged entries (none lost) and at most the entries pressed
  (none doubled); the one pressed at the cut may or may not have reached the disk.
"""

from __future__ import annotations

import select
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from boardctl.config import DEFAULT_PINS
from tests.twin.vm import VENV_PYTHON, Twin, boot_to_ready, wait_for

PEGGER = Path(__file__).with_name("guest_pegger.py")
BUTTON_PINS = DEFAULT_PINS["track2"]  # the buttons' track; the control socket's is track1
REPLY_TIMEOUT = 120.0  # an entry's acknowledgement under TCG


def button(role: str) -> int:
    """The GPIO line of the buttons' track's ``role`` button."""
    pin = BUTTON_PINS[role]
    assert pin is not None
    return pin


class Journalled:
    """The guest's stream of journalled pegs (``guest_pegger.py watch``), counted per track."""

    def __init__(self, twin: Twin) -> None:
        self.counts = [0, 0]
        self._watch = subprocess.Popen(
            twin.ssh_command(f"{VENV_PYTHON} -u /root/pegger.py watch"),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert self._watch.stdout is not None
        ready, _, _ = select.select([self._watch.stdout], [], [], 300)
        assert ready and self._watch.stdout.readline().strip() == "watching", "no watch stream"
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._watch.stdout is not None
        for line in self._watch.stdout:
            words = line.split()
            if len(words) == 3 and words[0] == "journalled":
                self.counts[int(words[1])] += int(words[2])

    def wait(self, track: int, points: int) -> None:
        """Until ``points`` points of ``track`` were reported journalled."""

        def done() -> bool | None:
            return True if self.counts[track] >= points else None

        wait_for(f"{points} journalled on track {track}", done, REPLY_TIMEOUT, every=0.1)

    def close(self) -> None:
        """After the cut: what the stream had sent before it is read to the end."""
        self._watch.kill()
        self._watch.wait()
        self._reader.join(30)


class PowerCuts:
    """Cut trials on one twin, in one free game; the score each track must hold across them."""

    def __init__(self, twin: Twin) -> None:
        self.twin = twin
        self.points = [0, 0]  # each track's score on the board after the last boot
        self.trials: list[dict[str, Any]] = []

    def new_game(self) -> None:
        """The pegger in the guest (flushed: it must outlive the cuts), and a new free game."""
        with PEGGER.open("rb") as source:
            self.twin.ssh("cat > /root/pegger.py && sync", stdin=source)
        self.twin.ssh(f"{VENV_PYTHON} /root/pegger.py new")
        self.points = [0, 0]

    def press_entry(self, *, commit: bool = True) -> None:
        """One point on the buttons' track: ``+1``, then (``commit``) the encoder's push."""
        self.twin.press(button("plus1"))
        if commit:
            self.twin.press(button("encoder_push"))

    def trial(
        self, name: str, socket_entries: int, button_entries: int, delay: float
    ) -> dict[str, Any]:
        """``socket_entries`` and ``button_entries`` acknowledged, one more of each in flight,
        QEMU killed ``delay`` s after the last press went down; the boot; the socket's entry in
        flight sent again. Returns the trial's record, with the entries ``lost`` and
        ``doubled``."""
        twin = self.twin
        journalled = Journalled(twin)
        pegger = subprocess.Popen(
            twin.ssh_command(f"{VENV_PYTHON} -u /root/pegger.py run {name}"),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert pegger.stdin is not None and pegger.stdout is not None
        pressed = 0
        for number in range(1, max(socket_entries, button_entries) + 1):
            if number <= socket_entries:
                pegger.stdin.write("\n")
                pegger.stdin.flush()
                ready, _, _ = select.select([pegger.stdout], [], [], REPLY_TIMEOUT)
                assert ready, f"twin: no reply to entry {number} within {REPLY_TIMEOUT:.0f} s"
                assert pegger.stdout.readline().strip() == f"ack {number}"
            if number <= button_entries:
                self.press_entry()
                pressed += 1
                journalled.wait(1, pressed)
        # In flight at the cut: a button entry pending, the socket's next entry sent, the
        # encoder's push going down (the panel commits on the press, not the release); the
        # power goes while the push is held, ``delay`` s after its edge reached the guest.
        self.press_entry(commit=False)
        pressed += 1
        pegger.stdin.write("\n")
        pegger.stdin.flush()
        twin.gpio(f"set {button('encoder_push')} 0")
        time.sleep(delay)
        twin.cut_power()
        pegger.kill()
        pegger.wait()
        journalled.close()
        boot_to_ready(twin)
        resent = twin.ssh(f"{VENV_PYTHON} -u /root/pegger.py resend {name} {socket_entries + 1}")
        assert resent.stdout.strip() == f"ack {socket_entries + 1}", resent
        points = [int(track["front"]) for track in twin.status()["tracks"]]
        socket_expected = self.points[0] + socket_entries + 1
        button_low = self.points[1] + journalled.counts[1]  # journalled before the cut
        button_high = self.points[1] + pressed
        record = {
            "socket_acked": socket_entries,
            "buttons_journalled": journalled.counts[1],
            "buttons_pressed": pressed,
            "delay_s": round(delay, 3),
            "points": points,
            "lost": max(0, socket_expected - points[0]) + max(0, button_low - points[1]),
            "doubled": max(0, points[0] - socket_expected) + max(0, points[1] - button_high),
        }
        self.trials.append(record)
        self.points = points
        return record
