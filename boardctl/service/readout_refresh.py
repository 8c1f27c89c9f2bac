"""The running service keeps the journal's readout fresh, off the press-to-LED path.

``boardctl status`` and ``history`` with the service down show the readout
beside the journal (:mod:`boardctl.game.readout`) when it names the
journal's last event; a service that never closed (``kill -9``, a power cut)
used to leave the one written at its last clean stop, so the first verb after
a crash replayed the whole journal. :class:`ReadoutRefresh` is a timer of the
service loop that rewrites the readout:

- once the journal is open at start (after its replay), at the loop's first turn;
- after commits, once no other commit came for :data:`QUIET` seconds, and at
  the latest :data:`LONGEST` seconds after the first commit not yet written,
  so that a burst of presses is one rewrite, made while the board is idle.

The rewrite is a temporary file renamed over the readout, not synced: the
entries' durability is the journal's fsync, untouched. A readout lost, torn or
a few events old after a power cut names an earlier event or fails its
checksum (chained from the journal's own), and the reader replays the
journal instead: the answer is the same either way, only slower.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from boardctl.game.keeper import Scorekeeper

QUIET = 0.5  # seconds without a commit before the readout is rewritten
LONGEST = 5.0  # seconds a commit waits for its rewrite at most, while entries keep coming


class ReadoutRefresh:
    """A loop timer (``deadline``/``tick``) rewriting the readout of the open journal."""

    def __init__(
        self,
        keeper: Callable[[], Scorekeeper | None],
        clock: Callable[[], float],
        *,
        quiet: float = QUIET,
        longest: float = LONGEST,
    ) -> None:
        self._keeper = keeper  # the journal's scorekeeper, None while it cannot be opened
        self._clock = clock
        self._quiet, self._longest = quiet, longest
        self._written: tuple[Scorekeeper, int] | None = None  # (keeper, seq) last written
        self._seen: tuple[Scorekeeper, int] | None = None  # the last (keeper, seq) seen
        self._first = self._changed = 0.0  # when the unwritten state was first and last seen
        self.rewrites = 0

    def _held(self) -> tuple[Scorekeeper, int] | None:
        keeper = self._keeper()
        return None if keeper is None else (keeper, keeper.seq)

    def deadline(self) -> float | None:
        """When the readout is to be rewritten (None: it is up to date)."""
        held = self._held()
        if held is None or held == self._written:
            return None
        if held != self._seen:
            now = self._clock()
            if self._seen is None or self._seen == self._written or self._seen[0] is not held[0]:
                self._first = now
            self._seen, self._changed = held, now
        if self._written is None or self._written[0] is not held[0]:
            return self._first  # a journal just opened (after its replay): at once
        return min(self._changed + self._quiet, self._first + self._longest)

    def tick(self, now: float) -> None:
        """Rewrite the readout when it is due."""
        due = self.deadline()
        if due is None or now < due:
            return
        keeper = self._keeper()
        if keeper is None:
            return
        if keeper.write_readout():
            self.rewrites += 1
        # marked written even when the write failed (a full disk): retried at the next commit
        self._written = self._seen = (keeper, keeper.seq)
