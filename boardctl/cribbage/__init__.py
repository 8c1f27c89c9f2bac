"""The pure cribbage rules engine (docs/rules.md): cards, hand scoring, pegging, variants.

No I/O but reading the seeds' words (``rules.toml``) at import; the public names are imported on
first use (module ``__getattr__``); :func:`score_hand` shows an example.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from boardctl.cribbage.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

if TYPE_CHECKING:
    from boardctl.cribbage.awards import heels_points, opening_points
    from boardctl.cribbage.cards import (
        DECK,
        Card,
        format_card,
        format_cards,
        parse_card,
        parse_cards,
    )
    from boardctl.cribbage.fast import hand_total
    from boardctl.cribbage.hand import HandScore, ScoreItem, score_hand
    from boardctl.cribbage.play import PlayEvent, PlayScore, PlayState, score_play

_LAZY: dict[str, str] = {
    name: module
    for module, names in {
        "cards": ("DECK", "Card", "format_card", "format_cards", "parse_card", "parse_cards"),
        "hand": ("HandScore", "ScoreItem", "score_hand"),
        "fast": ("hand_total",),
        "play": ("PlayEvent", "PlayScore", "PlayState", "score_play"),
        "awards": ("heels_points", "opening_points"),
    }.items()
    for name in names
}

__all__ = [
    "DECK",
    "DEFAULT_VARIANT",
    "VARIANTS",
    "Card",
    "HandScore",
    "PlayEvent",
    "PlayScore",
    "PlayState",
    "ScoreItem",
    "Variant",
    "format_card",
    "format_cards",
    "get_variant",
    "hand_total",
    "heels_points",
    "opening_points",
    "parse_card",
    "parse_cards",
    "score_hand",
    "score_play",
]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
