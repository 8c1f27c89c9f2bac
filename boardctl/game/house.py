"""The engine's side of the rule sets: choosing them at a new game, and the house rules it applies.

The rules themselves are data in :mod:`boardctl.cribbage.rules`; this module
turns a ``new_game`` command or a ``set house_rules`` value into checked
names (refusals are :class:`~boardctl.errors.EntryError`), and answers the
engine's few questions: who deals next, which loser the skunk is measured
against (and how many lines that skunk is), whether the lines are fractions
of the target, and whether muggins may change. Scoring switches reach the limits through
:func:`boardctl.game.limits.limits_for`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from boardctl.cribbage.rules import (
    DEFAULT_RULES,
    RULE_SETS,
    check_house_rules,
    get_rule_set,
    parse_house_rules,
)
from boardctl.errors import EntryError, RuleSetError

DEAL_RIGHT = "deal-right"
ANY_OPPONENT = "skunk-any-opponent"
MUGGINS_STANDING = "muggins-standing"
MUGGINS_DECLARED = "muggins-declared"
FRACTION_LINES = "fraction-lines"


def rules_of_command(
    command: Mapping[str, object], base_rules: str, base_house_rules: tuple[str, ...]
) -> tuple[str, tuple[str, ...], str | None]:
    """``(rule set, house rules, its preset or None)`` chosen by a ``new_game`` command.

    A ``rules`` name brings its own house rules and preset (the preset only
    when the command names none); ``house_rules`` replaces the list; with
    neither, the base setup's carry over. Old journals have neither: ACC.
    """
    name = command.get("rules", base_rules or DEFAULT_RULES)
    try:
        rule_set = get_rule_set(name)  # type: ignore[arg-type]
        given = command.get("house_rules")
        if given is not None:
            house_rules = house_rules_value(given)
        elif "rules" in command:
            house_rules = rule_set.house_rules
        else:
            house_rules = base_house_rules
    except RuleSetError as exc:
        raise EntryError(str(exc)) from None
    preset = rule_set.preset if "rules" in command and "preset" not in command else None
    return rule_set.name, house_rules, preset


def house_rules_value(value: object) -> tuple[str, ...]:
    """A ``house_rules`` value: a list of names, or text such as ``"runs-of-two,deal-right"``."""
    try:
        if isinstance(value, str):
            return parse_house_rules(value)
        if isinstance(value, list | tuple):
            return check_house_rules(value)
    except RuleSetError as exc:
        raise EntryError(str(exc)) from None
    raise EntryError(f"house rules must be a list of names, not {value!r}")


def rules_label(rules: str, house_rules: tuple[str, ...]) -> str:
    """``czech``, or ``acc + runs-of-two`` when the house rules differ from the set's own."""
    own = RULE_SETS[rules].house_rules if rules in RULE_SETS else ()
    if set(house_rules) == set(own):
        return rules
    added = [rule for rule in house_rules if rule not in own]
    dropped = [rule for rule in own if rule not in house_rules]
    return " ".join([rules, *(f"+ {r}" for r in added), *(f"- {r}" for r in dropped)])


def next_dealer(dealer: int, players: int, house_rules: Sequence[str]) -> int:
    """The next deal's dealer: the player on the left, or on the right under ``deal-right``."""
    step = -1 if DEAL_RIGHT in house_rules else 1
    return (dealer + step) % players


def skunk_loser(loser_scores: Sequence[int], house_rules: Sequence[str] = ()) -> int:
    """The loser's score the skunk lines are measured against: the lowest loser's.

    With three or more tracks the winner gets the skunk "even if one of his
    opponents is already past the skunk line" (seed 004:34, the house rule
    ``skunk-any-opponent``): this is the measure of every rule set, so every
    label, status line, result and award names the same skunk. ``house_rules``
    is kept for the callers; no rule changes the measure.
    """
    return min(loser_scores) if loser_scores else 0


def skunk_paid(
    target: int, scores: Sequence[int], winner: int, house_rules: Sequence[str] = ()
) -> int:
    """The lines (0-3: skunk, double, triple) the winner is paid for: the lowest loser's."""
    from boardctl.view import lines_failed

    loser = skunk_loser([s for i, s in enumerate(scores) if i != winner], house_rules)
    return lines_failed(target, loser, fractions=fraction_lines(house_rules))


def fraction_lines(house_rules: Sequence[str]) -> bool:
    """Whether the skunk lines sit at 3/4 and 1/2 of the target (``fraction-lines``)."""
    return FRACTION_LINES in house_rules


def muggins_for(house_rules: Sequence[str], muggins: bool) -> bool:
    """Muggins as the house rules leave it: always on under ``muggins-standing``."""
    return True if MUGGINS_STANDING in house_rules else muggins


def check_muggins_change(house_rules: Sequence[str], value: bool, started: bool) -> None:
    """Refuse a muggins change the house rules forbid (standing; declared before the game)."""
    if MUGGINS_STANDING in house_rules and not value:
        raise EntryError("muggins is a standing rule under these house rules (muggins-standing)")
    if MUGGINS_DECLARED in house_rules and started:
        raise EntryError(
            "muggins is declared before the game begins (muggins-declared); start a new game "
            "(`boardctl new-game`)"
        )
