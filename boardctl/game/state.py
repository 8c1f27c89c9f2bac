"""The game and match state: immutable data, changed only by the engine's handlers."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import astuple, dataclass, fields

from boardctl.errors import EntryError
from boardctl.game import JsonValue
from boardctl.game.setup import GameSetup, setup_from_dict, whole
from boardctl.view import Question

SNAPSHOT_FORMAT = 1  # bump when GameState.to_dict changes; older snapshots are then ignored
# (each board's next start replays its whole journal: read the older format too if you can)


class _Keep(enum.Enum):
    KEEP = enum.auto()  # "leave this field as it is" in GameState.evolve


_KEEP = _Keep.KEEP


@dataclass(frozen=True, slots=True)
class TrackState:
    """One track's pegs: ``back`` is where ``front`` was before the last move."""

    front: int = 0
    back: int = 0
    game_points: int = 0


@dataclass(frozen=True, slots=True)
class Counted:
    """A count of the current deal that named its cards: ``track``'s ``kind`` (shown.py)."""

    track: int
    kind: str
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything the board knows, as immutable data (docs/scorekeeping.md): ``flow`` is the guided
    position, :attr:`phase` what the board shows, ``dealer`` a seat."""

    setup: GameSetup
    tracks: tuple[TrackState, ...]
    flow: str = "cut"
    dealer: int | None = None
    deal: int = 0
    count_index: int = 0
    heels: bool = False
    last_done: bool = False
    winner: int | None = None
    won_points: int = 0
    next_dealer: int | None = None
    game_number: int = 1
    match_number: int = 1
    match_winner: int | None = None
    confirmed: tuple[int, ...] = ()  # tracks that confirmed the finished game (machine.py)
    pegged: bool = False  # a pegging entry was made in this deal's play
    ask: Question | None = None  # the board asks about the last entry (entries.ask_about)
    starter: str | None = None  # the deal's starter card, once an entry named it (shown.py)
    counted: tuple[Counted, ...] = ()  # the deal's counts that named their cards (shown.py)

    @classmethod
    def initial(cls, setup: GameSetup | None = None) -> GameState:
        """A fresh match: no pegs moved, waiting for the cut."""
        setup = setup or GameSetup()
        return cls(setup=setup, tracks=tuple(TrackState() for _ in range(setup.tracks)))

    def evolve(
        self,
        *,
        setup: GameSetup | _Keep = _KEEP,
        tracks: tuple[TrackState, ...] | _Keep = _KEEP,
        flow: str | _Keep = _KEEP,
        dealer: int | _Keep | None = _KEEP,
        deal: int | _Keep = _KEEP,
        count_index: int | _Keep = _KEEP,
        heels: bool | _Keep = _KEEP,
        last_done: bool | _Keep = _KEEP,
        winner: int | _Keep | None = _KEEP,
        won_points: int | _Keep = _KEEP,
        next_dealer: int | _Keep | None = _KEEP,
        game_number: int | _Keep = _KEEP,
        match_number: int | _Keep = _KEEP,
        match_winner: int | _Keep | None = _KEEP,
        confirmed: tuple[int, ...] | _Keep = _KEEP,
        pegged: bool | _Keep = _KEEP,
        ask: Question | _Keep | None = _KEEP,
        starter: str | _Keep | None = _KEEP,
        counted: tuple[Counted, ...] | _Keep = _KEEP,
    ) -> GameState:
        """A copy with some fields changed (:func:`dataclasses.replace`, spelled out for speed)."""
        return GameState(
            self.setup if setup is _KEEP else setup,
            self.tracks if tracks is _KEEP else tracks,
            self.flow if flow is _KEEP else flow,
            self.dealer if dealer is _KEEP else dealer,
            self.deal if deal is _KEEP else deal,
            self.count_index if count_index is _KEEP else count_index,
            self.heels if heels is _KEEP else heels,
            self.last_done if last_done is _KEEP else last_done,
            self.winner if winner is _KEEP else winner,
            self.won_points if won_points is _KEEP else won_points,
            self.next_dealer if next_dealer is _KEEP else next_dealer,
            self.game_number if game_number is _KEEP else game_number,
            self.match_number if match_number is _KEEP else match_number,
            self.match_winner if match_winner is _KEEP else match_winner,
            self.confirmed if confirmed is _KEEP else confirmed,
            self.pegged if pegged is _KEEP else pegged,
            self.ask if ask is _KEEP else ask,
            self.starter if starter is _KEEP else starter,
            self.counted if counted is _KEEP else counted,
        )

    def to_dict(self) -> dict[str, JsonValue]:
        """The state as JSON-able data (a journal snapshot); :meth:`from_dict` reverses it."""
        data: dict[str, JsonValue] = {
            "setup": self.setup.to_dict(),
            "tracks": [[t.front, t.back, t.game_points] for t in self.tracks],
            **{name: getattr(self, name) for name in _SCALARS},
            "confirmed": list(self.confirmed),
            "pegged": self.pegged,
            "ask": None if self.ask is None else list(astuple(self.ask)),
        }
        if self.starter is not None:  # a newer field, kept only when known
            data["starter"] = self.starter
        if self.counted:  # newer still, kept only when a count of the deal named its cards
            data["counted"] = [[c.track, c.kind, list(c.cards)] for c in self.counted]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, JsonValue]) -> GameState:
        """Rebuild a state from :meth:`to_dict` data; raise :class:`EntryError` if malformed."""
        try:
            setup = setup_from_dict(data["setup"])
            rows = data["tracks"]
            if not isinstance(rows, list) or len(rows) != setup.tracks:
                raise EntryError("wrong number of tracks")
            tracks = tuple(TrackState(*_ints(row, 3)) for row in rows)
            values = {name: data[name] for name in _SCALARS}
            starter = data.get("starter")
            if starter is not None and not isinstance(starter, str):
                raise EntryError(f"a starter must be a card, not {starter!r}")
            return cls(
                setup,
                tracks,
                **values,  # type: ignore[arg-type]
                # the fields from here on are newer: older snapshots lack them
                confirmed=_ints(data.get("confirmed", [])),
                pegged=data.get("pegged") is True,
                ask=_ask(data.get("ask")),
                starter=starter,
                counted=_counted(data.get("counted")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EntryError(f"malformed state data ({exc})") from None

    @property
    def phase(self) -> str:
        """What the board shows: cut, deal, play, show, over or free."""
        if self.winner is not None:
            return "over"
        if self.setup.mode == "free":
            return "free"
        return self.flow

    @property
    def target(self) -> int:
        return self.setup.target

    def track_of(self, seat: int) -> int:
        return self.setup.variant.team_of(seat)

    @property
    def dealer_track(self) -> int | None:
        """The track of the dealer (owner of the crib), if the dealer is known."""
        return None if self.dealer is None else self.track_of(self.dealer)

    @property
    def counting_seat(self) -> int | None:
        """The seat whose count is due in the guided show (the dealer for the crib)."""
        if self.phase != "show" or self.dealer is None:
            return None
        players = self.setup.players
        if self.count_index >= players:
            return self.dealer
        return (self.dealer + 1 + self.count_index) % players

    @property
    def to_count(self) -> int | None:
        """The track whose count is due in the guided show."""
        seat = self.counting_seat
        return None if seat is None else self.track_of(seat)

    @property
    def crib_due(self) -> bool:
        """True when the crib is the next count of the show."""
        return self.phase == "show" and self.count_index >= self.setup.players

    @property
    def started(self) -> bool:
        """True once any peg has moved in this game."""
        return any(t.front or t.back for t in self.tracks)

    def track_name(self, track: int) -> str:
        """The name of a track (given, else "Track N")."""
        return self.setup.track_names()[track]


def _ask(value: JsonValue) -> Question | None:
    """A :class:`Question` from its snapshot list (None: the board asks nothing)."""
    match value:
        case None:
            return None
        case [track, points, str(kind), str(other)]:
            return Question(whole(track, "ask track"), whole(points, "ask points"), kind, other)
    raise EntryError(f"malformed ask {value!r}")


def _counted(value: JsonValue) -> tuple[Counted, ...]:
    """The deal's counts with their cards from their snapshot lists (none when absent)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise EntryError(f"malformed counts {value!r}")
    counted = []
    for item in value:
        match item:
            case [track, str(kind), list(cards)] if all(isinstance(card, str) for card in cards):
                counted.append(Counted(whole(track, "count track"), kind, tuple(map(str, cards))))
            case _:
                raise EntryError(f"malformed count {item!r}")
    return tuple(counted)


def _ints(row: JsonValue, count: int | None = None) -> tuple[int, ...]:
    """Whole numbers from a JSON list (``count`` of them, if given)."""
    if not isinstance(row, list) or count not in (None, len(row)):
        raise EntryError(f"expected {count or 'a list of'} numbers, not {row!r}")
    return tuple(whole(value, "a track value") for value in row)


_NESTED = ("setup", "tracks", "confirmed", "pegged", "ask", "starter", "counted")
#: The fields a snapshot holds as they are (the others are converted).
_SCALARS = tuple(f.name for f in fields(GameState) if f.name not in _NESTED)
