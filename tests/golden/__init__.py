"""Golden files (this folder): compare with stored output, or rewrite them on request.

Regenerate every golden file after an intended change of the look with::

    BOARDCTL_UPDATE_GOLDEN=1 PYTHONPATH=. python -m pytest -q tests/test_render_golden.py \
        tests/test_terminal.py

then review ``git diff tests/golden`` before committing.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).resolve().parent
UPDATE = os.environ.get("BOARDCTL_UPDATE_GOLDEN") == "1"


def golden_json(name: str, actual: dict[str, Any]) -> dict[str, Any]:
    """The stored JSON ``name`` (written from ``actual`` first when updating)."""
    path = GOLDEN / name
    if UPDATE:
        path.write_text(_dump(actual), encoding="utf-8")
    assert path.exists(), f"{path} is missing; create it with BOARDCTL_UPDATE_GOLDEN=1"
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def golden_text(name: str, actual: str) -> str:
    """The stored text ``name`` (written from ``actual`` first when updating)."""
    path = GOLDEN / name
    if UPDATE:
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"{path} is missing; create it with BOARDCTL_UPDATE_GOLDEN=1"
    return path.read_text(encoding="utf-8")


def _dump(data: dict[str, Any]) -> str:
    """JSON with one line per top-level key, and one line per item of a list."""
    parts = []
    for key, value in data.items():
        if isinstance(value, list):
            items = ",\n  ".join(json.dumps(item) for item in value)
            parts.append(f"{json.dumps(key)}: [\n  {items}\n ]")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value)}")
    return "{\n " + ",\n ".join(parts) + "\n}\n"
