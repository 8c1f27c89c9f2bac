"""Why the board refused something: the one list of the classes players are told apart, each
with its own sign on the LEDs and its own sound."""

from __future__ import annotations

from enum import StrEnum


class Refusal(StrEnum):
    """A class of refusal (the value is its stable name in JSON and the docs)."""

    IMPOSSIBLE = "impossible"  # no hand or crib can score that
    NOT_YOUR_TURN = "not_your_turn"  # another track is to count now
    TOO_MANY_POINTS = "too_many_points"  # more than one play of the cards can peg
    GAME_OVER = "game_over"  # the game has been won: start the next one
    NO_SUCH_TRACK = "no_such_track"  # the board cannot show that many tracks
    STORAGE = "storage"  # the journal cannot be written: nothing was recorded
    OTHER = "other"  # anything else the engine refused


#: What each class means, in the words of the quick-reference card.
MEANINGS: dict[Refusal, str] = {
    Refusal.IMPOSSIBLE: "no hand or crib can score that count",
    Refusal.NOT_YOUR_TURN: "not this track's turn to count",
    Refusal.TOO_MANY_POINTS: "more than one play can score",
    Refusal.GAME_OVER: "the game is over: press menu for the next one",
    Refusal.NO_SUCH_TRACK: "the board cannot show that many tracks",
    Refusal.STORAGE: "storage fault: the entry was not saved",
    Refusal.OTHER: "refused (see boardctl status for why)",
}
