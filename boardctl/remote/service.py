"""The link in the board's service: started by :func:`boardctl.service.app.build`.

Nothing happens unless the board is linked (``remote.json`` beside the
journal, made by ``boardctl remote invite``/``join``); paho-mqtt is imported
only then. The link is read when the service starts: after ``remote invite``,
``join`` or ``leave``, restart the service.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from boardctl.config import Config
    from boardctl.remote.host import HostLink
    from boardctl.service.loop import ServiceLoop

log = logging.getLogger(__name__)


def attach(config: Config, journal: Path, loop: ServiceLoop, handle: Any) -> HostLink | None:
    """The host's link when this board hosts a linked game, else None (with a log line why).

    ``handle`` is the control socket's request handler (request ids and all).
    """
    from boardctl.remote.pairing import FILE

    if not (journal.parent / FILE).exists():
        return None
    from boardctl.errors import BoardError
    from boardctl.remote import pairing
    from boardctl.remote.host import HostLink
    from boardctl.remote.store import ANSWERS_FILE, Answers

    try:
        link = pairing.load(journal.parent / FILE)
        if link is None:
            return None
        if link.role == "guest":
            log.warning(
                "remote: this board has joined game %s, but a joined board's service does not "
                "yet enter its scores through the host (docs/remote.md): playing on its own",
                link.game,
            )
            return None
        answers = Answers(journal.parent / ANSWERS_FILE)
        host = HostLink(
            link,
            config.mqtt,
            post=loop.post,
            handle=handle,
            state=loop.requests.state,
            watch=loop.watch,
            answers=answers,
        )
    except BoardError as exc:  # no paho-mqtt, a damaged link file, the answers unreadable
        log.error("remote: the link is not started: %s", exc)
        return None
    log.info("remote: hosting game %s on %s", link.game, config.mqtt.host)
    return host
