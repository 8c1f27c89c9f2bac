"""From game state to what the board shows (:class:`boardctl.view.BoardView`) and to JSON."""

from __future__ import annotations

from dataclasses import asdict

from boardctl.cribbage.rules import fraction_lines, rules_label, skunk_paid
from boardctl.game import JsonObject
from boardctl.game.state import GameState
from boardctl.view import BoardView, TrackView, ViewExtra, lines_failed, skunk_lines

Status = JsonObject  # the state as JSON (``boardctl status --json``)


def board_view(state: GameState) -> BoardView:
    """The view of ``state`` (no pending entry, no error or game-over time)."""
    names = state.setup.track_names()
    tracks = tuple(
        TrackView(name=names[i], front=t.front, back=t.back, game_points=t.game_points)
        for i, t in enumerate(state.tracks)
    )
    return BoardView(
        target=state.target,
        tracks=tracks,
        phase=state.phase,
        dealer=state.dealer_track,
        to_count=state.to_count,
        winner=state.winner,
        match_target=state.setup.match,
        match_winner=state.match_winner,
        lines=game_lines(state),
        extra=ViewExtra(
            variant=state.setup.variant_name,
            mode=state.setup.mode,
            preset=state.setup.preset_name,
            rules=rules_label(state.setup.rules, state.setup.house_rules),
            game_number=state.game_number,
            deal=state.deal,
            dealer_seat=state.dealer,
            counting_seat=state.counting_seat,
            crib_due=state.crib_due,
            won_points=state.won_points,
            skunk=_skunk(state),
            lines_failed=tuple(_lines_failed(state, i) for i in range(len(state.tracks))),
            ask=state.ask,
        ),
    )


def status_dict(state: GameState) -> Status:
    """The state as JSON-able data (``boardctl status --json``)."""
    names = state.setup.track_names()
    return {
        "target": state.target,
        "phase": state.phase,
        "dealer": state.dealer_track,
        "dealer_seat": state.dealer,
        "to_count": state.to_count,
        "counting_seat": state.counting_seat,
        "crib_due": state.crib_due,
        "winner": state.winner,
        "won_points": state.won_points,
        "skunk": _skunk(state),
        "variant": state.setup.variant_name,
        "players": state.setup.players,
        "mode": state.setup.mode,
        "preset": state.setup.preset_name,
        "preset_points": state.setup.preset.to_dict(),
        "muggins": state.setup.muggins,
        "rules": state.setup.rules,
        "house_rules": list(state.setup.house_rules),
        "rules_label": rules_label(state.setup.rules, state.setup.house_rules),
        "match_target": state.setup.match,
        "best_of": state.setup.best_of,
        "confirm_result": state.setup.confirm_result,
        "confirmed": list(state.confirmed),
        "match_winner": state.match_winner,
        "game_number": state.game_number,
        "match_number": state.match_number,
        "deal": state.deal,
        "lines": list(game_lines(state)),
        "ask": None if state.ask is None else asdict(state.ask),  # entries.ask_about
        "tracks": [
            {
                "name": names[i],
                "front": t.front,
                "back": t.back,
                "game_points": t.game_points,
                "lines_failed": _lines_failed(state, i),
            }
            for i, t in enumerate(state.tracks)
        ],
    }


def game_lines(state: GameState) -> tuple[int, ...]:
    """The skunk lines of the game under its house rules (the view and the status show them)."""
    return skunk_lines(state.target, fractions=fraction_lines(state.setup.house_rules))


def _skunk(state: GameState) -> int:
    """At game end, the lines the winner was paid for (the lowest loser's); else 0."""
    if state.winner is None:
        return 0
    scores = [t.front for t in state.tracks]
    return skunk_paid(state.target, scores, state.winner, state.setup.house_rules)


def _lines_failed(state: GameState, track: int) -> int:
    """At game end, the lines (0-3: skunk, double, triple) a losing track failed to cross."""
    if state.winner is None or track == state.winner:
        return 0
    return lines_failed(state.target, state.tracks[track].front, lines=game_lines(state))
