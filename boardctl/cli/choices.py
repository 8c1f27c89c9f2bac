"""Choices of an option read from the table that defines them, only when needed.

Every verb's options are built at start-up, and the tables behind some
choices (the link kinds, the entry kinds, the demo positions) live in modules
that take a while to import. :class:`Names` stands in for such a list: argparse
asks it only when it checks a value or prints help, so the table is written
once and ``boardctl score`` still starts fast.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any


class Names(Sequence[str]):
    """The names of ``module.attribute`` (a tuple, or a dict's keys), imported on first use."""

    def __init__(self, module: str, attribute: str) -> None:
        self._where = (module, attribute)
        self._names: tuple[str, ...] | None = None

    def _get(self) -> tuple[str, ...]:
        if self._names is None:
            module, attribute = self._where
            __import__(module)  # (importlib would import warnings for every verb)
            self._names = tuple(getattr(sys.modules[module], attribute))
        return self._names

    def __getitem__(self, index: Any) -> Any:  # int -> str, slice -> Sequence[str]
        return self._get()[index]

    def __len__(self) -> int:
        return len(self._get())

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __contains__(self, value: object) -> bool:
        return value in self._get()

    def __repr__(self) -> str:
        return f"Names({self._where[0]}.{self._where[1]})"
