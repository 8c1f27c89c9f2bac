"""The error contract: boardctl raises only its own errors, each a BoardError that also
inherits the fitting builtin (so ``except ValueError`` keeps working)."""

from __future__ import annotations

import ast
import builtins
import inspect
from pathlib import Path

import pytest

from boardctl import errors

PACKAGE = Path(__file__).resolve().parents[1] / "boardctl"
# Not errors raised on purpose: abstract hooks ("a subclass must define this") and the end
# of a program. A module's ``__getattr__`` must raise AttributeError (PEP 562), see below.
ALLOWED = {"NotImplementedError", "SystemExit"}
BUILTIN_ERRORS = {
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException) and name not in ALLOWED
}


def _raised_name(node: ast.Raise) -> str | None:
    """The name raised by ``raise Name`` or ``raise Name(...)``, if it is a plain name."""
    target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return target.id if isinstance(target, ast.Name) else None


def bare_builtin_raises(source: str) -> list[tuple[int, str]]:
    """(line, name) of every ``raise`` of a builtin exception in ``source``."""
    tree = ast.parse(source)
    protocol = {  # raises that Python's attribute protocol asks for
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef) and function.name == "__getattr__"
        for node in ast.walk(function)
        if isinstance(node, ast.Raise) and _raised_name(node) == "AttributeError"
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None and id(node) not in protocol:
            name = _raised_name(node)
            if name in BUILTIN_ERRORS:
                found.append((node.lineno, name))
    return found


def test_no_module_raises_a_bare_builtin() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: raise {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line, name in bare_builtin_raises(path.read_text(encoding="utf-8"))
    ]
    assert not offenders, "raise a boardctl.errors class instead:\n" + "\n".join(offenders)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("raise ValueError('x')", [(1, "ValueError")]),
        ("def f():\n    raise OSError", [(2, "OSError")]),
        ("raise KeyError('k') from None", [(1, "KeyError")]),
        ("raise EntryError('x')", []),
        ("raise NotImplementedError", []),
        ("try:\n    pass\nexcept ValueError:\n    raise", []),
        ("raise exc", []),
        ("def __getattr__(name):\n    raise AttributeError(name)", []),
        ("def get(name):\n    raise AttributeError(name)", [(2, "AttributeError")]),
    ],
)
def test_the_walker_finds_bare_builtins(source: str, expected: list[tuple[int, str]]) -> None:
    assert bare_builtin_raises(source) == expected


def test_every_error_is_a_board_error_and_a_builtin() -> None:
    classes = [
        value
        for value in vars(errors).values()
        if inspect.isclass(value) and issubclass(value, BaseException)
    ]
    assert errors.BoardError in classes
    for cls in classes:
        assert issubclass(cls, errors.BoardError), cls
        if cls in (errors.BoardError, errors.RulesError, errors.GameError):
            continue  # the roots of each family
        builtin_bases = [b for b in cls.__mro__ if b.__module__ == "builtins"]
        assert len(builtin_bases) > 2, f"{cls.__name__} inherits no builtin beyond Exception"


def test_the_link_raises_link_error_when_no_device_is_found() -> None:
    from boardctl.link.serial_link import PicoLink

    link = PicoLink(vid_pid="FFFF:FFFF")  # nothing has that USB id: it keeps retrying
    with pytest.raises(errors.LinkError, match="no USB serial device FFFF:FFFF"):
        link._open()
    link.close()
