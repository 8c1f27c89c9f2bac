"""The link in the board's service: started by :func:`boardctl.service.app.build`.

Nothing happens unless the board is linked (``remote.json`` beside the
journal, made by ``boardctl remote invite``/``join``); paho-mqtt is imported
only then. The link is read when the service starts: after ``remote invite``,
``join`` or ``leave``, restart the service. A hosting board gets
:class:`~boardctl.remote.host.HostLink` (:func:`attach`); a joined board's
keeper becomes a :class:`~boardctl.remote.joined.JoinedKeeper` (:func:`joined`),
which :func:`attach` then connects to the loop.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boardctl.config import Config
    from boardctl.service.loop import ServiceLoop

log = logging.getLogger(__name__)


def _link(journal: Path) -> Any:
    """This board's pairing, None without one (or with one that cannot be read: logged)."""
    from boardctl.remote.pairing import FILE

    if not (journal.parent / FILE).exists():
        return None
    from boardctl.remote import pairing
    from boardctl.remote.protocol import RemoteError

    try:
        return pairing.load(journal.parent / FILE)
    except RemoteError as exc:
        log.error("remote: the link is not started: %s", exc)
        return None


def joined(config: Config, journal: Path, own: Any, clock: Callable[[], float]) -> Any:
    """The keeper the service uses: ``own``, or a :class:`JoinedKeeper` around it when this
    board has joined a host's game."""
    link = _link(journal)
    if link is None or link.role != "guest":
        return own
    from boardctl.errors import BoardError
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


def attach(config: Config, journal: Path, loop: ServiceLoop, handle: Any) -> Any:
    """The running link (its ``close`` ends it), or None when this board is not linked.

    A joined board's keeper (:func:`joined`) is told to show the host's board as it comes;
    a hosting board gets its :class:`~boardctl.remote.host.HostLink`, which runs the joined
    board's commands through ``handle``, the control socket's handler (request ids and all).
    """
    from boardctl.remote.joined import JoinedKeeper

    keeper = loop.keeper
    if isinstance(keeper, JoinedKeeper):
        from boardctl.service.loop import Call

        def changed() -> None:
            keeper.speak(loop.dispatcher.committed, loop.dispatcher.refused)  # in the voice
            loop.keeper_changed()

        keeper.on_change = lambda: loop.post(Call(changed))
        loop.post(Call(changed))
        return keeper.guest
    link = _link(journal)
    if link is None or link.role != "host":
        return None
    from boardctl.errors import BoardError
    from boardctl.remote.host import HostLink
    from boardctl.remote.store import ANSWERS_FILE, Answers
    from boardctl.service.once import exactly_once

    try:
        answers = Answers(journal.parent / ANSWERS_FILE)
        host = HostLink(
            link,
            config.mqtt,
            post=loop.post,
            handle=handle,
            pressed=exactly_once(lambda request: _pressed(loop, request), loop.keeper),
            state=loop.requests.state,
            watch=loop.watch,
            answers=answers,
            clock=loop.clock,
            refuse=lambda request, error: _refused(loop, request, error),
            games=lambda: _games(journal, link),
        )
    except BoardError as exc:  # no paho-mqtt, bad TLS files, the answers unreadable
        log.error("remote: the link is not started: %s", exc)
        return None
    loop.requests.parts["remote"] = host.status
    loop.requests.invite = lambda: {"code": link.code, "game": link.game}
    log.info("remote: hosting game %s on %s", link.game, config.mqtt.host)
    return host


def _pressed(loop: ServiceLoop, request: dict[str, Any]) -> Any:
    """An entry of the joined board's buttons, with its meaning in the phase (as
    :meth:`boardctl.service.dispatch.Dispatcher.run_buttons` gives the host's own)."""
    from boardctl.game.commands import parse_board_command

    return loop.dispatcher.execute(loop.keeper.button_command(parse_board_command(request)))


def _refused(loop: ServiceLoop, request: dict[str, Any], error: Any) -> None:
    """An entry of the joined board refused by the link (not its track): the refusal's sign on
    the host's LEDs, which the joined board shows too, and its cue, as the engine's refusals."""
    from boardctl.errors import BoardError, refusal_of
    from boardctl.game.commands import parse_board_command

    screen = loop.dispatcher.screen
    screen.flash_error(refusal_of(error), str(error))
    screen.show_durable(at_once=True)
    try:
        command = parse_board_command(request)
    except BoardError:
        return
    for listener in loop.dispatcher.refused:
        listener(command, error)


GAMES_BYTES = 48 * 1024  # the newest finished games that fit in one message


def _games(journal: Path, link: Any) -> dict[str, Any] | None:
    """The linked game's newest finished games (since the link was made), as a ``result``
    message's body, or None before the first one ends."""
    from boardctl.results.board import board_id
    from boardctl.results.kept import encode_games
    from boardctl.results.source import load_games

    board = board_id(journal.parent)
    since = link.since.rstrip("Z")  # to the second; a result's end has its milliseconds
    games = [g for g in load_games(journal) if g.result.board == board and g.result.end >= since]
    chosen: list[Any] = []
    for game in reversed(games):
        if len(encode_games([game, *chosen])) > GAMES_BYTES:
            break
        chosen.insert(0, game)
    if not chosen:
        return None
    return {"board": board, "games": encode_games(chosen)}
