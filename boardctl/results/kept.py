"""The finished games kept in the journal, so that results cost the same at game 5,000 as at 5
(docs/results.md, "Speed"; folding costs about 2 ms of CPU a game). The rows of a game start
are stored with its snapshot (:func:`games_before_start`), read in order while each begins where
the one before ended and its checksum holds (:func:`each_kept_game`), then the rest is folded:
the answer is always the fold's. The chain of every event's checksum is checked by the writer
at open and by a full fold (``boardctl results --full``), not by every read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import chain
from typing import Any

from boardctl.errors import EntryError
from boardctl.game.state import SNAPSHOT_FORMAT, GameState
from boardctl.results.derive import GameFold
from boardctl.results.export import board_cells, csv_lines, row_after_board
from boardctl.results.model import FIELDS, Entry, GameResult, PlayedGame
from boardctl.results.records import Records, records
from boardctl.store.journal import Journal, Kept, encode_event

#: The board id kept rows are stored with (a reader puts its own in).
KEPT_BOARD = "-"
_BOARD = FIELDS.index("board")
_TUPLES = tuple(FIELDS.index(name) for name in ("names", "scores", "match_points", "confirmed"))
_PLAYERS = FIELDS.index("players")
_END = 1 << 62  # past any journal's last event
EVENTS_AT_ONCE = 5_000  # events read (and their game starts stored) at once by a rebuild


def _values(game: PlayedGame) -> list[Any]:
    return [getattr(game.result, name) for name in FIELDS]


def encode_games(games: list[PlayedGame]) -> str:
    """Games as the compact JSON text a row keeps (tuples as lists)."""
    return _compact(
        [[_values(game), game.entries, game.seat_players, game.teams] for game in games]
    )


def _result(values: list[Any], board: str) -> GameResult:
    values[_BOARD] = board
    for index in _TUPLES:
        values[index] = tuple(values[index])
    values[_PLAYERS] = tuple(tuple(team) for team in values[_PLAYERS])
    return GameResult(*values)


def decode_games(body: str, board: str, *, entries: bool = True) -> list[PlayedGame]:
    """The games of a row's text, with ``board`` as their board id (and no entries unless
    ``entries``: the results alone)."""
    return [
        PlayedGame(
            _result(values, board),
            tuple(_entry(entry) for entry in kept) if entries else (),
            tuple(seats),
            tuple(tuple(team) for team in teams),
        )
        for values, kept, seats, teams in json.loads(body)
    ]


def _entry(values: list[Any]) -> Entry:
    values[7] = tuple(values[7])  # scores
    values[8] = tuple(values[8])  # cards
    return Entry(*values)


def _state(snapshot: dict[str, Any] | None) -> GameState | None:
    if snapshot is None or snapshot.get("format") != SNAPSHOT_FORMAT:
        return None
    try:
        return GameState.from_dict(snapshot["state"])
    except (EntryError, KeyError, TypeError):
        return None


def _fold_from(journal: Journal, first: int, last: int, board: str) -> tuple[int, GameFold]:
    """A fold of the journal's events from the last game start at or before ``first`` (its
    snapshot) to ``last``; the event it began at (1: every event folded)."""
    snapshot, taken = journal.page(first, last)
    records = list(taken)
    state = _state(snapshot) if records else None
    if state is None and records and records[0].seq != 1:
        records = list(journal.page(0, last)[1])  # an unusable snapshot: from the first event
    rows, path = [(r.seq, r.at, r.event, r.crc) for r in records], str(journal.path)
    if state is None:
        return 1, GameFold(board=board, path=path, rows=rows)
    return rows[0][0], GameFold.from_start(state, rows, board=board, path=path)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _kept(begin: int, games: list[PlayedGame], totals: Records | None) -> Kept:
    results = _compact([_values(game) for game in games])
    rows = _compact([row_after_board(game.result) for game in games])
    return begin, encode_games(games), results, rows, None if totals is None else totals.dump()


def _fold_on(journal: Journal) -> tuple[int, GameFold, Records | None]:
    """A fold from the journal's last game start to its position (the event it began at), and
    the running totals kept at that game start (None: not kept)."""
    last = journal.last_seq
    begin, fold = _fold_from(journal, last, last, KEPT_BOARD)
    found = journal.latest("totals")
    return begin, fold, None if found is None or found[0] != begin else Records.load(found[1])


def games_before_start(journal: Journal) -> Kept:
    """For a writer about to append a game start: the first event its rows span (the last
    game start's), the games finished since, their results, and the running totals (when
    the last game start's are kept)."""
    if journal.last_seq == 0:
        return _kept(1, [], Records())
    begin, fold, totals = _fold_on(journal)
    games = fold.games(final=True)
    return _kept(begin, games, None if totals is None else records(games, totals))


def each_kept_game(
    journal: Journal, *, board: str, entries: bool = True, after: int = 1
) -> Iterator[PlayedGame]:
    """Every finished game of ``journal`` from game start ``after`` on, as
    :class:`~.derive.GameFold` folds them all, one at a time: the games of the kept rows after
    it (only one row decoded at once; without entries unless ``entries``), then the fold of
    the rest."""
    covered = after  # the rows so far span the events before this one
    for seq, _, body in journal.game_rows(after):
        yield from decode_games(body, board, entries=entries)
        covered = seq
    begin, fold = _fold_from(journal, covered, _END, board)
    if begin not in (1, covered):  # no usable snapshot where the rows end: fold every event
        _, fold = _fold_from(journal, 0, _END, board)
    yield from (game for game in fold.games() if game.result.first_seq >= covered)


def _results_kept(journal: Journal, board: str, after: int = 1) -> tuple[int, list[GameResult]]:
    """The results of the journal's ``results`` rows (one JSON text for them all) after game
    start ``after`` (1: from the first event on), while each one begins where the one before
    ended; the game start where they end (``after``: none)."""
    rows = list(journal.game_rows(after, "results"))
    kept = json.loads(f"[{','.join(body for _, _, body in rows)}]")
    results = [_result(values, board) for row in kept for values in row]
    return (rows[-1][0] if rows else after), results


def kept_results(journal: Journal, *, board: str) -> list[GameResult]:
    """The results of :func:`each_kept_game`, read from the journal's ``results`` rows, then
    those of the games after them."""
    covered, kept = _results_kept(journal, board)
    rest = each_kept_game(journal, board=board, entries=False, after=covered)
    return kept + [game.result for game in rest]


def follow(
    journal: Journal, *, board: str, since: float | None = None
) -> tuple[list[GameResult], GameFold]:
    """For a reader that then follows the journal (the MQTT bridge): the results of the kept
    rows, and a fold of the rest up to the journal's end (feed it the events read after).
    With ``since`` (a Unix time) the rows of game starts before it are left unread (games
    that ended before it may be left out), so that the first read costs the games since."""
    snapshot, _ = journal.resume()  # the reader's position: the end (the last events checked)
    if snapshot is None:
        journal.rewind()
        return [], GameFold(board=board, path=str(journal.path), rows=journal.event_rows())
    after = 1 if since is None else journal.start_before(since)
    covered, kept = _results_kept(journal, board, after)
    begin, fold = _fold_from(journal, covered, journal.last_seq, board)
    return [result for result in kept if result.first_seq < begin], fold


def kept_csv(journal: Journal, *, board: str, more: Iterable[GameResult] = ()) -> Iterator[str]:
    """The CSV text of :func:`kept_results` (``results --csv``, unsigned) in pieces of whole
    lines: the header, the kept rows' CSV text as stored (no work per game but the board
    cells put before it), then the rows of the games after them (and of ``more``)."""
    covered, bodies = journal.csv_rows()
    rest = each_kept_game(journal, board=board, entries=False, after=covered)
    pieces = _decoded(board_cells(board), bodies)
    return csv_lines(pieces, chain((game.result for game in rest), more))


def _decoded(before: str, bodies: list[str], at_once: int = 64) -> Iterator[str]:
    """The CSV text of the kept rows' ``bodies`` (each a JSON list of rows after the board
    cells), ``before`` put before each row: a piece and a decoding call every ``at_once``
    bodies (one call each cost three times the CPU; one for all would hold the interpreter
    for milliseconds)."""
    for start in range(0, len(bodies), at_once):
        rows = json.loads(f"[{','.join(bodies[start : start + at_once])}]")
        yield "".join(before + row for kept in rows for row in kept)


def kept_records(journal: Journal) -> Records:
    """The records of every finished game: the running totals the journal keeps at its last
    game start, and the games after it (:func:`~.records.records` over every game if none)."""
    found = journal.latest("totals")
    after, totals = (found[0], Records.load(found[1])) if found else (1, None)
    return records(each_kept_game(journal, board=KEPT_BOARD, after=after), totals)


#: How a rebuild takes each read's rows (a service's thread pauses while a press waits).
Pace = Callable[[list[Any]], Iterable[Any]]


def _starts(
    journal: Journal, begin: int, fold: GameFold, totals: Records, paced: Pace = iter
) -> Iterator[list[tuple[int, str, Kept]]]:
    """The game starts of the events after the journal's position, folded on by ``fold``
    (``begin``: its last game start, ``totals``: the records of the games before it), with
    their snapshots and kept rows: a list every :data:`EVENTS_AT_ONCE` events, then the last
    game start alone, with the running totals (until then the rows are in doubt)."""
    starts: list[tuple[int, str, Kept]] = []
    while rows := journal.event_rows(EVENTS_AT_ONCE):
        for row in paced(rows):
            fold.add([row])
            if fold.game_start != row[0]:
                continue
            games = fold.take_final()  # a game start: the game before it, if won, is left
            state = encode_event({"format": SNAPSHOT_FORMAT, "state": fold.state.to_dict()})
            starts.append((row[0], state, _kept(begin, games, None)))
            totals, begin = records(games, totals), row[0]
        yield starts[:-1]
        starts = starts[-1:]
    if starts:
        seq, state, kept = starts[0]
        yield [(seq, state, (*kept[:4], totals.dump()))]


def store_game_starts(
    journal: Journal, folded: tuple[int, GameFold, Records] | None = None, paced: Pace = iter
) -> int:
    """Rebuild the snapshots and kept rows of every game start from a full replay (a writer
    opening a journal without them), one transaction every :data:`EVENTS_AT_ONCE` events;
    the last game start last, with the totals; the number of game starts stored. With
    ``folded``, those of :func:`_starts` on from that fold instead (an import's)."""
    if folded is None:
        journal.rewind()
        folded = 1, GameFold(board=KEPT_BOARD, path=str(journal.path)), Records()
    stored = 0
    for starts in _starts(journal, *folded, paced):
        journal.store_starts(starts)
        stored += len(starts)
    return stored


def import_events(journal: Journal, events: Iterable[tuple[Mapping[str, Any], float]]) -> int:
    """Append ``events`` (``(event, time)`` pairs: an import) with the snapshots and kept rows
    of their game starts in one durable transaction, as for a journal the board wrote; the
    last event's seq. One the rules refuse is a :class:`~boardctl.errors.JournalError` and
    nothing is written."""
    folded = None
    if journal.last_seq and not journal.kept_in_doubt():  # on from the last game start
        begin, fold, totals = _fold_on(journal)
        folded = None if totals is None else (begin, fold, totals)
    return journal.append_all(events, then=lambda: store_game_starts(journal, folded))
