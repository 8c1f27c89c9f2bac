"""Player records, per player and head to head: a pure function of :class:`~.model.PlayedGame`
values, a player being a name whatever its case and spacing (docs/results.md, "Players and
their records": who is credited with what)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from boardctl.cribbage.variants import get_variant
from boardctl.game.setup import player_key
from boardctl.results.model import GameResult, PlayedGame
from boardctl.view import lines_failed

#: The big counts of a hand or crib that club side pots pay for.
BIG_HANDS = (24, 28, 29)


def _ratio(total: int, count: int) -> float | None:
    return None if count == 0 else total / count


@dataclass(frozen=True)
class BigHand:
    """A hand or crib of 24, 28 or 29 entered with its cards: the side pot's proof."""

    points: int
    kind: str
    cards: tuple[str, ...]
    starter: str
    match: int
    game: int
    seq: int

    def to_dict(self) -> dict[str, object]:
        """JSON-able."""
        return {**dataclasses.asdict(self), "cards": list(self.cards)}


@dataclass
class PlayerRecord:
    """One player's record. Averages are None when there is nothing to average."""

    name: str
    games: int = 0
    wins: int = 0
    game_points: int = 0
    skunks_given: int = 0
    skunks_taken: int = 0
    spread_total: int = 0
    hands: int = 0  # four-card hands
    hand_points: int = 0
    three_card_hands: int = 0  # the five-card game's hands
    three_card_hand_points: int = 0
    cribs: int = 0
    crib_points: int = 0
    deals: int = 0
    pegging_points: int = 0
    big_hands: dict[int, int] = field(default_factory=lambda: dict.fromkeys(BIG_HANDS, 0))
    big_hand_cards: list[BigHand] = field(default_factory=list)  # those entered with their cards

    @property
    def win_percent(self) -> float | None:
        """Wins per hundred games."""
        return None if self.games == 0 else 100 * self.wins / self.games

    @property
    def average_spread(self) -> float | None:
        """Own score minus the best opponent's, per game (negative in a loss)."""
        return _ratio(self.spread_total, self.games)

    @property
    def average_hand(self) -> float | None:
        """Points per four-card hand counted (one hand a deal)."""
        return _ratio(self.hand_points, self.hands)

    @property
    def average_three_card_hand(self) -> float | None:
        """Points per three-card hand counted (the five-card game)."""
        return _ratio(self.three_card_hand_points, self.three_card_hands)

    @property
    def average_crib(self) -> float | None:
        """Points per crib counted (the dealer's)."""
        return _ratio(self.crib_points, self.cribs)

    @property
    def average_pegging(self) -> float | None:
        """Pegging points per deal (guided games; the team's in a partnership)."""
        return _ratio(self.pegging_points, self.deals)

    def to_dict(self) -> dict[str, object]:
        """JSON-able, with the averages."""
        return {
            "name": self.name,
            "games": self.games,
            "wins": self.wins,
            "win_percent": self.win_percent,
            "game_points": self.game_points,
            "skunks_given": self.skunks_given,
            "skunks_taken": self.skunks_taken,
            "average_spread": self.average_spread,
            "average_hand": self.average_hand,
            "average_three_card_hand": self.average_three_card_hand,
            "average_crib": self.average_crib,
            "average_pegging": self.average_pegging,
            "hands": self.hands,
            "three_card_hands": self.three_card_hands,
            "cribs": self.cribs,
            "deals": self.deals,
            "big_hands": {str(points): n for points, n in self.big_hands.items()},
            "big_hand_cards": [hand.to_dict() for hand in self.big_hand_cards],
        }


@dataclass
class HeadToHead:
    """Two players on opposite tracks: games, wins and game points of each, ``first``'s spread."""

    first: str
    second: str
    games: int = 0
    first_wins: int = 0
    second_wins: int = 0
    first_points: int = 0
    second_points: int = 0
    spread_total: int = 0

    @property
    def average_spread(self) -> float | None:
        """``first``'s score minus ``second``'s, per game."""
        return _ratio(self.spread_total, self.games)

    def to_dict(self) -> dict[str, object]:
        """JSON-able: the counts but the spread's total, then the average spread."""
        data: dict[str, object] = dataclasses.asdict(self)
        del data["spread_total"]
        return {**data, "average_spread": self.average_spread}


@dataclass
class Records:
    """Every player's record (by :func:`player_key`) and every pairing's, in first-seen order."""

    players: dict[str, PlayerRecord] = field(default_factory=dict)
    pairs: dict[tuple[str, str], HeadToHead] = field(default_factory=dict)
    games: int = 0  # the games counted

    def to_dict(self) -> dict[str, object]:
        """JSON-able: ``players`` and ``head_to_head`` lists."""
        return {
            "players": [p.to_dict() for p in self.players.values()],
            "head_to_head": [h.to_dict() for h in self.pairs.values()],
        }

    def dump(self) -> str:
        """Every count, as compact JSON (the running totals the journal keeps: :mod:`.kept`)."""
        players = [[key, dataclasses.asdict(p)] for key, p in self.players.items()]
        pairs = [[list(key), dataclasses.asdict(h)] for key, h in self.pairs.items()]
        return json.dumps([players, pairs, self.games], separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def load(cls, text: str) -> Records:
        """The records :meth:`dump` wrote."""
        players, pairs, games = json.loads(text)
        out = cls(games=games)
        for key, data in players:
            data["big_hands"] = {int(points): n for points, n in data["big_hands"].items()}
            cards = [{**hand, "cards": tuple(hand["cards"])} for hand in data["big_hand_cards"]]
            data["big_hand_cards"] = [BigHand(**hand) for hand in cards]
            out.players[key] = PlayerRecord(**data)
        for (first, second), data in pairs:
            out.pairs[first, second] = HeadToHead(**data)
        return out


def records(games: Iterable[PlayedGame], out: Records | None = None) -> Records:
    """Every player's record and every head-to-head over ``games`` (added to ``out``: the
    records of the games before them)."""
    out = Records() if out is None else out
    for game in games:
        _add_game(out, game)
        out.games += 1
    return out


def records_of_results(results: Iterable[GameResult]) -> Records:
    """The records that results alone give (for a consumer with no journal): the hand, crib
    and pegging figures, which need the journal's entries, stay empty (None)."""
    return records(
        PlayedGame(dataclasses.replace(result, deals=0), (), (), ()) for result in results
    )


def _player(out: Records, name: str) -> PlayerRecord:
    key = player_key(name)
    if key not in out.players:
        out.players[key] = PlayerRecord(name)
    return out.players[key]


def _add_game(out: Records, game: PlayedGame) -> None:
    result = game.result
    scores = result.scores
    for track, team in enumerate(result.players):
        won = track == result.winner
        best_other = max((s for t, s in enumerate(scores) if t != track), default=0)
        pegging = sum(e.points for e in game.entries if e.track == track and e.kind == "pegging")
        for name in team:
            record = _player(out, name)
            record.games += 1
            record.wins += won
            record.game_points += result.game_points if won else 0
            record.skunks_given += won and result.skunk > 0
            record.skunks_taken += not won and lines_failed(result.target, scores[track]) > 0
            record.spread_total += scores[track] - best_other
            if result.deals:
                record.deals += result.deals
                record.pegging_points += pegging
    three_cards = get_variant(result.variant).hand_size == 3
    for entry in game.entries:
        if entry.kind not in ("hand", "crib") or entry.seat is None:
            continue
        record = _player(out, game.seat_players[entry.seat])
        if entry.kind == "hand" and three_cards:
            record.three_card_hands += 1
            record.three_card_hand_points += entry.points
        elif entry.kind == "hand":
            record.hands += 1
            record.hand_points += entry.points
        else:
            record.cribs += 1
            record.crib_points += entry.points
        if entry.points in record.big_hands:
            record.big_hands[entry.points] += 1
            if entry.cards:  # the fold checked that the cards count these points
                hand = (entry.points, entry.kind, entry.cards, entry.starter)
                record.big_hand_cards.append(BigHand(*hand, result.match, result.game, entry.seq))
    _add_pairs(out, game)


def _add_pairs(out: Records, game: PlayedGame) -> None:
    result = game.result
    tracks = result.players
    for track, team in enumerate(tracks):
        for other in range(track + 1, len(tracks)):
            for first in team:
                for second in tracks[other]:
                    # the pair in the order of its players' keys (of equal keys: track order)
                    (key_a, a, name_a), (key_b, b, name_b) = sorted(
                        [(player_key(first), track, first), (player_key(second), other, second)]
                    )
                    if (key_a, key_b) not in out.pairs:
                        out.pairs[key_a, key_b] = HeadToHead(name_a, name_b)
                    pair = out.pairs[key_a, key_b]
                    pair.games += 1
                    pair.first_wins += result.winner == a
                    pair.second_wins += result.winner == b
                    pair.first_points += result.game_points if result.winner == a else 0
                    pair.second_points += result.game_points if result.winner == b else 0
                    pair.spread_total += result.scores[a] - result.scores[b]
