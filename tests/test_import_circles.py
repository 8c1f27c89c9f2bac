"""No import circles in ``boardctl/``: the modules' imports form a graph without a cycle.

Every import a module runs counts, at its top and inside its functions (a lazy import is
still a dependency); imports under ``if TYPE_CHECKING:`` do not (they never run). An import
``from package import name`` depends on the submodule ``package.name`` when there is one,
else on the package.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "boardctl"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules of ``boardctl`` that the module ``name`` at ``path`` imports when it runs."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for statement in child.orelse:
                    visit_one(statement)
            else:
                visit_one(child)

    def visit_one(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if sub in modules else base)
        visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in modules and m != name}


def import_graph() -> dict[str, set[str]]:
    paths = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {name: imported(path, name, modules) for name, path in paths.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan), or of one importing itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def strong(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                strong(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            strong(node)
    return found


def test_no_module_of_boardctl_imports_itself_through_others() -> None:
    graph = import_graph()
    assert len(graph) > 100  # the whole package was read
    assert circles(graph) == []


def test_the_check_finds_a_circle_of_three_and_a_lazy_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    source = PACKAGE / "cli" / "__init__.py"
    modules = set(import_graph())
    assert "boardctl.errors" in imported(source, "boardctl.cli", modules)  # a top-level import
    assert "boardctl.game.commands" in import_graph()["boardctl.game.keeper"]


def test_the_engines_commands_reach_no_machine_keeper_or_store() -> None:
    # game/commands.py is a leaf of the engine: it parses and checks commands with the rules'
    # tables and the setup's checks, and imports nothing that runs a game or keeps one
    graph = import_graph()
    reached: set[str] = set()
    todo = ["boardctl.game.commands"]
    while todo:
        for other in graph[todo.pop()] - reached:
            reached.add(other)
            todo.append(other)
    above = ("machine", "keeper", "history", "view", "buttons", "shown", "past")
    assert not reached & {f"boardctl.game.{name}" for name in above}, sorted(reached)
    assert not any(m.startswith(("boardctl.store", "boardctl.service")) for m in reached)
    assert "boardctl.game.commands" not in reached
