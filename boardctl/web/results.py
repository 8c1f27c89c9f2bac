"""Results, player records and standings for the pages, from the bridge's retained results on the
club's MQTT broker, never from the journal (docs/web.md, "Results and the standings page")."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.errors import BoardError
from boardctl.mqtt.retention import events_since
from boardctl.web.page_config import StandingsOptions

if TYPE_CHECKING:  # imported when first used: a page without results does not load them
    from boardctl.config import MqttConfig
    from boardctl.results.model import GameResult

Messages = dict[tuple[str, str], bytes]  # (board, <event>/<game>) -> payload, as collect's

log = logging.getLogger(__name__)

RETRY_FIRST = 1.0
RETRY_MAX = 15.0
LATEST = 20  # results listed on the board's page


class Pages:
    """The open pages' queues: each holds its last ``size`` messages (the oldest dropped, so a slow
    page slows nothing) and gets ``latest`` at once."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.latest: dict[str, Any] | None = None
        self._queues: set[asyncio.Queue[dict[str, Any]]] = set()

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(self.size)
        self._queues.add(queue)
        if self.latest is not None:
            queue.put_nowait(self.latest)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        self._queues.discard(queue)

    def _send(self, message: dict[str, Any]) -> None:
        self.latest = message
        for queue in self._queues:
            if queue.full():
                queue.get_nowait()
            queue.put_nowait(message)


class Changes(Pages):
    """The results' version, fanned out to the open pages (each message: the new version)."""

    def __init__(self) -> None:
        super().__init__(4)
        self.version = 0
        self.latest = {"version": 0, "error": ""}

    def changed(self, error: str) -> None:
        """The results changed (in the event loop's thread)."""
        self.version += 1
        self._send({"version": self.version, "error": error})


class ResultsFeed:
    """Every board's retained results on the broker, followed for ever in a daemon thread."""

    def __init__(
        self,
        config: MqttConfig,
        *,
        timeout: float = 10.0,
        since: str = "",
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.timeout = timeout
        self.since = since  # [standings] since: only the events from then on are read
        self._clock = clock  # (the Unix time: which event is tonight's)
        self.error = "waiting for the broker"
        #: The retained results now (the payloads as sent): replaced whole, never changed in place,
        #: so the pages read it without a lock.
        self.results: Messages = {}

    def start(self, changed: Callable[[], object]) -> None:
        """Follow the broker; ``changed()`` is called (from the thread) after every change."""
        threading.Thread(target=self._run, args=(changed,), name="results", daemon=True).start()

    def _run(self, changed: Callable[[], object]) -> None:
        from boardctl.standings.collect import collect  # paho: the mqtt extra

        pause = RETRY_FIRST

        def follow(results: Messages) -> bool:
            nonlocal pause
            self.results = dict(results)
            self.error = ""
            pause = RETRY_FIRST  # the broker answered: a later outage starts short again
            changed()
            return True

        while True:
            try:  # the events read, at each connection (none: every event the broker keeps)
                only = events_since(self.since, self._clock(), self.config) if self.since else []
                collect(self.config, timeout=self.timeout, follow=follow, only=only)
            except (BoardError, OSError) as exc:
                self.error = str(exc)
                log.warning("results: %s (again in %.0f s)", exc, pause)
                changed()
            time.sleep(pause)
            pause = min(RETRY_MAX, pause * 2)


def _result(record: Mapping[str, Any]) -> GameResult | None:
    from boardctl.results.model import GameResult

    try:
        return GameResult.from_dict({k: v for k, v in record.items() if k != "id"})
    except BoardError:
        return None  # another format: the standings may still read it


def board_document(messages: Messages, board: str) -> dict[str, Any]:
    """This board's results (newest first, each marked signed or not) and its players' records."""
    from boardctl.results.records import records_of_results
    from boardctl.standings.verify import check

    checked = check(messages.items(), {})
    mine = [r for r in checked.records if not board or r.get("board") == board]
    mine.sort(key=lambda r: (str(r.get("end", "")), str(r.get("id", ""))), reverse=True)
    pairs = [(rec, result) for rec in mine if (result := _result(rec)) is not None]
    results = [result for _, result in pairs]
    rows = [
        {
            "id": str(rec.get("id", "")),
            "end": result.end,
            "game": result.game,
            "match": result.match,
            "rules": result.rules,
            "names": list(result.names),
            "scores": list(result.scores),
            "winner": result.winner_name,
            "spread": result.spread,
            "skunk": result.skunk,
            "game_points": result.game_points,
            "final": result.final,
            "signed": bool(result.hmac),
        }
        for rec, result in pairs[:LATEST]
    ]
    found = records_of_results(results)
    players = sorted(found.players.values(), key=lambda p: (-p.wins, -p.game_points, p.name))
    return {
        "board": board,
        "games": len(results),
        "results": rows,
        "players": [p.to_dict() for p in players],
        "head_to_head": [h.to_dict() for h in found.pairs.values()],
    }


def standings_document(messages: Messages, options: StandingsOptions) -> dict[str, Any]:
    """The ACC standings of the verified and hand-entered games; the rest listed ``apart`` with
    reasons, malformed ones counted (``skipped``) and named once (``note``)."""
    from boardctl.standings import by_hand, keyring
    from boardctl.standings.report import report
    from boardctl.standings.verify import check

    try:  # the director's board keys ([standings] keyring); games entered by hand, if any
        keys = keyring.load(Path(options.keyring) if options.keyring else keyring.default_path())
        checked = check(messages.items(), keys)
        manual = by_hand.load(Path(options.manual), missing_ok=False) if options.manual else []
        games = checked.counted(unverified=options.count_unverified) + manual
        done = report(
            games,
            by=options.by,
            since=options.since,
            playoffs_since=options.playoffs_since,
            best_of=options.best_of,
        )
    except BoardError as exc:
        return {"ok": False, "error": str(exc)}
    apart = checked.failed + ([] if options.count_unverified else checked.unverified)
    return {
        "ok": True,
        **done.to_dict(),
        "skipped": len(checked.bad),
        "note": checked.note(),
        "apart": [a.to_dict() for a in apart],
    }
