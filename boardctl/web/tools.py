"""The page's card tools (as ``boardctl score`` and ``discard``) and history rows, from the rules
engine (pure functions)."""

from __future__ import annotations

from typing import Any

from boardctl.cribbage.cards import parse_cards
from boardctl.cribbage.discard import rank_discards
from boardctl.cribbage.hand import score_typed
from boardctl.cribbage.speech import say_count
from boardctl.errors import CardError


def score(cards: str, *, crib: bool = False) -> dict[str, Any]:
    """The count of ``cards`` (hand then starter, 4+1 or 3+1)."""
    result = score_typed(parse_cards(cards), crib=crib)
    return {**result.as_dict(), "said": say_count(result)}


def advise(cards: str, *, dealer: bool) -> list[dict[str, Any]]:
    """Every discard of the dealt ``cards``, best first for the dealer or the pone."""
    return [option.as_dict() for option in rank_discards(cards, dealer=dealer)]


def history_rows(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The page's history, newest first, with hands and cribs itemised where cards are known."""
    rows = []
    for item in reversed(history):
        event = item.get("event") if isinstance(item.get("event"), dict) else {}
        row = {
            "seq": item.get("seq"),
            "time": str(item.get("time", ""))[-8:],
            "text": str(item.get("text", "")),
            "scores": item.get("scores", []),
        }
        cards = event.get("cards")
        if isinstance(item.get("count"), dict):  # the engine's count, under the game's rules
            row["count"] = item["count"]
        elif isinstance(cards, list | str) and cards:
            text = " ".join(cards) if isinstance(cards, list) else cards
            if isinstance(event.get("starter"), str):  # the starter is named apart
                text += " " + event["starter"]
            try:
                row["count"] = score(text, crib=event.get("kind") == "crib")
            except CardError as exc:
                row["count_error"] = str(exc)
        rows.append(row)
    return rows


def choices() -> dict[str, Any]:
    """What the page's menus offer, from the engine's tables (rules with their titles)."""
    from boardctl.board.theme import DEFAULT_THEME
    from boardctl.cribbage.rules import HOUSE_RULES, RULE_SETS
    from boardctl.cribbage.variants import VARIANTS
    from boardctl.game.entries import KINDS
    from boardctl.game.setup import MODES, PRESETS

    return {
        "variants": list(VARIANTS),
        "presets": list(PRESETS),
        "modes": list(MODES),
        "kinds": list(KINDS),
        "colours": ["#{:02x}{:02x}{:02x}".format(*c) for c in DEFAULT_THEME.tracks],
        "rule_sets": {name: rule.title for name, rule in RULE_SETS.items()},
        "house_rules": {name: rule.title for name, rule in HOUSE_RULES.items()},
    }
