"""The link's side in the status: :class:`LinkStatus`, typed, and its line in words (what
``boardctl status`` prints for ``status["remote"]`` and the phone page shows: its ``words``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class LinkStatus:
    """One board's side of the link as its service knows it now."""

    role: str  # "host" or "guest" (the joined board)
    game: str
    connected: bool  # this board is on the broker
    other_online: bool  # the other board's hello is on the broker
    ended: bool  # either board left the game (remote leave) since the other last said hello
    tracks: tuple[int, ...] | None  # the joined board's tracks (0-based; None: not known yet)
    forged: int = 0  # host: messages refused (forged, foreign, replayed from elsewhere)
    link_lost: bool = False  # guest: the host cannot be reached (and the link has not ended)
    unanswered: int = 0  # guest: entries waiting for the host's answer
    refusals: tuple[str, ...] = ()  # guest: the host's refusals of its entries, latest last

    def to_dict(self) -> dict[str, Any]:
        """``status["remote"]``, with its line in words (``words``)."""
        fields: dict[str, Any] = {"role": self.role, "game": self.game, "connected": self.connected}
        if self.role == "host":
            fields |= {"joined_online": self.other_online, "refused": self.forged}
        else:
            fields |= {
                "host_online": self.other_online,
                "link_lost": self.link_lost,
                "unanswered": self.unanswered,
                "refused": list(self.refusals),
            }
        tracks = None if self.tracks is None else list(self.tracks)
        return {**fields, "ended": self.ended, "tracks": tracks, "words": link_line(self)}


def link_line(link: LinkStatus) -> str:
    """``linked game <id>: ...`` for the host's or the joined board's side of the link."""
    if link.role == "host":
        broker = "on the broker" if link.connected else "NOT on the broker"
        other = "online" if link.other_online else "not online"
        if link.ended:
            other = "gone: the link was ENDED (remote leave)"
        mine = f"; it enters for track {', '.join(str(t + 1) for t in link.tracks or (1,))}"
        plural = "s" if link.forged != 1 else ""
        tail = f"; {link.forged} forged or foreign message{plural} refused" if link.forged else ""
        return (
            f"linked game {link.game}: hosted here, {broker}; the joined board {other}{mine}{tail}"
        )
    if link.ended:
        state = "the link was ENDED (remote leave): the board shows the host's last state"
    elif link.link_lost:
        where = "the broker" if not link.connected else "the host"
        state = f"LINK LOST (cannot reach {where}): the board shows the host's last state"
    else:
        state = "host reachable"
    line = f"linked game {link.game}: joined, {state}"
    if link.unanswered:
        s = "ies" if link.unanswered != 1 else "y"
        line += f"; {link.unanswered} entr{s} waiting for the host"
    if link.refusals:
        line += f"; the host refused: {link.refusals[-1]}"
    return line
