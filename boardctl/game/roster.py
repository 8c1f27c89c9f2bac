"""The player list: names known across games, kept with the match setup.

A *roster* is the list of players a board knows (``set roster``; empty by
default, as in every journal written before it existed). It is part of the
setup, so it is journalled with every game and carried from game to game.
When it is not empty, the track names must be its players: a one-seat track
is named after its player, a partnership after its players (``Alice & Carol``,
``Al, Bea & Cy``); names are matched whatever their case and spacing and
written as the roster spells them, so ``alice`` and ``Alice`` are one player.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from boardctl.errors import EntryError

MAX_PLAYERS = 200
MAX_NAME = 24


def player_key(name: str) -> str:
    """How player names are compared: case and spacing do not matter."""
    return " ".join(name.split()).casefold()


def members(name: str, size: int) -> tuple[str, ...]:
    """The players of a track named ``name`` with ``size`` seats.

    A partnership track named ``"Alice & Carol"`` (or ``"Al, Bea & Cy"``) has
    those players; a name that does not split into ``size`` players is the
    team's own name, its one "player".
    """
    if size <= 1:
        return (name,)
    parts = tuple(part.strip() for part in re.split(r",|&", name))
    if len(parts) == size and all(parts):
        return parts
    return (name,)


def team_name(players: Sequence[str]) -> str:
    """``Alice``, ``Alice & Carol``, ``Al, Bea & Cy``: a track named after its players."""
    if len(players) == 1:
        return players[0]
    return f"{', '.join(players[:-1])} & {players[-1]}"


def check_roster(value: Any) -> tuple[str, ...]:
    """Validate a player list: distinct names (whatever their case), each 1-24 characters."""
    if not isinstance(value, list | tuple) or not all(isinstance(n, str) for n in value):
        raise EntryError("roster must be a list of player names")
    names = tuple(" ".join(n.split()) for n in value)
    if len(names) > MAX_PLAYERS:
        raise EntryError(f"a roster holds at most {MAX_PLAYERS} players, not {len(names)}")
    seen: dict[str, str] = {}
    for name in names:
        if not name or len(name) > MAX_NAME:
            raise EntryError(f"a player's name is 1-{MAX_NAME} characters, not {name!r}")
        if re.search(r"[,&]", name):
            raise EntryError(f"a player's name may not contain ',' or '&' ({name!r})")
        key = player_key(name)
        if key in seen:
            raise EntryError(f"{name!r} is on the roster twice (as {seen[key]!r})")
        seen[key] = name
    return names


def on_roster(
    names: tuple[str, ...], roster: tuple[str, ...], teams: Sequence[Sequence[int]]
) -> tuple[str, ...]:
    """Track ``names`` written as the roster spells its players; refuse a player not on it.

    With an empty roster the names are free text and stay as they are.
    """
    if not roster:
        return names
    known = {player_key(name): name for name in roster}
    written = []
    for track, name in enumerate(names):
        size = len(teams[track]) if track < len(teams) else 1
        players = members(name, size)
        unknown = [p for p in players if player_key(p) not in known]
        if unknown:
            raise EntryError(
                f"{', '.join(map(repr, unknown))} {'is' if len(unknown) == 1 else 'are'} not "
                f"on the roster ({', '.join(roster)}); add players with `boardctl set roster`"
            )
        full = team_name([known[player_key(p)] for p in players])
        if len(full) > MAX_NAME:
            raise EntryError(f"the track name {full!r} is over {MAX_NAME} characters")
        written.append(full)
    return tuple(written)


def check_distinct(names: Sequence[str], teams: Sequence[Sequence[int]]) -> None:
    """Refuse a player named on two tracks, or twice in a team (``set names Ann,Ann``).

    Checked when names are entered, not when a journal is replayed, so an
    older journal that has such names still reads.
    """
    seen: dict[str, str] = {}
    for track, name in enumerate(names):
        size = len(teams[track]) if track < len(teams) else 1
        for player in members(name, size):
            key = player_key(player)
            if key in seen:
                where = f"in {name!r}" if seen[key] == name else f"({seen[key]!r} and {name!r})"
                raise EntryError(
                    f"{player!r} is named twice {where}: give each track a different player"
                )
            seen[key] = name
