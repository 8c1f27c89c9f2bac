"""``history --all`` in the service: the finished games' rows, built off the loop.

Every row of a finished game is fixed (:mod:`boardctl.game.past`), but the
first ``history --all`` after a start must replay the whole journal to make
them: half a second here for 200 games, about 4.6 s at the Pi-class quota,
far too long for the loop, which must keep the LEDs following the buttons.
So a thread of the service (:class:`~boardctl.service.journal_reader.JournalReader`,
as for the ``records`` request) replays the journal on a read-only connection
of its own, with a read-only scorekeeper that keeps each game's rows as the
next game starts, and publishes them with the first event of its current
game. Later reads replay only the events written since (milliseconds).

The loop answers from them when they are current, that is when the reader's
current game is the loop's (every game before it is then among the kept
rows): the kept rows and then the loop's own current game, whose rows come
from the engine as for ``history`` (so an event committed while the thread
reads is in the answer). Otherwise it answers at once with
``{"ready": false, "seq", "events"}`` and the client asks again a moment
later (:func:`boardctl.service.client.request_ready`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from boardctl.errors import ControlError
from boardctl.service.journal_reader import JournalReader
from boardctl.service.wire import Encoded

if TYPE_CHECKING:
    from pathlib import Path

    from boardctl.game.history import Row
    from boardctl.game.keeper import Scorekeeper
    from boardctl.game.limits import Limits
    from boardctl.game.past import PastGames


@dataclass(frozen=True)
class Kept:
    """What the reader published: the finished games' rows, and where its current game starts."""

    past: PastGames
    start: int  # the seq of the current game's first event (the next seq if there is none)


def game_start(rows: list[Row], seq: int) -> int:
    """The first event of the game whose rows are ``rows`` (``seq``: the last event)."""
    first = rows[0]["seq"] if rows else None
    return first if isinstance(first, int) else seq + 1


class PastRows(JournalReader[Kept]):
    """The finished games' rows of the journal at ``path`` (None: no journal)."""

    name = "history"

    def __init__(self, path: str | Path | None, limits: Limits | None = None) -> None:
        super().__init__(path)
        self._limits = limits
        self._keeper: Scorekeeper | None = None

    def reply(self, current: list[Row], seq: int) -> Any:
        """Every row: the kept ones and ``current`` (the loop's current game, up to ``seq``)
        as JSON text, or not ready yet (``{"ready": false}``)."""
        start = game_start(current, seq)
        kept, read = self._ask(lambda answer, _seq: answer.start == start)
        if kept is None and read == seq and seq > 0:
            # the reader has every event the board has, yet another current game: asking
            # again would never help (a journal that is not the one the board holds)
            raise ControlError(
                f"history: the journal's current game starts at event {self._start()}, "
                f"the board's at {start}"
            )
        if kept is None:
            return {"ready": False, "seq": max(read, 0), "events": seq}
        return Encoded(kept.past.encoded(current))

    def _start(self) -> int:
        with self._lock:
            return -1 if self._answer is None else self._answer.start

    def _catch_up(self, path: Path) -> tuple[Kept, int]:
        from boardctl.game.keeper import Scorekeeper
        from boardctl.game.machine import Machine
        from boardctl.store.journal import Journal

        if self._keeper is None:
            journal = Journal.open(path, readonly=True)
            self._keeper = Scorekeeper(Machine(limits=self._limits), journal)
            self._keeper.keep_past()
        keeper = self._keeper
        keeper.refresh()  # every event not yet read: the whole journal the first time
        kept = Kept(keeper.keep_past().copy(), game_start(keeper.history(), keeper.seq))
        return kept, keeper.seq

    def _drop_journal(self) -> None:
        if self._keeper is not None:
            self._keeper.close()
        self._keeper = None
