"""The joined board's side of a link: its commands out until answered, sent again on every
(re)connection and every :data:`RESEND_EVERY` seconds (docs/remote.md, 'Request ids'); the
host's board in, the newest ``state`` only."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any

from boardctl.board.viewjson import view_from_dict
from boardctl.config import MqttConfig
from boardctl.remote.broker import Connection
from boardctl.remote.messages import Message
from boardctl.remote.paired import Pairing
from boardctl.remote.store import Outbox
from boardctl.view import BoardView

RESEND_EVERY = 2.0  # seconds between resends of an unanswered command while connected


def host_view(state: dict[str, Any], now: float | None = None) -> BoardView:
    """The board the host shows, from its ``state`` message, with its times moved from the
    host's clock to ``now`` (this board's clock when the state came), if given."""
    view = view_from_dict(state.get("view"), source="the host's state")
    clock = state.get("clock")
    if now is None or not isinstance(clock, int | float):
        return view
    shift = now - clock

    def moved(at: float | None) -> float | None:
        return None if at is None else at + shift

    extra = dataclasses.replace(view.extra, pending_at=moved(view.extra.pending_at))
    return dataclasses.replace(
        view, error_at=moved(view.error_at), over_at=moved(view.over_at), extra=extra
    )


class GuestLink(Connection):
    """The joined board's link (see the module); :meth:`close` ends it."""

    def __init__(
        self,
        link: Pairing,
        mqtt: MqttConfig,
        outbox: Outbox,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.outbox = outbox
        self.state: dict[str, Any] | None = None  # the host's board, as last received
        self.received_at = 0.0  # this board's clock when it came
        self.on_change: Callable[[], None] = lambda: None  # a state, the host's presence
        self.on_answer: Callable[[str, dict[str, Any]], None] = lambda rid, answer: None
        self._clock = clock
        self._n = -1  # the counter of the state held
        super().__init__(link, mqtt)
        self.start()
        self._resender = threading.Thread(target=self._resend, name="remote-resend", daemon=True)
        self._resender.start()

    @property
    def reachable(self) -> bool:
        """The host can be reached: this board is on the broker, and so is the host."""
        return self.connected and self.other_online

    def view(self) -> BoardView | None:
        """The host's board as this board shows it now, None before the host's first state."""
        state = self.state
        return None if state is None else host_view(state, self.received_at)

    def submit(self, request: dict[str, Any], request_id: str | None = None) -> str:
        """Keep ``request`` durably, then send it after every older one still unanswered
        (so the host meets them in the order they were made); returns its request id."""
        rid = self.outbox.add(request, request_id)
        self._send_pending()
        return rid

    def hello_body(self) -> dict[str, Any]:
        """The end of the newest finished game kept: the host sends those after it."""
        return {"results_after": self.outbox.newest_result_end(self.link.key)}

    def _send_pending(self) -> None:
        for rid, request, after in self.outbox.pending():
            self.send("cmd", {"entry": request, "after": after}, request_id=rid)

    def _resend(self) -> None:
        while not self._stop.wait(RESEND_EVERY):
            if self.connected:
                self._send_pending()

    # --- the paho thread ----------------------------------------------------------
    def _changed(self, what: str) -> None:
        if what in ("connect", "hello"):  # what the host missed, now (not at the next resend)
            self._send_pending()
        self.on_change()

    def _message(self, kind: str, got: Message, payload: bytes) -> None:
        if kind == "answer":
            if self.outbox.answered(got.request_id, got.body):
                self.on_answer(got.request_id, got.body)
        elif kind == "state" and got.n > self._n:
            self._n, self.state, self.received_at = got.n, got.body, self._clock()
            self.on_change()
        elif kind == "result":
            self.outbox.keep_result(payload, self.link.key)

    def close(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        self._resender.join()
        super().close()
        self.outbox.close()
