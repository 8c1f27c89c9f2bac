"""The rule-set matrix of README.md and docs/rules.md is the rules table's, never hand-written."""

from __future__ import annotations

import shutil
from pathlib import Path

from boardctl.cribbage.rules import HOUSE_RULES, RULE_SETS
from tools import rules_matrix


def test_the_documents_matrices_are_the_rules_tables() -> None:
    assert rules_matrix.stale() == []


def test_every_rule_set_has_a_mark_where_its_list_names_a_house_rule() -> None:
    table = rules_matrix.matrix().splitlines()
    for rule in HOUSE_RULES.values():
        row = next(line for line in table if f"(`{rule.name}`)" in line)
        cells = [cell.strip() for cell in row.split("|")[2:-2]]
        marked = [s.name for s, cell in zip(RULE_SETS.values(), cells, strict=True) if cell]
        expected = [
            s.name for s in RULE_SETS.values() if rule.every_set or rule.name in s.house_rules
        ]
        assert marked == expected


def test_a_changed_cell_is_found_stale_and_rewritten(tmp_path: Path) -> None:
    for name in rules_matrix.DOCUMENTS:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(rules_matrix.REPO / name, tmp_path / name)
    readme = tmp_path / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8").replace("czech 1/2", "czech 1/3"))
    assert rules_matrix.main(["--check", "--repo", str(tmp_path)]) == 1
    assert rules_matrix.write(tmp_path) == ["README.md"]
    assert rules_matrix.stale(tmp_path) == []
