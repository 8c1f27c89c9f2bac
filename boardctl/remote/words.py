"""The link in words: the line ``boardctl status`` prints for ``status["remote"]`` (and the
phone page shows: its ``words``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def link_line(remote: Mapping[str, Any]) -> str:
    """``linked game <id>: ...`` for the host's or the joined board's side of the link."""
    game = remote.get("game", "?")
    if remote.get("role") == "host":
        broker = "on the broker" if remote.get("connected") else "NOT on the broker"
        other = "online" if remote.get("joined_online") else "not online"
        refused = int(remote.get("refused") or 0)
        tail = f"; {refused} forged or foreign message{'s' if refused != 1 else ''} refused"
        if remote.get("ended"):
            other = "gone: the link was ENDED (remote leave)"
        tracks = remote.get("tracks") or [1]
        mine = f"; it enters for track {', '.join(str(int(t) + 1) for t in tracks)}"
        return f"linked game {game}: hosted here, {broker}; the joined board {other}" + (
            mine + (tail if refused else "")
        )
    if remote.get("ended"):
        state = "the link was ENDED (remote leave): the board shows the host's last state"
    elif remote.get("link_lost"):
        where = "the broker" if not remote.get("connected") else "the host"
        state = f"LINK LOST (cannot reach {where}): the board shows the host's last state"
    else:
        state = "host reachable"
    line = f"linked game {game}: joined, {state}"
    waiting = int(remote.get("unanswered") or 0)
    if waiting:
        line += f"; {waiting} entr{'ies' if waiting != 1 else 'y'} waiting for the host"
    refusals = remote.get("refused") or []
    if refusals:
        line += f"; the host refused: {refusals[-1]}"
    return line


def with_words(remote: dict[str, Any]) -> dict[str, Any]:
    """``remote`` with its line in words, ``words``."""
    return {**remote, "words": link_line(remote)}
