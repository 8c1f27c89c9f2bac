"""The rule set on the LEDs: in settings mode, on the ``rules`` item, the choices track lights
as many first holes as the rule set's place in :data:`~boardctl.cribbage.rules.RULE_SETS`, in
its colour (:data:`RULE_COLOURS`); the overlay, docs/board.md and the card read them."""

from __future__ import annotations

from boardctl.board.frame import RGB
from boardctl.board.theme import BLUE, BLUISH_GREEN, REDDISH_PURPLE, VERMILION
from boardctl.cribbage.rules import RULE_SETS

#: Each rule set's colour on the LEDs, and its name in words.
RULE_COLOURS: dict[str, tuple[RGB, str]] = {
    "acc": ((200, 200, 200), "white"),
    "polish": (VERMILION, "vermilion"),
    "finnish": (BLUE, "blue"),
    "czech": (BLUISH_GREEN, "bluish green"),
    "english": (REDDISH_PURPLE, "reddish purple"),
}


def rule_sign_holes(name: str) -> int:
    """How many holes the rule set ``name`` lights (its place in the table, from 1; 0 unknown)."""
    names = list(RULE_SETS)
    return names.index(name) + 1 if name in names else 0


def rule_legend() -> list[tuple[str, str, str]]:
    """Each rule set, its sign in words (``3 blue``: holes 1-3 lit blue) and its title up to the
    colon, in the settings' order."""
    return [
        (name, f"{rule_sign_holes(name)} {RULE_COLOURS[name][1]}", rule_set.title.split(":")[0])
        for name, rule_set in RULE_SETS.items()
    ]
