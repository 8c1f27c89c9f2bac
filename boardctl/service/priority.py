"""How a thread that reads the journal yields to the service's loop: the loop's presses go
first where the CPU is short (a Pi Zero's one core, busy), the reader runs in what they leave."""

from __future__ import annotations

import contextlib
import os
import sys
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

SWITCH = 0.0002  # Python's switch interval while the reader runs (seconds; the default is 0.005)

# The interval is the process's: readers running at once (records, history --all) share one
# shortening, and the last to finish puts back what was there before the first began.
_switch_lock = threading.Lock()
_switch_users = 0
_switch_before = 0.0


def lower_priority() -> None:
    """Give the calling thread the lowest CPU priority, nice 19 (Linux sets it per thread)."""
    with contextlib.suppress(OSError, AttributeError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, max(19, os.getpriority(os.PRIO_PROCESS, tid)))


@contextlib.contextmanager
def beside_the_loop() -> Iterator[None]:
    """For a thread that reads the journal while the loop serves the buttons: the lowest
    priority for good, the short switch interval meanwhile (the loop, after a press, waits at
    most that long for the interpreter; the last reader out puts back the interval)."""
    global _switch_users, _switch_before
    lower_priority()
    with _switch_lock:
        if _switch_users == 0:
            _switch_before = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch_before, SWITCH))
        _switch_users += 1
    try:
        yield
    finally:
        with _switch_lock:
            _switch_users -= 1
            if _switch_users == 0:
                sys.setswitchinterval(_switch_before)
