"""A CLI entry while no service answers: write it directly only if no one else may write.

The journal has one writer at a time (:mod:`boardctl.store.lock`). If the lock is
held, a service is starting or stopping, or another CLI write is under way: the
verb waits for the socket to answer and sends the command there, or takes the
lock once it is free, whichever comes first. It never writes behind a service's back.
"""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import Any

from boardctl.errors import ControlError

HANDOFF_WAIT = 30.0  # seconds to wait for a starting service (a Pi Zero may take several)
_POLL = 0.05


def apply_or_hand_over(
    socket_file: Path, journal: Path, command: dict[str, Any], *, wait: float = HANDOFF_WAIT
) -> tuple[Any, bool]:
    """Apply ``command`` to the journal, or hand it to the service; (result, True if sent)."""
    from boardctl.game.commands import parse_command
    from boardctl.game.keeper import Scorekeeper
    from boardctl.service.client import ServiceDown, request
    from boardctl.service.once import exactly_once
    from boardctl.store.lock import JournalBusy

    deadline = time.monotonic() + wait
    busy: JournalBusy | None = None
    while True:
        try:
            with Scorekeeper.open(journal) as keeper:  # the request id honoured, as by a service
                apply = exactly_once(
                    lambda request: keeper.apply(parse_command(request)), lambda: keeper
                )
                return apply(dict(command)), False
        except JournalBusy as exc:
            if busy is None:
                print(f"boardctl: {exc}; waiting for the service to answer ...", file=sys.stderr)
            busy = exc
        with contextlib.suppress(ServiceDown):
            result = request(socket_file, command)
            print("(the service was starting: the entry was sent to it)", file=sys.stderr)
            return result, True
        if time.monotonic() >= deadline:
            raise ControlError(
                f"{busy}; no service answered on {socket_file} within {wait:.0f} s. "
                "Nothing was written; check `systemctl status boardctl`"
            )
        time.sleep(_POLL)
