"""Exactly once: a state-changing request repeated with the same id writes nothing
(docs/service.md, 'Exactly once'). A request that wrote nothing (refused, a pending amount
only) is handled again."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from boardctl.errors import ControlError

if TYPE_CHECKING:
    from boardctl.service.wire import Handler

MAX_REQUEST_ID = 64  # characters
FIELD = "request_id"


def exactly_once(handler: Handler, current: Callable[[], Any]) -> Handler:
    """Wrap the service's request handler with the request-id check (the ``journal`` of
    ``current()``, the keeper of the moment: a board joins or leaves a game while it runs)."""

    def handle(request: dict[str, Any]) -> Any:
        rid = request.pop(FIELD, None)  # the engine never sees it
        if rid is not None and (not isinstance(rid, str) or not 0 < len(rid) <= MAX_REQUEST_ID):
            raise ControlError(f"{FIELD} must be a string of 1-{MAX_REQUEST_ID} characters")
        keeper = current()
        journal = keeper.journal
        if rid is None or journal is None:
            return handler(request)
        first = journal.find_request(rid)
        if first is not None:
            return {
                "ok": True,
                "seq": first.seq,
                "event": first.event,
                "status": keeper.status(),
                "repeated": True,
            }
        journal.tag_next(rid)
        try:
            return handler(request)
        finally:
            journal.tag_next(None)

    return handle
