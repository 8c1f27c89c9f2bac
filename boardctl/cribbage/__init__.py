"""The pure cribbage rules engine (docs/rules.md): cards, hand scoring, pegging, variants.

No I/O but reading the seeds' words (``rules.toml``) at import; the public names are imported on
first use (module ``__getattr__``); :func:`score_hand` shows an example.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from boardctl.cribbage.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant

if TYPE_CHECKING:  # the lazy names, each exported explicitly ("as" itself)
    from boardctl.cribbage.awards import heels_points as heels_points
    from boardctl.cribbage.awards import opening_points as opening_points
    from boardctl.cribbage.cards import DECK as DECK
    from boardctl.cribbage.cards import Card as Card
    from boardctl.cribbage.cards import format_card as format_card
    from boardctl.cribbage.cards import format_cards as format_cards
    from boardctl.cribbage.cards import parse_card as parse_card
    from boardctl.cribbage.cards import parse_cards as parse_cards
    from boardctl.cribbage.fast import hand_total as hand_total
    from boardctl.cribbage.hand import HandScore as HandScore
    from boardctl.cribbage.hand import ScoreItem as ScoreItem
    from boardctl.cribbage.hand import score_hand as score_hand
    from boardctl.cribbage.play import PlayEvent as PlayEvent
    from boardctl.cribbage.play import PlayScore as PlayScore
    from boardctl.cribbage.play import PlayState as PlayState
    from boardctl.cribbage.play import score_play as score_play

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

__all__ = ["DEFAULT_VARIANT", "VARIANTS", "Variant", "get_variant", *_LAZY]


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
