from __future__ import annotations

import argparse
import textwrap
from typing import TYPE_CHECKING

from boardctl.errors import RuleSetError

if TYPE_CHECKING:
    from boardctl.cribbage.rules import HouseRule, RuleSet, Source

HELP = "list the rule sets and house rules with the seed texts that say so: boardctl rules [NAME]"
WIDTH = 100


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="one rule set or house rule (default: all)")
    parser.add_argument("--json", action="store_true", help="print the tables as JSON")


def run(args: argparse.Namespace) -> int:
    import json

    from boardctl.cribbage.rules import HOUSE_RULES, RULE_SETS, get_rule_set

    sets = list(RULE_SETS.values())
    rules = list(HOUSE_RULES.values())
    if args.name is not None:
        if args.name in HOUSE_RULES:
            sets, rules = [], [HOUSE_RULES[args.name]]
        elif args.name in RULE_SETS:
            sets, rules = [get_rule_set(args.name)], []
        else:
            raise RuleSetError(
                f"{args.name!r} is neither a rule set ({', '.join(RULE_SETS)})"
                f" nor a house rule ({', '.join(HOUSE_RULES)})"
            )
    if args.json:
        print(json.dumps(_as_json(sets, rules), ensure_ascii=False, indent=1))
        return 0
    lines: list[str] = []
    if sets:
        lines.append("Rule sets (boardctl new-game --rules NAME; [game] rules in the config):")
        for rule_set in sets:
            lines.extend(_rule_set_lines(rule_set))
    if rules:
        if lines:
            lines.append("")
        lines.append("House rules, each settable alone (boardctl set house-rules NAME,NAME):")
        for rule in rules:
            lines.append(f"  {rule.name:19} {rule.title}")
            for source in rule.sources:
                lines.extend(_source_lines(source))
    print("\n".join(lines))
    return 0


def _rule_set_lines(rule_set: RuleSet) -> list[str]:
    from boardctl.game.setup import get_preset

    preset = get_preset(rule_set.preset)
    points = f"win {preset.win}, skunk {preset.skunk}, double {preset.double}"
    if preset.triple_wins_match:
        points += ", a triple skunk wins the match"
    lines = [
        f"  {rule_set.name:9} {rule_set.title}",
        f"            house rules: {', '.join(rule_set.house_rules) or 'none'}",
        f"            game points: preset {rule_set.preset} ({points})",
    ]
    if rule_set.note:
        lines.extend(_wrapped(f"note: {rule_set.note}", 12))
    for source in rule_set.sources:
        lines.extend(_source_lines(source))
    return lines


def _source_lines(source: Source) -> list[str]:
    lines = _wrapped(f"{source.title()}:", 12)
    lines.extend(_wrapped(f'"{source.words}"', 14))
    if source.english:
        lines.extend(_wrapped(f'(in English: "{source.english}")', 14))
    return lines


def _wrapped(text: str, indent: int) -> list[str]:
    pad = " " * indent
    return textwrap.wrap(text, WIDTH, initial_indent=pad, subsequent_indent=pad + "  ")


def _as_json(sets: list[RuleSet], rules: list[HouseRule]) -> dict[str, object]:
    from dataclasses import asdict

    def sources(item: RuleSet | HouseRule) -> list[dict[str, object]]:
        return [
            {**asdict(s), "title": s.title(), "file": s.file, "cite": s.cite()}
            for s in item.sources
        ]

    return {
        "rule_sets": [{**asdict(r), "sources": sources(r)} for r in sets],
        "house_rules": [{**asdict(r), "sources": sources(r)} for r in rules],
    }
