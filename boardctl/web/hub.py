"""One watch of the board while a page is open (and :data:`LINGER` seconds after), fanned out to
every open page."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from boardctl.board.layout import Layout
from boardctl.board.viewjson import view_from_dict
from boardctl.errors import BoardError
from boardctl.web.board_leds import board_plan, led_colours, plan_key
from boardctl.web.results import Pages
from boardctl.web.socket_source import Snapshot, Source

log = logging.getLogger(__name__)

QUEUE = 8
LINGER = 2.0

Message = dict[str, Any]


class Hub(Pages):
    """The latest state of the board and the queues of the pages watching it."""

    def __init__(self, source: Source, layout: Layout) -> None:
        super().__init__(QUEUE)
        self.source = source
        self.layout = layout
        self.plan: dict[str, Any] | None = None
        self.refusal: dict[str, Any] | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.TimerHandle | None = None
        self._plan_key: tuple[Any, ...] | None = None

    def subscribe(self) -> asyncio.Queue[Message]:
        """A queue of messages for one page; the latest state is in it at once."""
        if self._stop is not None:
            self._stop.cancel()
            self._stop = None
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        return super().subscribe()

    def unsubscribe(self, queue: asyncio.Queue[Message]) -> None:
        super().unsubscribe(queue)
        if not self._queues and self._stop is None:
            self._stop = asyncio.get_running_loop().call_later(LINGER, self._halt)

    def _halt(self) -> None:
        self._stop = None
        if not self._queues and self._task is not None:
            self._task.cancel()
            self._task = None
            self.latest = None  # a page that comes later gets a fresh state

    async def close(self) -> None:
        if self._stop is not None:
            self._stop.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _run(self) -> None:
        try:
            async for snap in self.source.watch():
                self._send(self.message(snap))
        except Exception:  # a bug here must not leave the pages hanging silently
            log.exception("watching the board failed")
            raise

    def message(self, snap: Snapshot) -> Message:
        """``snap`` as the pages get it (the plan follows its status)."""
        status = snap.status
        if status is not None and (key := plan_key(status)) != self._plan_key:
            try:
                view_from_dict(status, source="status")
                self.plan = {**board_plan(self.layout, status), "key": repr(key)}
            except (BoardError, KeyError, IndexError) as exc:
                log.warning("the board cannot be drawn for this status: %s", exc)
                self.plan = None
            self._plan_key = key
        previous = self.latest or {}
        return {
            "up": snap.up,
            "via": snap.via,
            "reason": snap.reason,
            "status": status if snap.up else previous.get("status"),
            "leds": led_colours(snap.rgb, self.layout.led_count)
            if snap.up
            else previous.get("leds", []),
            "plan": self.plan["key"] if self.plan else "",
            "refusal": self.refusal,
            "t": time.time(),
        }

    def note_refusal(self, text: str) -> None:
        """Remember the last refusal (shown on every page with its reason)."""
        self.refusal = {"text": text, "at": time.time()}
        if self.latest is not None:
            self._send({**self.latest, "refusal": self.refusal, "t": time.time()})
