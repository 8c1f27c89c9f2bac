"""A CLI command that changes the game: sent with one request id, retried, applied once.

When no reply comes (the service stopped with SIGSTOP, a slow fsync, a
broken connection), the CLI cannot know whether the entry was applied. It
sends the same request again, with the same ``request_id``: the service
returns the first result if the entry was recorded and applies it otherwise
(:mod:`boardctl.service.once`). If no attempt is answered, it says that the
entry *may* have been recorded, never that it failed.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

from boardctl.errors import ControlError

ATTEMPTS = 3  # each waits up to the client's timeout (5 s)


def send_once(socket_file: Path, journal: Path, command: dict[str, Any]) -> tuple[Any, bool]:
    """Send ``command`` with a request id; (result, True if the service answered)."""
    from boardctl.service.client import NoAnswer, ServiceDown, request
    from boardctl.service.handoff import apply_or_hand_over

    command = {**command, "request_id": command.get("request_id") or uuid.uuid4().hex}
    last: NoAnswer | None = None
    for attempt in range(ATTEMPTS):
        try:
            result = request(socket_file, command)
        except NoAnswer as exc:
            last = exc
            print(
                f"boardctl: {exc}; asking again ({attempt + 2} of {ATTEMPTS}) ...", file=sys.stderr
            )
            continue
        except ServiceDown:
            result, live = apply_or_hand_over(socket_file, journal, command)
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
