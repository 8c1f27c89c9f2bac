"""The link in the board's service: started by :func:`boardctl.service.app.build`, started, ended
or changed on ``relink`` while it runs, and the link-ended sign (docs/remote.md). Nothing happens
unless the board is linked (paho-mqtt is imported only then)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardctl.errors import BoardError
from boardctl.remote import link_path
from boardctl.service.loop import Call, ServiceLoop

if TYPE_CHECKING:
    from boardctl.config import Config
    from boardctl.remote.host import HostLink
    from boardctl.remote.joined import JoinedKeeper
    from boardctl.remote.paired import Pairing
    from boardctl.view import ViewExtra

log = logging.getLogger(__name__)

ENDED_SHOWN = 10.0  # seconds the link-ended sign stays after the link ended here


def _link(journal: Path) -> Any:
    """This board's pairing, None without one (or with one that cannot be read: logged)."""
    where = link_path(journal)
    if not where.exists():
        return None  # (nothing of the link loaded)
    from boardctl.remote import paired
    from boardctl.remote.messages import RemoteError

    try:
        return paired.load(where)
    except RemoteError as exc:
        log.error("remote: the link is not started: %s", exc)
        return None


def joined(
    config: Config, journal: Path, own: Any, clock: Callable[[], float], link: Any = None
) -> Any:
    """The keeper the service uses: ``own``, or a :class:`JoinedKeeper` around it when this
    board has joined a host's game (``link``, else the link file's)."""
    link = link or _link(journal)
    if link is None or link.role != "guest":
        return own
    from boardctl.remote.guest import GuestLink
    from boardctl.remote.joined import JoinedKeeper
    from boardctl.remote.store import OUTBOX_FILE, Outbox

    try:
        outbox = Outbox(journal.parent / OUTBOX_FILE, link.game)
        guest = GuestLink(link, config.mqtt, outbox, clock=clock)
    except BoardError as exc:  # no paho-mqtt, bad TLS files, the outbox unreadable
        log.error("remote: the link is not started, playing on this board alone: %s", exc)
        return own
    log.info("remote: joined game %s on %s", link.game, config.mqtt.host)
    return JoinedKeeper(own, guest)


class Remote:
    """The board's link in its running service (see the module); :meth:`close` ends it
    (``handle``: a :class:`~boardctl.remote.host.HostLink`'s)."""

    def __init__(self, config: Config, journal: Path, loop: ServiceLoop, handle: Any) -> None:
        self._config, self._journal, self._loop, self._handle = config, journal, loop, handle
        self.host: HostLink | None = None
        self.ended_at: float | None = None  # when the link ended here (the sign's start)
        loop.view_extras.append(self._extra)
        loop.add_timer(self._deadline, self._tick)
        loop.dispatcher.committed.append(self._unsign)
        loop.requests.relink = self.relink
        loop.panel.takes_new_game = lambda: self.joined is None  # a joined board: the host's
        loop.requests.records_due = self._records_due
        self._wire_joined()
        self._start_host(_link(journal))

    @property
    def joined(self) -> Any:
        """The joined board's keeper, None unless this board has joined a game (never before
        its module is loaded: a board that never joined does not load it to find that out)."""
        joined = sys.modules.get("boardctl.remote.joined")
        keeper = self._loop.keeper
        return keeper if joined and isinstance(keeper, joined.JoinedKeeper) else None

    def _records_due(self) -> tuple[int, int]:
        """What the ``records`` request must count: a joined board's own journal (its keeper
        shows the host's game) and the host's results it keeps; else the board's journal."""
        joined = self.joined
        if joined is None:
            return int(self._loop.keeper.status()["seq"]), 0
        return int(joined.own.status()["seq"]), joined.guest.outbox.results_kept

    def relink(self) -> dict[str, Any]:
        """Read the link file again and start, end or change the link to match it."""
        link, old = _link(self._journal), self.joined  # old: the joined keeper, if any
        running = old.guest.link if old is not None else getattr(self.host, "link", None)
        # the same link (a change of code, side or tracks starts it again): nothing to do
        if running and link and running == replace(link, since=running.since):
            return self._said()
        if old is not None:
            self._swap(old.own)
            old.guest.close()
        self._stop_host()
        if running is not None and (link is None or link.secret != running.secret):
            self._ended_here()  # not when only the joined board's tracks changed
        if link is not None and link.role == "guest":
            keeper = joined(self._config, self._journal, self._loop.keeper, self._loop.clock, link)
            if keeper is not self._loop.keeper:
                self._swap(keeper)
                self._wire_joined()
                self.ended_at = None
        self._start_host(link)
        return self._said()

    def _said(self) -> dict[str, Any]:
        joined = self.joined  # the link now: a joined game's, a hosted one's, or none
        link = joined.guest.link if joined is not None else getattr(self.host, "link", None)
        return {"role": None} if link is None else {"role": link.role, "game": link.game}

    # --- the link-ended sign ---------------------------------------------------------
    def _ended_here(self) -> None:
        self.ended_at = self._loop.clock()
        self._loop.redraw()

    def _unsign(self, *_entry: object) -> None:
        self.ended_at = None  # an entry: the board plays on

    def _extra(self, extra: ViewExtra) -> ViewExtra:
        shown = self.ended_at is not None and not extra.link_ended
        return replace(extra, link_ended=True) if shown else extra

    def _deadline(self) -> float | None:
        return None if self.ended_at is None else self.ended_at + ENDED_SHOWN

    def _tick(self, now: float) -> None:
        if self.ended_at is not None and now >= self.ended_at + ENDED_SHOWN:
            self.ended_at = None

    # --- each side ---------------------------------------------------------------------
    def _swap(self, keeper: Any) -> None:
        """The board plays ``keeper``'s game from now on (a joined game's, or its own)."""
        loop = self._loop
        loop.keeper = keeper
        loop.panel.signoff = keeper.waiting_signoff
        loop.show_durable()

    def _wire_joined(self) -> None:
        """A joined board's keeper shows the host's board (and speaks its entries) as it comes."""
        keeper: JoinedKeeper | None = self.joined
        loop = self._loop
        if keeper is None:
            return

        def changed() -> None:
            if loop.keeper is keeper:
                keeper.speak(loop.dispatcher.committed, loop.dispatcher.refused)  # in the voice
                loop.show_durable()

        keeper.on_change = lambda: loop.post(Call(changed))
        loop.post(Call(changed))

    def _start_host(self, link: Pairing | None) -> None:
        if link is None or link.role != "host":
            return
        from boardctl.remote.host import HostLink

        loop = self._loop
        try:
            host = HostLink(link, self._config.mqtt, loop, self._handle, self._journal)
        except BoardError as exc:  # no paho-mqtt, bad TLS files, the answers unreadable
            log.error("remote: the link is not started: %s", exc)
            return
        host.on_end = lambda: loop.post(Call(self._ended_here))
        self.host = host
        loop.requests.parts["remote"] = lambda: host.status().to_dict()
        loop.requests.invite = lambda: {"code": link.code, "game": link.game}
        log.info("remote: hosting game %s on %s", link.game, self._config.mqtt.host)

    def _stop_host(self) -> None:
        host, self.host = self.host, None
        self._loop.requests.parts.pop("remote", None)
        self._loop.requests.invite = dict
        if host is not None:
            host.close()

    def close(self) -> None:
        self._stop_host()
        joined = self.joined
        if joined is not None:
            joined.guest.close()
