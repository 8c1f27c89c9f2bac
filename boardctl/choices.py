"""Choices of an option read from the table that defines them, only when argparse asks
(:class:`Names`), so building the parser imports none of those tables."""

from __future__ import annotations

import functools
import sys
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Names(Sequence[str]):
    """The names of ``module.attribute`` (a tuple, or a dict's keys), imported on first use."""

    def __init__(self, module: str, attribute: str) -> None:
        self._where = (module, attribute)

    @functools.cached_property
    def _names(self) -> tuple[str, ...]:
        module, attribute = self._where
        __import__(module)  # (importlib would import warnings for every verb)
        return tuple(getattr(sys.modules[module], attribute))

    def __getitem__(self, index: Any) -> Any:  # int -> str, slice -> Sequence[str]
        return self._names[index]

    def __len__(self) -> int:
        return len(self._names)
