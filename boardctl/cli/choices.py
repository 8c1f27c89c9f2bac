"""Choices of an option read from the table that defines them, only when argparse asks
(:class:`Names`), so building the parser imports none of those tables."""

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
