"""The moves of a game (pegs moving, a game won, deals, the show, the next game): pure functions
of :class:`~boardctl.game.state.GameState`, called by the engine's handlers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from boardctl.cribbage import rules as house
from boardctl.cribbage.awards import opening_points
from boardctl.cribbage.cards import parse_cards
from boardctl.errors import CardError, EntryError
from boardctl.game.setup import GameSetup
from boardctl.game.state import GameState, TrackState
from boardctl.refusals import Refusal

Chooser = Callable[[int], int]  # picks 0 .. n-1 (the random draw of the cut)
CUT_FIRST = "cut for the first dealer first (`boardctl cut [SEAT]`, or a track button on the board)"


def over_message(state: GameState) -> str:
    """Why nothing more is entered in a won game, and what to do."""
    assert state.winner is not None
    if state.match_winner is not None:
        what = "game" if state.setup.match == 0 else "match"  # match 0: one game
        return (
            f"the {what} is over ({state.track_name(state.match_winner)} won); "
            f"press menu (`boardctl next`) for a new {what}, or `boardctl new-game`"
        )
    winner = state.track_name(state.winner)
    return f"the game is over ({winner} won); press menu (`boardctl next`) for the next game"


def with_points(state: GameState, track: int, points: int) -> GameState:
    """Move a track's pegs by ``points``; end the game if it reaches the target.

    Forwards the back peg leapfrogs; backwards the front peg goes back, and the back peg only when
    it would lead.
    """
    if points == 0:
        return state
    old = state.tracks[track]
    front = min(old.front + points, state.target)
    back = old.front if points > 0 else min(old.back, front)
    tracks = list(state.tracks)
    tracks[track] = TrackState(front, back, old.game_points)
    state = state.evolve(tracks=tuple(tracks))
    if front >= state.target:
        state = _game_won(state, track)
    return state


def _game_won(state: GameState, winner: int) -> GameState:
    """Score the game for ``winner``: game points per preset, match winner, next dealer."""
    setup = state.setup
    preset = setup.preset
    others = [t.front for i, t in enumerate(state.tracks) if i != winner]
    loser = house.skunk_loser(others)  # the lowest loser (seed 004:34)
    fractions = house.fraction_lines(setup.house_rules)
    points = preset.game_points(setup.target, loser, fractions=fractions)
    tracks = list(state.tracks)
    tally = 1 if setup.best_of else points  # best of N: each game counts one, whatever the skunk
    tracks[winner] = replace(tracks[winner], game_points=tracks[winner].game_points + tally)
    match_over = (
        setup.match == 0
        or tracks[winner].game_points >= setup.match
        or (not setup.best_of and preset.ends_match(setup.target, loser, fractions=fractions))
    )
    return state.evolve(
        tracks=tuple(tracks),
        winner=winner,
        won_points=points,
        next_dealer=_loser_seat(state, winner),
        match_winner=winner if match_over else None,
    )


def _loser_seat(state: GameState, winner: int) -> int | None:
    """The seat that deals first next game: a player of the lowest losing track (ties and teams: the
    first clockwise from the dealer's left)."""
    players = state.setup.players
    start = 0 if state.dealer is None else state.dealer + 1
    low = min((t.front for i, t in enumerate(state.tracks) if i != winner), default=None)
    seats = ((start + offset) % players for offset in range(players))
    tracks = ((seat, state.track_of(seat)) for seat in seats)
    return next((s for s, t in tracks if t != winner and state.tracks[t].front == low), None)


def start_deals(state: GameState, dealer: int) -> GameState:
    """The first deal of a game with ``dealer``, with the points pegged at its start."""
    state = _deal(state, dealer, 1)
    if state.setup.mode == "guided" and not state.last_done:
        for seat, points in opening_points(state.setup.variant, dealer).items():
            state = state.evolve(last_done=True)  # three for last: once per game
            state = with_points(state, state.track_of(seat), points)
    return state


def new_match(state: GameState, setup: GameSetup) -> GameState:
    """A fresh match with ``setup``, numbered after ``state``'s."""
    return GameState.initial(setup).evolve(match_number=state.match_number + 1)


def next_game(state: GameState) -> GameState:
    """After a game: the next game of the match (loser deals), or a new match."""
    if state.match_winner is not None:
        return new_match(state, state.setup)
    tracks = tuple(TrackState(game_points=t.game_points) for t in state.tracks)
    fresh = GameState(
        setup=state.setup,
        tracks=tracks,
        game_number=state.game_number + 1,
        match_number=state.match_number,
    )
    if state.next_dealer is None:
        return fresh
    return start_deals(fresh, state.next_dealer)


def advance(state: GameState) -> GameState:
    """``next`` during a game: deal -> play -> show."""
    phase = state.phase
    if phase == "free":
        raise EntryError(
            "free mode has no phases (`boardctl set mode guided`, then `boardctl next`)"
        )
    if phase == "cut":
        raise EntryError(CUT_FIRST)
    if phase == "deal":
        return state.evolve(flow="play")
    if phase == "play":
        return state.evolve(flow="show", count_index=0)
    track = state.to_count
    assert track is not None
    what = "crib" if state.crib_due else "hand"
    raise EntryError(
        f"enter {state.track_name(track)}'s {what} count first (0 allowed)", Refusal.NOT_YOUR_TURN
    )


def cut(
    state: GameState, dealer: int | None, choose: Chooser, cards: Sequence[str] | None = None
) -> tuple[GameState, int]:
    """The first dealer: ``dealer``, the lowest of the cut ``cards``, or drawn with
    ``choose``; returns the state and the seat."""
    if state.flow != "cut":
        raise EntryError("the first dealer is already chosen (undo the cut to change it)")
    players = state.setup.players
    if cards is not None:
        lowest = lowest_cut(cards, players)
        if dealer is not None and dealer != lowest:
            raise EntryError(
                f"the cut cards make seat {lowest + 1} the dealer, not seat {dealer + 1}"
            )
        dealer = lowest
    seat = choose(players) if dealer is None else dealer
    if not 0 <= seat < players:
        raise EntryError(
            f"dealer must be a seat index 0-{players - 1} (seats 1-{players} counted from 1),"
            f" not {seat}"
        )
    return start_deals(state, seat), seat


def lowest_cut(cards: Sequence[str], players: int) -> int:
    """The seat that cut the lowest card (ace low, one card per seat); a tie is refused."""
    try:
        cut_cards = parse_cards(cards)
    except CardError as exc:
        raise EntryError(f"the cut: {exc}") from None
    if len(cut_cards) != players:
        raise EntryError(
            f"the cut takes one card per player in seat order: {players} cards, "
            f"not {len(cut_cards)}"
        )
    low = min(card.rank for card in cut_cards)
    seats = [seat for seat, card in enumerate(cut_cards) if card.rank == low]
    if len(seats) > 1:
        tied = " and ".join(f"seat {seat + 1} ({cards[seat]})" for seat in seats)
        raise EntryError(f"{tied} tie for the lowest card: cut again")
    return seats[0]


def count_done(state: GameState) -> GameState:
    """One count of the show is entered: the next count, or the next deal after the crib."""
    if not state.crib_due:
        return state.evolve(count_index=state.count_index + 1)
    assert state.dealer is not None
    dealer = house.next_dealer(state.dealer, state.setup.players, state.setup.house_rules)
    return _deal(state, dealer, state.deal + 1)


def _deal(state: GameState, dealer: int, deal: int) -> GameState:
    """Deal number ``deal`` of the game begins, ``dealer`` dealing."""
    return state.evolve(
        dealer=dealer, flow="deal", deal=deal, count_index=0, heels=False, pegged=False
    )
