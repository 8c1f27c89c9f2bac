"""A CLI command that changes the game: sent with one request id, retried, applied once.

Without a reply the CLI cannot know whether the entry was applied: it sends the
same request again, with the same ``request_id`` (:mod:`boardctl.service.once`).
If no attempt is answered, it says that the entry *may* have been recorded,
never that it failed.
"""

from __future__ import annotations

import os
import sys

from boardctl.errors import ControlError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

ATTEMPTS = 3  # each waits up to the client's timeout (5 s)


def send_once(
    socket_file: str | os.PathLike[str],
    journal: Path | None,
    command: dict[str, Any],
    *,
    direct: Callable[[dict[str, Any]], tuple[Any, bool]] | None = None,
) -> tuple[Any, bool]:
    """Send ``command`` with a request id; (result, True if the service answered). With no
    service, ``direct`` (by default :func:`.handoff.apply_or_hand_over`) gets the command."""
    from boardctl.service.client import NoAnswer, ServiceDown, request

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
            if direct is not None:
                result, live = direct(command)
            else:
                from pathlib import Path

                from boardctl.service.handoff import apply_or_hand_over

                assert journal is not None, "send_once needs a journal or a direct writer"
                result, live = apply_or_hand_over(Path(socket_file), journal, command)
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
