"""The rule-set matrix of README.md and docs/rules.md, generated from the rules table.

Which house rule each rule set has, and its game points, live once in
:mod:`boardctl.cribbage.rules` and :mod:`boardctl.game.setup`; the matrix in
each document stands between two markers::

    <!-- begin generated: rule-sets -->
    ...
    <!-- end generated: rule-sets -->

``python tools/rules_matrix.py`` rewrites it; ``--check`` (and
``tests/test_rules_matrix.py``) exits 1 when a document's matrix is stale.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from boardctl.cribbage.rules import HOUSE_RULES, POINTS_SOURCES, RULE_SETS, Source
from boardctl.game.setup import get_preset

REPO = Path(__file__).resolve().parent.parent
DOCUMENTS = ("README.md", "docs/rules.md")
BLOCK = "rule-sets"
_BLOCK = re.compile(
    rf"(<!-- begin generated: {BLOCK} -->\n)(.*?)(<!-- end generated: {BLOCK} -->)", re.DOTALL
)


def _cites(sources: Sequence[Source]) -> str:
    return ", ".join(f"{source.seed}:{source.line}" for source in sources)


def _points(preset_name: str) -> str:
    """``acc 2/3``, ``finnish 1/2/3, triple wins``: win, skunk, double, triple, repeats dropped."""
    preset = get_preset(preset_name)
    values = [preset.win, preset.skunk, preset.double, preset.triple]
    while len(values) > 1 and values[-1] == values[-2]:
        values.pop()
    text = f"{preset.name} {'/'.join(str(value) for value in values)}"
    if preset.lurch:
        text += f", lurch {preset.lurch}"
    return text + (", triple wins" if preset.triple_wins_match else "")


def matrix() -> str:
    """The matrix as a Markdown table (with its closing newline)."""
    sets = list(RULE_SETS.values())
    lines = [
        f"| rule (house rule) | {' | '.join(rule_set.name for rule_set in sets)} | seed |",
        "|---" * (len(sets) + 2) + "|",
    ]
    for rule in HOUSE_RULES.values():
        marks = [
            "✓" if rule.every_set or rule.name in rule_set.house_rules else "" for rule_set in sets
        ]
        lines.append(
            f"| {rule.title} (`{rule.name}`) | {' | '.join(marks)} | {_cites(rule.sources)} |"
        )
    points = [_points(rule_set.preset) for rule_set in sets]
    cites = _cites([sources[0] for sources in POINTS_SOURCES.values()])
    lines.append(
        f"| game points (preset: win/skunk/double/triple) | {' | '.join(points)} | {cites} |"
    )
    return "\n".join(lines) + "\n"


def stale(repo: Path = REPO) -> list[str]:
    """The documents whose matrix differs from :func:`matrix` (or has no markers)."""
    table = matrix()
    out = []
    for name in DOCUMENTS:
        found = _BLOCK.search((repo / name).read_text(encoding="utf-8"))
        if found is None or found.group(2) != table:
            out.append(name)
    return out


def write(repo: Path = REPO) -> list[str]:
    """Rewrite every document's matrix; return the names of those that changed."""
    table, changed = matrix(), []
    for name in DOCUMENTS:
        path = repo / name
        text = path.read_text(encoding="utf-8")
        if _BLOCK.search(text) is None:
            raise SystemExit(f"{name}: no <!-- begin generated: {BLOCK} --> block")
        new = _BLOCK.sub(lambda m: m.group(1) + table + m.group(3), text, count=1)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(name)
    return changed


def main(argv: Sequence[str] | None = None) -> int:
    """``--check``: exit 1 if a matrix is stale; else rewrite them."""
    parser = argparse.ArgumentParser(prog="python tools/rules_matrix.py", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if a matrix is stale")
    parser.add_argument("--repo", type=Path, default=REPO, help="the repository's folder")
    args = parser.parse_args(argv)
    if not args.check:
        for name in write(args.repo):
            print(f"updated {name}")
        return 0
    names = stale(args.repo)
    for name in names:
        print(f"stale: {name} (run python tools/rules_matrix.py)", file=sys.stderr)
    return 1 if names else 0


if __name__ == "__main__":
    raise SystemExit(main())
