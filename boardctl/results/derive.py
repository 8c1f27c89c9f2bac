"""Fold the journal's events into finished games, with the engine's own state machine
(docs/results.md, "When a game counts"). Beside it the fold keeps the scorekeeper's undo and
redo stacks, so a game's entries are those that stand in its final state (one a ``refile`` filed
as the other kind stands as that kind). It checks no counts against the rules tables
(:class:`ReplayLimits`): a few microseconds an event, never the ~0.3 s of deriving the tables.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from boardctl.cribbage.rules import skunk_paid
from boardctl.cribbage.variants import get_variant
from boardctl.errors import EntryError, JournalError
from boardctl.game.commands import parse_command
from boardctl.game.machine import Machine, settled
from boardctl.game.setup import match_text, members
from boardctl.game.state import GameState
from boardctl.results.model import FORMAT, Entry, GameResult, PlayedGame

#: The kinds of entry that count a hand or a crib (the show).
SHOW_KINDS = ("hand", "crib")


class ReplayLimits:
    """Limits that refuse no count: the journal's events were checked when written."""

    def hand_scores(self, cards: int, *, crib: bool = False) -> frozenset[int]:
        """Every count is possible."""
        return _ANY_COUNT

    def max_play_points(self) -> int:
        """No pegging entry is too large."""
        return 1_000


_ANY_COUNT = frozenset(range(1_000))


@dataclass(frozen=True, slots=True)
class _Refiled:
    """A step that filed the last standing entry as another kind: ``entry`` as it now stands."""

    entry: Entry


#: One step of a game, as undo takes it back: an entry made, an entry refiled, or neither.
_Step = Entry | _Refiled | None


@dataclass
class _Game:
    """The game being folded."""

    first_seq: int
    start_at: float
    done: list[_Step] = field(default_factory=list)  # what undo would take back
    undone: list[_Step] = field(default_factory=list)  # what redo would bring back
    won: tuple[int, float] | None = None  # the event that made the game over, and its time
    last: tuple[int, int] = (0, 0)  # the game's last event and its chained checksum


def iso_time(at: float) -> str:
    """A Unix time as UTC ISO 8601 to the millisecond: ``2026-12-01T10:03:12.345Z``."""
    moment = datetime.datetime.fromtimestamp(round(at, 3), datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


#: A journal row: sequence number, time, event, chained checksum.
Row = tuple[int, float, dict[str, Any], int]


class GameFold:
    """Every finished game in a journal's rows (events with their chained checksums), in order,
    fed a batch at a time (a reader that follows it): ``add(rows)`` folds the next rows (the
    first given as ``rows``), ``games()`` gives the finished games so far."""

    def __init__(self, *, board: str, path: str = "journal", rows: Iterable[Row] = ()) -> None:
        self.board = board
        self.path = path
        self._machine = Machine(limits=ReplayLimits())
        self._final: list[PlayedGame] = []  # the games the board has left
        self._game: _Game | None = None
        self.add(rows)

    @classmethod
    def from_start(
        cls, state: GameState, rows: list[Row], *, board: str, path: str = "journal"
    ) -> GameFold:
        """A fold that begins at a game start, ``rows[0]`` (its event, already folded: ``state``
        is the snapshot stored with it), and goes on with the rest of ``rows``."""
        fold = cls(board=board, path=path)
        fold._machine = Machine(state, limits=ReplayLimits())
        seq, at, _, crc = rows[0]
        fold._game = _Game(seq, at, last=(seq, crc))
        fold.add(rows[1:])
        return fold

    def add(self, rows: Iterable[Row]) -> None:
        """Fold the next ``rows``."""
        machine = self._machine
        for seq, at, event, crc in rows:
            before = machine.state
            try:
                plan = machine.plan(parse_command(event))
            except EntryError as exc:
                raise JournalError(
                    f"{self.path}: event {seq} cannot be replayed ({exc}); "
                    "the file is damaged or from an incompatible boardctl"
                ) from exc
            if plan.reset:
                if self._game is not None and before.winner is not None:
                    self._final.append(_played(self._game, before, self.board, final=True))
                self._game = _Game(seq, at)
            base = machine.past[-1] if machine.past else before  # the state before the last step
            machine.commit(plan)
            game = self._game
            if game is None:  # events before the first game (none are written today)
                continue
            step = _step(game, (seq, at, event, crc), base, before, machine.state)
            if plan.move == "undo":  # the undo and redo stacks, as the scorekeeper keeps them
                game.undone.append(game.done.pop())
            elif plan.move == "redo":
                game.done.append(game.undone.pop())
            elif not plan.reset:
                game.done.append(step)
                game.undone.clear()
            if machine.state.winner is None:
                game.won = None
            elif before.winner is None or plan.reset:
                game.won = (seq, at)
            game.last = (seq, crc)

    def games(self, *, final: bool = False) -> list[PlayedGame]:
        """The finished games so far: those left, then the last one if it is over (``final``:
        as if the board left it now, what a game start about to be written ends)."""
        state = self._machine.state
        if self._game is None or state.winner is None:
            return list(self._final)
        return [*self._final, _played(self._game, state, self.board, final=final)]

    @property
    def state(self) -> GameState:
        """The state after the last row added."""
        return self._machine.state

    @property
    def game_start(self) -> int:
        """The first event of the game being folded (0: none yet)."""
        return 0 if self._game is None else self._game.first_seq

    def take_final(self) -> list[PlayedGame]:
        """The games the board has left since the last call (then forgotten)."""
        final, self._final = self._final, []
        return final


def _step(game: _Game, row: Row, base: GameState, before: GameState, after: GameState) -> _Step:
    """What a "do" event does to the standing entries: a new entry, a refiled one (the last
    one standing, re-entered from ``base``, the state before it, as the engine does), or
    nothing."""
    event, crc = row[2], row[3]
    if event.get("op") != "refile" or before.ask is None or event["kind"] == before.ask.kind:
        return _entry(row, before, after)
    asked = _standing(game.done)[-1]
    peg = {"op": "peg", "track": event["track"], "points": event["points"], "kind": event["kind"]}
    refiled = _entry((asked.seq, asked.at, peg, crc), base, after)
    assert refiled is not None
    return _Refiled(refiled)


def _standing(steps: Iterable[_Step]) -> list[Entry]:
    """The entries that stand after ``steps``, in the order they were made."""
    entries: list[Entry] = []
    for step in steps:
        if isinstance(step, _Refiled):
            entries[-1] = step.entry
        elif step is not None:
            entries.append(step)
    return entries


def _entry(row: Row, before: GameState, after: GameState) -> Entry | None:
    seq, at, event, _ = row
    if event.get("op") != "peg":
        return None
    kind = str(event["kind"])
    track = int(event["track"])
    setup = before.setup
    team = get_variant(setup.variant_name).teams[track]
    seat: int | None = team[0] if len(team) == 1 else None
    if kind in SHOW_KINDS and setup.mode == "guided":
        # The engine moves a hand count entered in the play on to the show first.
        show = before if before.phase == "show" else before.evolve(flow="show", count_index=0)
        seat = show.counting_seat
    scores = tuple([t.front for t in after.tracks])
    cards = tuple(str(card) for card in event.get("cards") or ())
    points, starter = int(event["points"]), str(event.get("starter") or "")
    return Entry(seq, at, track, points, kind, before.deal, seat, scores, cards, starter)


def _played(game: _Game, state: GameState, board: str, *, final: bool) -> PlayedGame:
    assert state.winner is not None and game.won is not None
    setup = state.setup
    names = setup.track_names()
    teams = setup.variant.teams
    players = tuple(members(names[i], len(team)) for i, team in enumerate(teams))
    seat_players = ["" for _ in range(setup.players)]
    for track, team in enumerate(teams):
        for index, seat in enumerate(team):
            who = players[track]
            seat_players[seat] = who[index] if len(who) == len(team) else who[0]
    scores = tuple(t.front for t in state.tracks)
    winner = state.winner
    best_loser = max((s for i, s in enumerate(scores) if i != winner), default=0)
    result = GameResult(
        format=FORMAT,
        board=board,
        match=state.match_number,
        game=state.game_number,
        variant=setup.variant_name,
        rules=str(setup.to_dict().get("rules", "acc")),
        target=setup.target,
        mode=setup.mode,
        preset=setup.preset_name,
        match_format=match_text(setup.match, setup.best_of),
        names=names,
        players=players,
        scores=scores,
        winner=winner,
        winner_name=names[winner],
        spread=scores[winner] - best_loser,
        skunk=skunk_paid(setup.target, scores, winner, setup.house_rules),
        game_points=state.won_points,
        match_points=tuple(t.game_points for t in state.tracks),
        match_winner=state.match_winner,
        deals=state.deal,
        start=iso_time(game.start_at),
        end=iso_time(game.won[1]),
        first_seq=game.first_seq,
        won_seq=game.won[0],
        seq=game.last[0],
        crc=f"{game.last[1]:08x}",
        final=settled(state) if setup.confirm_result else final,
        confirm=setup.confirm_result,
        confirmed=state.confirmed,
        key="",
        hmac="",
    )
    return PlayedGame(result, tuple(_standing(game.done)), tuple(seat_players), teams)
