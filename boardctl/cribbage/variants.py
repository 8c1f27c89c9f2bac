"""Game variants as data: who gets how many cards, what goes to the crib, the target; seats are
0..players-1 clockwise, each in a team with a track (``shared/rules/FACTS.md``)."""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.errors import VariantError, unknown

# The targets a game may be played to, also within the board's layout (docs/scorekeeping.md).
MIN_TARGET = 31  # the shortest game with a skunk line above the start
MAX_TARGET = 999  # a sanity bound; the board layout decides what it can show
TARGET_RANGE = f"{MIN_TARGET}-{MAX_TARGET}"
TARGET_HELP = f"121 or 61 (or any {TARGET_RANGE} that the board's layout has holes for)"


@dataclass(frozen=True, slots=True)
class Variant:
    """One way to play cribbage (``short_seats``: offsets from the dealer of seats dealt
    ``hand_size`` cards that discard nothing)."""

    name: str
    title: str
    players: int
    teams: tuple[tuple[int, ...], ...]
    target: int = 121
    deal_size: int = 5
    hand_size: int = 4
    crib_from_deck: int = 0
    short_seats: tuple[int, ...] = ()
    three_for_last: bool = False
    single_count: bool = False

    @property
    def tracks(self) -> int:
        return len(self.teams)

    def team_of(self, seat: int) -> int:
        """The team (track index) that ``seat`` plays for."""
        for index, team in enumerate(self.teams):
            if seat in team:
                return index
        raise VariantError(f"seat {seat} is not in variant {self.name!r} ({self.players} seats)")

    def cards_dealt(self, offset_from_dealer: int) -> int:
        """Cards dealt to the seat ``offset_from_dealer`` places left of the dealer."""
        if offset_from_dealer % self.players in self.short_seats:
            return self.hand_size
        return self.deal_size

    def discards_of(self, offset_from_dealer: int) -> int:
        return self.cards_dealt(offset_from_dealer) - self.hand_size

    @property
    def crib_size(self) -> int:
        """Cards in the crib: every discard plus any dealt from the deck."""
        return sum(self.discards_of(offset) for offset in range(self.players)) + self.crib_from_deck


def _individual(players: int) -> tuple[tuple[int, ...], ...]:
    return tuple((seat,) for seat in range(players))


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant(
            name="six-card",
            title="Two players, six-card, 121",
            players=2,
            teams=_individual(2),
            deal_size=6,
        ),
        Variant(
            name="five-card",
            title="Two players, five-card, 61 (three for last; one count to 31)",
            players=2,
            teams=_individual(2),
            target=61,
            hand_size=3,
            three_for_last=True,
            single_count=True,
        ),
        Variant(
            name="three-player",
            title="Three players, 121 (one crib card from the deck)",
            players=3,
            teams=_individual(3),
            crib_from_deck=1,
        ),
        Variant(
            name="four-player",
            title="Four players, partners sitting across, 121",
            players=4,
            teams=((0, 2), (1, 3)),
        ),
        Variant(
            name="five-player",
            title="Five players, individual scores, 121 (the dealer gets 4 cards)",
            players=5,
            teams=_individual(5),
            short_seats=(0,),
        ),
        Variant(
            name="six-player",
            title="Six players, two teams of three in alternate seats, 121",
            players=6,
            teams=((0, 2, 4), (1, 3, 5)),
            short_seats=(0, 5),
        ),
    )
}

DEFAULT_VARIANT = "six-card"


def get_variant(name: str) -> Variant:
    """Look up a variant by name, with an error listing the known names."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise VariantError(unknown("variant", name, VARIANTS)) from None
