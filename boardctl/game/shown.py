"""The cards of a count, checked by the scorer (docs/scorekeeping.md, "Counts with their cards");
his heels and ``cut`` may name the starter."""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.cribbage.awards import HEELS_POINTS
from boardctl.cribbage.cards import JACK, Card, format_card, parse_card
from boardctl.cribbage.rules import scoring_for
from boardctl.errors import CardError, EntryError
from boardctl.game.state import Counted, GameState
from boardctl.refusals import Refusal


@dataclass(frozen=True, slots=True)
class Shown:
    """An entry's cards after their checks: what the event records."""

    points: int
    kind: str
    cards: tuple[str, ...] | None
    starter: str


def check_shown(
    state: GameState,
    points: int | None,
    kind: str | None,
    cards: tuple[str, ...] | None,
    starter: str | None,
) -> Shown:
    """Check an entry's cards against ``state``: the points, kind and cards to record."""
    if cards is None:
        return _heels_starter(state, points, kind, starter)
    kind = kind or _count_kind(state, len(cards))
    if kind not in ("hand", "crib"):
        raise EntryError(f"only a hand or crib count names its cards, not a {kind} entry")
    from boardctl.cribbage.hand import score_hand

    crib = kind == "crib"
    variant = state.setup.variant
    size = variant.crib_size if crib else variant.hand_size
    if len(cards) != size:
        raise EntryError(
            f"a {kind} in the {variant.name} game has {size} cards, not {len(cards)}"
            f" ({' '.join(cards) or 'none'}); the starter is given apart"
        )
    try:
        hand = [parse_card(card) for card in cards]
        cut = parse_card(_starter_of(state, starter))
        _check_dealt(state, [format_card(card) for card in hand])
        score = score_hand(hand, cut, crib=crib, scoring=scoring_for(state.setup.house_rules))
    except CardError as exc:
        raise EntryError(str(exc)) from None
    shown = " ".join(format_card(card) for card in hand)
    if points is not None and points != score.total:
        raise EntryError(
            f"{shown} with the starter {format_card(cut)} count {score.total} as a {kind},"
            f" not {points}: enter {score.total} (or leave the points out)",
            Refusal.IMPOSSIBLE,
        )
    return Shown(score.total, kind, tuple(shown.split()), format_card(cut))


def with_shown(before: GameState, after: GameState, track: int, shown: Shown | None) -> GameState:
    """``after`` remembering the deal's starter and counted cards until the deal passes on."""
    if after.deal != before.deal or after.game_number != before.game_number:
        if after.starter is None and not after.counted:
            return after
        return after.evolve(starter=None, counted=())
    if shown is None or before.phase == "free":
        return after
    if after.starter != shown.starter:
        after = after.evolve(starter=shown.starter)
    if shown.cards is not None:
        after = after.evolve(counted=(*after.counted, Counted(track, shown.kind, shown.cards)))
    return after


def record_starter(state: GameState, starter: str) -> tuple[GameState, str]:
    """The state knowing the deal's starter (guided, before it is known); its short form."""
    if state.phase == "free":
        raise EntryError(
            "free mode knows no deals: name the starter with each count (peg --starter)"
        )
    card = format_card(_card(starter))
    if state.starter is not None:
        raise EntryError(
            f"the starter of this deal is already {state.starter}; undo the entry that named it"
            " to change it"
        )
    return state.evolve(starter=card), card


def _check_dealt(state: GameState, cards: list[str]) -> None:
    """Refuse a card the deal already holds elsewhere: another count's, or its starter (guided)."""
    if state.phase == "free":
        return
    for card in cards:
        if card == state.starter:
            raise EntryError(
                f"{card} is this deal's starter (an earlier entry named it), so it is in no hand"
                " or crib; undo that entry to change it",
                Refusal.IMPOSSIBLE,
            )
        for count in state.counted:
            if card in count.cards:
                raise EntryError(
                    f"{card} is already in {state.track_name(count.track)}'s {count.kind}"
                    f" ({' '.join(count.cards)}), counted this deal: a card is in one hand or"
                    " the crib only; undo that entry to change it",
                    Refusal.IMPOSSIBLE,
                )


def _count_kind(state: GameState, cards: int) -> str:
    """The kind of a count given without one: the show's due count, else by its size."""
    if state.phase == "show":
        return "crib" if state.crib_due else "hand"
    variant = state.setup.variant
    return "crib" if cards == variant.crib_size != variant.hand_size else "hand"


def _starter_of(state: GameState, starter: str | None) -> str:
    """The entry's starter, checked against the deal's (guided); the deal's if left out."""
    known = None if state.phase == "free" else state.starter
    if starter is None:
        if known is None:
            raise EntryError("name the starter card too (the cut card the hands count with)")
        return known
    if known is not None and parse_card(starter) != parse_card(known):
        raise EntryError(
            f"the starter of this deal is {known} (an earlier entry named it), not {starter}"
            "; undo that entry to change it"
        )
    return starter


def _heels_starter(
    state: GameState, points: int | None, kind: str | None, starter: str | None
) -> Shown:
    """An entry naming only a starter: his heels (a jack), or a count with the deal's starter."""
    assert starter is not None
    if kind is None and state.phase == "deal" and points in (None, HEELS_POINTS):
        kind = "heels"
    if kind != "heels":
        raise EntryError("a starter alone goes with his heels; a hand or crib names its cards too")
    card = _card(starter)
    if card.rank != JACK:
        raise EntryError(
            f"his heels is a jack turned as the starter, not {format_card(card)}",
            Refusal.IMPOSSIBLE,
        )
    _starter_of(state, format_card(card))  # the deal's, if known
    return Shown(HEELS_POINTS if points is None else points, kind, None, format_card(card))


def _card(text: str) -> Card:
    """``text`` as a card; :class:`EntryError` saying why it is none."""
    try:
        return parse_card(text)
    except CardError as exc:
        raise EntryError(str(exc)) from None
