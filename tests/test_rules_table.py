"""The rule sets and house rules table: names, seed quotes at their lines, scoring switches."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.cribbage.rules import (
    HOUSE_RULES,
    POINTS_SOURCES,
    RULE_SETS,
    SEEDS,
    Source,
    check_house_rules,
    get_rule_set,
    parse_house_rules,
    scoring_for,
    selected,
)
from boardctl.cribbage.scoring import ACC
from boardctl.errors import RuleSetError
from boardctl.game.setup import PRESETS
from tests.conftest import DATA, REPO

ALL_SOURCES: list[Source] = [
    *(s for rule in HOUSE_RULES.values() for s in rule.sources),
    *(s for rule_set in RULE_SETS.values() for s in rule_set.sources),
    *(s for sources in POINTS_SOURCES.values() for s in sources),
]


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("source", ALL_SOURCES, ids=Source.cite)
def test_every_quote_is_the_seeds_own_words_at_the_cited_line(source: Source) -> None:
    lines = (DATA / "seeds" / source.file).read_text(encoding="utf-8").splitlines()
    here = _flat(" ".join(lines[source.line - 1 : source.line + 5]))
    parts = [_flat(part) for part in source.words.split("[...]")]
    assert _flat(lines[source.line - 1]).find(parts[0][:20]) >= 0, "the quote starts elsewhere"
    position = 0
    for part in parts:
        found = here.find(part, position)
        assert found >= 0, f"{source.cite()}: {part!r} is not in the seed there"
        position = found + len(part)


def test_the_seed_copies_are_the_five_seed_texts() -> None:
    assert sorted(p.name for p in (DATA / "seeds").iterdir()) == sorted(SEEDS.values())


def test_rule_sets_name_known_house_rules_and_presets() -> None:
    assert list(RULE_SETS) == ["acc", "polish", "finnish", "czech", "english"]
    assert get_rule_set("acc").house_rules == ()
    for rule_set in RULE_SETS.values():
        assert check_house_rules(rule_set.house_rules) == rule_set.house_rules
        assert rule_set.preset in PRESETS
        assert rule_set.sources, rule_set.name
    used = {rule for rule_set in RULE_SETS.values() for rule in rule_set.house_rules}
    assert used == set(HOUSE_RULES)  # every house rule belongs to some seed's rule set


def test_unknown_names_are_refused_with_the_known_ones() -> None:
    with pytest.raises(RuleSetError, match="known: acc, polish"):
        get_rule_set("swedish")
    with pytest.raises(RuleSetError, match="runs-of-two"):
        check_house_rules(["runs-of-three"])
    with pytest.raises(ValueError):
        parse_house_rules("deal-left")


def test_house_rules_text() -> None:
    assert parse_house_rules("crib-four-flush, runs-of-two") == ("runs-of-two", "crib-four-flush")
    assert parse_house_rules("none") == parse_house_rules("") == ()
    assert selected("czech", None)[1] == get_rule_set("czech").house_rules
    assert selected(None, "runs-of-two") == ("acc", ("runs-of-two",))


@settings(max_examples=60)
@given(st.sets(st.sampled_from(list(HOUSE_RULES))))
def test_scoring_follows_exactly_the_scoring_house_rules(rules: set[str]) -> None:
    scoring = scoring_for(tuple(sorted(rules)))
    assert (scoring.run_min == 2) == ("runs-of-two" in rules)
    assert scoring.crib_four_flush == ("crib-four-flush" in rules)
    assert scoring.go_per_card == ("go-per-card" in rules)
    if not rules & {"runs-of-two", "crib-four-flush", "go-per-card"}:
        assert scoring is ACC


def test_readme_and_docs_table_every_house_rule_and_rule_set() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    docs = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    for text in (readme, docs):
        for rule in HOUSE_RULES.values():
            assert f"(`{rule.name}`)" in text, rule.name
            assert f"{rule.sources[0].seed}:{rule.sources[0].line}" in text, rule.name
        header = text.split("| rule (house rule) |")[1].split("\n")[0]
        assert [name.strip() for name in header.split("|")[:5]] == list(RULE_SETS)
