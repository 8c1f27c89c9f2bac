"""A small reader and writer of KiCad's S-expression files."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

#: An S-expression: an atom (a symbol, a number, a quoted string: ``str``) or a list of
#: S-expressions. Typed loosely: KiCad's trees mix both at every level.
Node = Any

_TOKEN = re.compile(r'\s*(?:(\()|(\))|("(?:[^"\\]|\\.)*")|([^\s()"]+))')


def parse(text: str) -> Node:
    """The first S-expression of ``text``; quoted strings keep their quotes."""
    stack: list[list[Node]] = [[]]
    for opening, closing, quoted, atom in _tokens(text):
        if opening:
            stack.append([])
        elif closing:
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(quoted or atom)
    return stack[0][0]


def _tokens(text: str) -> Iterator[tuple[str, str, str, str]]:
    position = 0
    while position < len(text):
        found = _TOKEN.match(text, position)
        if found is None or found.end() == position:
            return
        position = found.end()
        if any(found.groups()):
            yield found[1] or "", found[2] or "", found[3] or "", found[4] or ""


def q(text: str) -> str:
    """``text`` as a quoted string atom."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def unq(atom: Node) -> str:
    """A string atom without its quotes."""
    assert isinstance(atom, str)
    return atom[1:-1].replace('\\"', '"').replace("\\\\", "\\") if atom.startswith('"') else atom


def dump(node: Node, indent: int = 0) -> str:
    """KiCad's layout: a list of atoms on one line, nested lists indented by a tab."""
    if isinstance(node, str):
        return node
    if all(isinstance(n, str) for n in node):
        return "(" + " ".join(node) + ")"
    pad = "\t" * (indent + 1)
    parts: list[str] = []
    head: list[str] = []
    for child in node:
        if isinstance(child, str) and not parts:
            head.append(child)
        else:
            parts.append(pad + dump(child, indent + 1))
    return "(" + " ".join(head) + "\n" + "\n".join(parts) + "\n" + "\t" * indent + ")"


def find(node: Node, key: str) -> list[Node]:
    """The direct children of ``node`` that are lists headed by ``key``."""
    assert isinstance(node, list)
    return [c for c in node if isinstance(c, list) and c and c[0] == key]
