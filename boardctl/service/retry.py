"""A CLI command that changes the game: sent with one request id, retried, applied once; with
no service, written directly only under the journal's writer lock, else handed to the service
that is starting (docs/service.md, 'Exactly once' and 'One writer')."""

from __future__ import annotations

import contextlib
import os
import sys
import time

from boardctl.errors import ControlError
from boardctl.service.client import NoAnswer, ServiceDown, request

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

ATTEMPTS = 3  # each waits up to the client's timeout (5 s)
HANDOFF_WAIT = 30.0  # seconds to wait for a starting service (a Pi Zero may take several)
_POLL = 0.05


def send_once(
    socket_file: str | os.PathLike[str],
    command: dict[str, Any],
    direct: Callable[[dict[str, Any]], tuple[Any, bool]],
) -> tuple[Any, bool]:
    """Send ``command`` with a request id; (result, True if the service answered). With no
    service, ``direct`` (:func:`apply_or_hand_over`, say) gets the command."""
    command = {**command, "request_id": command.get("request_id") or os.urandom(16).hex()}
    last: NoAnswer | None = None
    for attempt in range(ATTEMPTS):
        try:
            result = request(socket_file, command)
        except NoAnswer as exc:
            last = exc
            if attempt + 1 < ATTEMPTS:  # the last one is not followed by another
                print(
                    f"boardctl: {exc}; asking again ({attempt + 2} of {ATTEMPTS}) ...",
                    file=sys.stderr,
                )
            continue
        except ServiceDown:
            result, live = direct(command)
        else:
            live = True
        if isinstance(result, dict) and result.get("repeated"):
            print(
                "(the first request had been recorded; it was not applied twice)", file=sys.stderr
            )
        return result, live
    raise ControlError(
        f"{last}; the entry may have been recorded: `boardctl status` shows it "
        "(entering it again could count it twice)"
    )


def apply_or_hand_over(
    socket_file: Path, journal: Path, command: dict[str, Any]
) -> tuple[Any, bool]:
    """Apply ``command`` to the journal, or hand it to the service; (result, True if sent)."""
    from boardctl.game.commands import parse_command
    from boardctl.game.keeper import Scorekeeper
    from boardctl.service.once import exactly_once
    from boardctl.store.lock import JournalBusy

    deadline = time.monotonic() + HANDOFF_WAIT
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
                f"{busy}; no service answered on {socket_file} within {HANDOFF_WAIT:.0f} s. "
                "Nothing was written; check `systemctl status boardctl`"
            )
        time.sleep(_POLL)
