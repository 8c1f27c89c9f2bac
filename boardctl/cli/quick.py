"""A plain command line read without :mod:`argparse`, exactly as argparse reads it.

Importing argparse, the translations it asks for (``gettext``, which imports
``locale`` on the first message) and building the verb's parser cost a verb
the running service answers about a sixth of its time. A line typed as the
help shows it (``boardctl peg 1 12 --kind hand``, ``boardctl status --json``)
does not need them: :func:`parse` reads it from the verb's own
``add_arguments``, called on a :class:`Spec` that records what it declares,
and gives the same namespace argparse would.

Anything else returns ``None`` and argparse reads the line, with its own
messages: an option that is not one of the verb's exact names (an
abbreviation, ``--opt=value``, ``-h``, ``--``), any other token starting with
``-`` (a negative number), a positional after an option, a repeated option,
two options of one exclusive group, a value argparse would refuse (its type
or its choices), a missing one, and a verb that declares what this reader
does not know (a sub-parser, an ``append`` action, a custom type).
``tests/test_cli_quick.py`` checks that every line read here is read the same
by argparse.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

_TYPES = (None, int, float, str)  # what a value may be converted with (argparse calls the same)


class Unsupported(Exception):
    """The verb declares something this reader leaves to argparse."""


class _Action:
    __slots__ = ("choices", "dest", "flag", "group", "nargs", "type")

    def __init__(self, dest: str, nargs: Any, kind: Any, choices: Any, flag: bool) -> None:
        self.dest, self.nargs, self.type, self.choices = dest, nargs, kind, choices
        self.flag = flag  # store_true
        self.group: int | None = None


class Spec:
    """Records a verb's ``add_arguments`` (the subset of argparse's calls read here)."""

    def __init__(self) -> None:
        self.positionals: list[_Action] = []
        self.options: dict[str, _Action] = {}
        self.defaults: dict[str, Any] = {}
        self._groups = 0

    def add_argument(self, *names: str, **kwargs: Any) -> _Action:
        """As :meth:`argparse.ArgumentParser.add_argument`, for store and store_true actions."""
        action = kwargs.pop("action", None)
        nargs, kind = kwargs.pop("nargs", None), kwargs.pop("type", None)
        choices, default = kwargs.pop("choices", None), kwargs.pop("default", None)
        dest = kwargs.pop("dest", None)
        kwargs.pop("help", None)
        kwargs.pop("metavar", None)
        if kwargs.pop("required", False) or kwargs or kind not in _TYPES or not names:
            raise Unsupported(names)
        if action not in (None, "store", "store_true") or (action and nargs is not None):
            raise Unsupported(names)
        if isinstance(default, str) and kind not in (None, str):
            raise Unsupported(names)  # argparse would convert it
        flag = action == "store_true"
        if not names[0].startswith("-"):
            if len(names) > 1 or nargs not in (None, "?") or flag or default is not None:
                raise Unsupported(names)
            if nargs is None and any(p.nargs == "?" for p in self.positionals):
                raise Unsupported(names)
            made = _Action(dest or names[0], nargs, kind, choices, False)
            self.positionals.append(made)
            self.defaults[made.dest] = None
            return made
        if nargs not in (None, "+") or not all(n.startswith("-") for n in names):
            raise Unsupported(names)
        longs = [n for n in names if n.startswith("--")]
        dest = dest or (longs[0] if longs else names[0]).lstrip("-").replace("-", "_")
        made = _Action(dest, nargs, kind, choices, flag)
        for name in names:
            self.options[name] = made
        self.defaults[dest] = (False if default is None else default) if flag else default
        return made

    def add_mutually_exclusive_group(self, *, required: bool = False) -> _Group:
        """A group of which at most one option may be given."""
        if required:
            raise Unsupported("a required group")
        self._groups += 1
        return _Group(self, self._groups)

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Spec:
        """Groups only order the help: the options are the verb's."""
        return self

    def set_defaults(self, **kwargs: Any) -> None:
        """Values set whatever the line says (``set_defaults``)."""
        self.defaults.update(kwargs)

    def __getattr__(self, name: str) -> Any:
        raise Unsupported(name)


class _Group:
    def __init__(self, spec: Spec, number: int) -> None:
        self._spec, self._number = spec, number

    def add_argument(self, *names: str, **kwargs: Any) -> _Action:
        made = self._spec.add_argument(*names, **kwargs)
        if not names[0].startswith("-"):
            raise Unsupported(names)
        made.group = self._number
        return made

    def __getattr__(self, name: str) -> Any:
        raise Unsupported(name)


def spec_of(add_arguments: Callable[[Any], None]) -> Spec | None:
    """The recorded declarations of a verb, or ``None`` when argparse must read it."""
    spec = Spec()
    try:
        add_arguments(spec)
    except Unsupported:
        return None
    return spec


def parse(spec: Spec, argv: Sequence[str]) -> dict[str, Any] | None:
    """The values argparse would give the verb for ``argv`` (the words after it), or ``None``."""
    values = dict(spec.defaults)
    count = 0
    while count < len(argv) and not argv[count].startswith("-"):
        count += 1
    required = sum(p.nargs is None for p in spec.positionals)
    if not required <= count <= len(spec.positionals):
        return None
    for action, word in zip(spec.positionals, argv[:count], strict=False):
        value = _value(action, word)
        if value is _REFUSED:
            return None
        values[action.dest] = value
    return _options(spec, argv[count:], values)


def _options(spec: Spec, words: Sequence[str], values: dict[str, Any]) -> dict[str, Any] | None:
    seen: set[str] = set()
    groups: set[int] = set()
    at = 0
    while at < len(words):
        action = spec.options.get(words[at])
        if action is None or action.dest in seen or action.group in groups:
            return None
        seen.add(action.dest)
        if action.group is not None:
            groups.add(action.group)
        at += 1
        if action.flag:
            values[action.dest] = True
            continue
        end = at
        while end < len(words) and not words[end].startswith("-"):
            end += 1
            if action.nargs is None:
                break
        if end == at:
            return None  # the option's value is missing
        converted = [_value(action, word) for word in words[at:end]]
        if _REFUSED in converted:
            return None
        values[action.dest] = converted if action.nargs == "+" else converted[0]
        at = end
    return values


_REFUSED = object()


def _value(action: _Action, word: str) -> Any:
    """``word`` converted and checked as argparse does, else :data:`_REFUSED`."""
    try:
        value = word if action.type is None else action.type(word)
    except (TypeError, ValueError):
        return _REFUSED
    if action.choices is not None and value not in action.choices:
        return _REFUSED
    return value
