"""The count as players say it: "fifteen two, fifteen four, and a pair is six", made from the
scorer's own breakdown (:func:`count_phrases`), so the numbers said add up."""

from __future__ import annotations

from boardctl.cribbage.cards import NUMBER_WORDS
from boardctl.cribbage.hand import HandScore, ScoreItem
from boardctl.cribbage.play import PAIR_NAMES

_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def number_words(n: int) -> str:
    """``29`` -> ``twenty-nine`` (0-99)."""
    if n < 20:
        return NUMBER_WORDS[n]
    tens = _TENS[n // 10 - 2]
    return tens if n % 10 == 0 else f"{tens}-{NUMBER_WORDS[n % 10]}"


def count_phrases(score: HandScore) -> list[tuple[str, tuple[ScoreItem, ...]]]:
    """The count phrase by phrase, each with the scorer's items it counts (each item once), in the
    order of docs/rules.md, "The show" (runs of two never take their pairs in)."""
    items = score.items
    out: list[tuple[str, tuple[ScoreItem, ...]]] = [
        ("fifteen", (item,)) for item in items if item.kind == "fifteen"
    ]
    pairs: dict[int, list[ScoreItem]] = {}  # by rank
    blocks: dict[int, list[ScoreItem]] = {}  # lowest rank of a block of runs -> its runs
    folded: set[int] = set()  # ranks whose pairs are said with their runs
    for item in items:
        if item.kind == "pair":
            pairs.setdefault(item.cards[0].rank, []).append(item)
        elif item.kind == "run":
            blocks.setdefault(min(card.rank for card in item.cards), []).append(item)
            if len(item.cards) >= 3:
                folded.update(card.rank for card in item.cards)
    said_a_pair = False
    for rank, group in sorted(pairs.items()):
        if rank in folded:
            continue
        cards = {1: 2, 3: 3, 6: 4}[len(group)]
        out.append(("another pair" if cards == 2 and said_a_pair else PAIR_NAMES[cards], (*group,)))
        said_a_pair = said_a_pair or cards == 2
    said_runs: set[str] = set()
    for low, runs in sorted(blocks.items()):
        length = len(runs[0].cards)
        phrase = _runs_phrase(len(runs), length)
        if phrase in said_runs and phrase.startswith("a run"):  # runs of two: 3 4 8 9
            phrase = "another" + phrase[1:]
        said_runs.add(phrase)
        ranks = range(low, low + length) if length >= 3 else ()
        inside = [pair for rank in ranks for pair in pairs.get(rank, ())]
        out.append((phrase, (*runs, *inside)))
    for kind, phrase in (("flush", "a flush"), ("nobs", "one for his nobs")):
        named = tuple(item for item in items if item.kind == kind)
        if named:
            out.append((phrase, named))
    return out


def say_count(score: HandScore) -> str:
    """The whole count in words: each phrase of :func:`count_phrases` with the running total."""
    phrases: list[str] = []
    running = 0
    for phrase, items in count_phrases(score):
        running += sum(item.points for item in items)
        said = number_words(running)
        phrases.append(f"fifteen {said}" if phrase == "fifteen" else f"{phrase} is {said}")
    if not phrases:
        return "nothing: zero"
    if len(phrases) == 1 or phrases[-1].startswith("fifteen"):
        return ", ".join(phrases)
    return ", ".join(phrases[:-1]) + ", and " + phrases[-1]


def _runs_phrase(runs: int, length: int) -> str:
    """``(2, 3)`` -> ``a double run of three``: the runs with the pairs inside them."""
    if runs == 1:
        return f"a run of {number_words(length)}"
    if runs == 4 and length >= 3:
        return "a double double run"
    name = {2: "double", 3: "triple", 4: "quadruple"}.get(runs)
    if name is None or length == 2:  # runs of two: 7 7 7 8 8 is six runs of two
        return f"{number_words(runs)} runs of {number_words(length)}"
    return f"a {name} run of {number_words(length)}"
