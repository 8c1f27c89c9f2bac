"""The players' records as plain-text tables (``boardctl stats players``), from their JSON form
(:meth:`boardctl.results.records.Records.to_dict`, as the service's ``records`` request sends
it): no dataclass, rule or journal module is needed to print them."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def format_records(data: Mapping[str, Any]) -> str:
    """Plain-text tables: players (most wins first), then head to head."""
    players = data.get("players") or []
    if not players:
        return "no finished games"
    head = (
        f"{'player':<16} {'games':>5} {'wins':>5} {'win%':>5} {'gp':>4} {'sk+':>4} {'sk-':>4} "
        f"{'spread':>6} {'hand':>5} {'hand3':>5} {'crib':>5} {'peg':>5} "
        f"{'24':>3} {'28':>3} {'29':>3}"
    )
    lines = [head]
    ranked = sorted(players, key=lambda p: (-p["wins"], -p["game_points"], p["name"]))
    for p in ranked:
        big = p["big_hands"]
        lines.append(
            f"{p['name']:<16.16} {p['games']:>5} {p['wins']:>5} {_num(p['win_percent'], 0):>5} "
            f"{p['game_points']:>4} {p['skunks_given']:>4} {p['skunks_taken']:>4} "
            f"{_num(p['average_spread']):>6} {_num(p['average_hand']):>5} "
            f"{_num(p['average_three_card_hand']):>5} {_num(p['average_crib']):>5} "
            f"{_num(p['average_pegging']):>5} {big['24']:>3} {big['28']:>3} {big['29']:>3}"
        )
    shown = [(p["name"], hand) for p in ranked for hand in p["big_hand_cards"]]
    if shown:
        lines += ["", "big hands entered with their cards:"]
        lines.extend(
            f"{name}: {h['points']} ({h['kind']} {' '.join(h['cards'])}, starter {h['starter']})"
            f", game {h['game']} (seq {h['seq']})"
            for name, h in shown
        )
    lines += ["", "head to head (games, wins, game points, average spread of the first):"]
    pairs = data.get("head_to_head") or []
    for h in sorted(pairs, key=lambda h: (h["first"].casefold(), h["second"].casefold())):
        lines.append(
            f"{h['first']} v {h['second']}: {h['games']} game{'s' if h['games'] != 1 else ''}, "
            f"{h['first_wins']}-{h['second_wins']}, game points {h['first_points']}-"
            f"{h['second_points']}, spread {_num(h['average_spread'])}"
        )
    return "\n".join(lines)
