"""The director's keys: a JSON file of board id -> key (hex), mode 0600, replaced atomically, at
``$XDG_STATE_HOME/boardctl/board-keys.json``; ``boardctl key add BOARD FILE`` files one."""

from __future__ import annotations

import json
from pathlib import Path

from boardctl.durable import replace_file
from boardctl.results.sign import KEY_BYTES
from boardctl.standings import StandingsError, state_path

VERSION = 1


def default_path(given: str | None = None) -> Path:
    """``given`` (a ``--keyring`` option), else the default place."""
    return Path(given) if given else state_path("board-keys.json")


def load(path: Path) -> dict[str, bytes]:
    """Every board's key (a missing file: none); :class:`StandingsError` if it is not a keyring."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise StandingsError(f"cannot read the board keys {path}: {exc}") from None
    try:
        data = json.loads(text)
        keys = data["keys"] if data.get("version") == VERSION else {"": ""}
        out = {str(board): bytes.fromhex(value) for board, value in keys.items()}
    except (ValueError, TypeError, AttributeError, KeyError):
        out = {"": b""}
    if any(len(key) != KEY_BYTES for key in out.values()):
        raise StandingsError(f"{path} is not a file of board keys (boardctl key add writes it)")
    return out


def add(path: Path, board: str, key: bytes) -> None:
    """File ``key`` for ``board`` (replacing an older one), durably."""
    keys = load(path)
    keys[board] = key
    body = json.dumps(
        {"version": VERSION, "keys": {b: k.hex() for b, k in sorted(keys.items())}}, indent=1
    )
    replace_file(path, body + "\n", private=True)
