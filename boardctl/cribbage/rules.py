"""Rule sets and house rules as data, each rule with the seed text that says so (docs/rules.md,
"Rule sets and house rules"). Nothing branches on a set's name: scorers read a
:class:`~boardctl.cribbage.scoring.Scoring`, the engine asks for a rule."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from boardctl.cribbage.scoring import ACC, Scoring
from boardctl.errors import EntryError, RuleSetError, unknown

SEEDS = {
    "000": "000_562e268744d8605c.txt",
    "001": "001_9bc4fb5861c3f883.txt",
    "002": "002_05c6dab3e8445d48.txt",
    "003": "003_6e10374a21cda67d.txt",
    "004": "004_4ca21f183942aac8.txt",
}

#: Each seed's title for players: its language and where it comes from (the files' names are
#: for the docs and the tests, which cite file:line).
SEED_TITLES = {
    "000": "Polish rules in English (a translation of seed 002)",
    "001": "Finnish: Wikipedia's “Rules of cribbage” in Finnish",
    "002": "Polish: “Zasady gry” from a Polish home page",
    "003": "English: a rules summary after the American Cribbage Congress and Wikipedia",
    "004": "Czech: “Cribbage” from a Czech card-game page (2 to 6 players)",
}


@dataclass(frozen=True, slots=True)
class Source:
    """Where a seed text says so: its file, the line, its own words, and a translation."""

    seed: str  # key of SEEDS
    line: int
    words: str
    english: str = ""

    @property
    def file(self) -> str:
        return SEEDS[self.seed]

    def cite(self) -> str:
        """``004_4ca21f183942aac8.txt:28`` (for the docs)."""
        return f"{self.file}:{self.line}"

    def title(self) -> str:
        """``Czech: “Cribbage” from a Czech card-game page (2 to 6 players), line 28``."""
        return f"{SEED_TITLES[self.seed]}, line {self.line}"


@dataclass(frozen=True, slots=True)
class HouseRule:
    """One difference from the ACC rules, settable alone."""

    name: str
    title: str
    sources: tuple[Source, ...]
    every_set: bool = False  # the measure of every rule set, whether or not its list names it


@dataclass(frozen=True, slots=True)
class RuleSet:
    """A seed's whole rules: its house rules and its game points preset."""

    name: str
    title: str
    house_rules: tuple[str, ...]
    preset: str
    sources: tuple[Source, ...]
    note: str = ""


# The seed quotes of ``rules.toml``: ``house_rules``, ``points`` and ``rule_sets``, by name.
_QUOTES_FILE = Path(__file__).with_name("rules.toml")
_QUOTES: dict[str, dict[str, tuple[Source, ...]]] = {
    kind: {name: tuple(Source(**quote) for quote in quotes) for name, quotes in table.items()}
    for kind, table in tomllib.loads(_QUOTES_FILE.read_text(encoding="utf-8")).items()
}

DEAL_RIGHT = "deal-right"
ANY_OPPONENT = "skunk-any-opponent"  # the measure of every rule set (skunk_loser)
MUGGINS_STANDING = "muggins-standing"
MUGGINS_DECLARED = "muggins-declared"
FRACTION_LINES = "fraction-lines"

_HOUSE_RULE_TITLES = {
    "go-per-card": "after a go, every card the others can still lay pegs 1 (2 for 31 instead)",
    "runs-of-two": (
        "runs score from two cards, in the play and the show (2, plus 1 per further card)"
    ),
    "deal-right": (
        "the deal passes to the dealer's right (counting still starts at the dealer's left)"
    ),
    "skunk-any-opponent": (
        "with three or more tracks the skunk counts against the lowest loser"
        " (the measure of every rule set)"
    ),
    "muggins-standing": (
        "muggins is always on: points a player misses may be claimed by an opponent"
    ),
    "muggins-declared": (
        "muggins is chosen before the game begins: it cannot be switched once pegs move"
    ),
    "crib-four-flush": "a crib of four cards of one suit scores 4 like a hand (no crib exception)",
    "fraction-lines": (
        "skunk lines are fractions of the target: 3/4 (skunk) and 1/2 (double skunk)"
    ),
}

HOUSE_RULES: dict[str, HouseRule] = {
    name: HouseRule(name, title, _QUOTES["house_rules"][name], every_set=name == ANY_OPPONENT)
    for name, title in _HOUSE_RULE_TITLES.items()
}

#: The seed text behind the game points presets that the rule sets use (values in presets.py).
POINTS_SOURCES: dict[str, tuple[Source, ...]] = _QUOTES["points"]

RULE_SETS: dict[str, RuleSet] = {
    rule_set.name: rule_set
    for rule_set in (
        RuleSet(
            "acc",
            "American Cribbage Congress rules (the default)",
            (),
            "acc",
            _QUOTES["rule_sets"]["acc"],
        ),
        RuleSet(
            "polish",
            "Polish rules (seeds 000 and 002): a point for every card after a go",
            ("go-per-card",),
            "acc",
            HOUSE_RULES["go-per-card"].sources[:2],
            "the Polish texts play the five-card game to 61 (--variant five-card) and say"
            " nothing of game points, so the ACC's apply",
        ),
        RuleSet(
            "finnish",
            "Finnish rules (seed 001): one match point a game, triple skunk wins the match",
            ("muggins-declared",),
            "finnish",
            POINTS_SOURCES["finnish"],
            "a double skunk is 3 match points here, 4 by local agreement (preset custom);"
            " a match is usually an odd number of games: best of N is `match` (N + 1) / 2",
        ),
        RuleSet(
            "czech",
            "Czech rules (seed 004): runs of two, deal to the right, flush with no crib exception",
            (
                "runs-of-two",
                "deal-right",
                "skunk-any-opponent",
                "muggins-standing",
                "crib-four-flush",
            ),
            "czech",
            (HOUSE_RULES["runs-of-two"].sources[1], *POINTS_SOURCES["czech"]),
        ),
        RuleSet(
            "english",
            "English rules (seed 003): skunk lines at 3/4 and 1/2 of the target",
            ("fraction-lines",),
            "english",
            POINTS_SOURCES["english"],
        ),
    )
}

DEFAULT_RULES = "acc"


def get_rule_set(name: str) -> RuleSet:
    """The rule set called ``name``, with an error listing the known names."""
    try:
        return RULE_SETS[name]
    except (KeyError, TypeError):
        raise RuleSetError(unknown("rule set", name, RULE_SETS)) from None


def check_house_rules(names: Iterable[object]) -> tuple[str, ...]:
    """Validate house rule names; return them in table order, each once."""
    given = list(names)
    for name in given:
        if not isinstance(name, str) or name not in HOUSE_RULES:
            raise RuleSetError(unknown("house rule", name, HOUSE_RULES))
    return tuple(rule for rule in HOUSE_RULES if rule in given)


@lru_cache(maxsize=32)
def scoring_for(house_rules: tuple[str, ...] | frozenset[str]) -> Scoring:
    """The scoring switches of a set of house rules (ACC's own object when none applies)."""
    scoring = Scoring(
        run_min=2 if "runs-of-two" in house_rules else 3,
        crib_four_flush="crib-four-flush" in house_rules,
        go_per_card="go-per-card" in house_rules,
    )
    return ACC if scoring == ACC else scoring


def parse_house_rules(text: str) -> tuple[str, ...]:
    """``"runs-of-two,deal-right"`` (commas or spaces; ``none`` or empty for none) -> names."""
    return check_house_rules(name for name in text.replace(",", " ").split() if name != "none")


def selected(rules: str | None, house_rules: str | None) -> tuple[str, tuple[str, ...]]:
    """The rule set and house rules of ``--rules`` and ``--house-rules`` (replacing its list)."""
    rule_set = get_rule_set(rules or DEFAULT_RULES)
    own = rule_set.house_rules if house_rules is None else parse_house_rules(house_rules)
    return rule_set.name, own


# --- The engine's side: a ``house_rules`` value checked, and the engine's few questions. ---


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
    added = [f"+ {rule}" for rule in house_rules if rule not in own]
    dropped = [f"- {rule}" for rule in own if rule not in house_rules]
    return " ".join([rules, *added, *dropped])


def next_dealer(dealer: int, players: int, house_rules: Sequence[str]) -> int:
    """The next deal's dealer: the player on the left, or on the right under ``deal-right``."""
    step = -1 if DEAL_RIGHT in house_rules else 1
    return (dealer + step) % players


def skunk_loser(loser_scores: Sequence[int]) -> int:
    """The loser's score the skunk lines are measured against: the lowest loser's (seed 004:34,
    ``skunk-any-opponent``, for every rule set)."""
    return min(loser_scores, default=0)


def skunk_paid(
    target: int, scores: Sequence[int], winner: int, house_rules: Sequence[str] = ()
) -> int:
    """The lines (0-3: skunk, double, triple) the winner is paid for: the lowest loser's."""
    from boardctl.view import lines_failed

    loser = skunk_loser([s for i, s in enumerate(scores) if i != winner])
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
