"""``boardctl remote``: link this board with a board in another home (docs/remote.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from boardctl.cli.verbs import add_target_options, journal_path, socket_path
from boardctl.errors import BoardError, ControlError, OptionError

if TYPE_CHECKING:
    from boardctl.config import Config
    from boardctl.remote.paired import Pairing

RESTART = "restart the service (sudo systemctl restart boardctl): it reads the link when it starts"
ROLES = {"host": "hosts game {}", "guest": "plays game {} (joined)"}
HELP = (
    "link two boards in two homes into one game over an MQTT broker: `remote invite` on the "
    "host shows a code, `remote join CODE` on the other board; `remote leave` unlinks"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=["invite", "join", "leave", "status"],
        help="invite: host the game and show its code (again); join CODE: link to the host; "
        "leave: unlink; status: show the link",
    )
    parser.add_argument("code", nargs="?", metavar="CODE", help="join: the host's code")
    parser.add_argument(
        "--new", action="store_true", help="invite: a new code (a board joined with the old "
        "one can no longer enter scores)"
    )  # fmt: skip
    parser.add_argument("--tracks", metavar="N[,N]", help="invite: the tracks the joined "
                        "board enters for (2 unless given); the host refuses others")  # fmt: skip
    add_target_options(parser, "the board's journal (its folder keeps the link, remote.json)")


def run(args: argparse.Namespace) -> int:
    from boardctl.config import load_config
    from boardctl.remote import link_path, paired

    config = load_config(args.config)
    where = link_path(journal_path(args))
    if args.code is not None and args.action != "join":
        raise OptionError(f"remote {args.action} takes no code (remote join CODE does)")
    current = paired.load(where)
    if args.tracks is not None and args.action != "invite":
        raise OptionError("--tracks is remote invite's (the host says whose tracks are whose)")
    if args.action == "status":
        not_linked = "this board is not linked (boardctl remote invite, or remote join CODE)"
        print(_describe(current, config) if current else not_linked)
        return 0
    if args.action == "invite":
        _invite(where, current, config, new=args.new, tracks=args.tracks)
    elif args.action == "join":
        _join(where, current, args.code, config)
    else:
        _leave(where, current, config)
    print(_tell_service(args))
    return 0


def _tell_service(args: argparse.Namespace) -> str:
    """Ask the running service to read the link again (``relink``); what it plays now."""
    from boardctl.service import client

    try:
        running = client.request(socket_path(args), {"op": "relink"})
    except client.ServiceDown:
        return "the service is not running: it reads the link when it starts"
    except ControlError as exc:
        return f"the running service did not take the link ({exc}): {RESTART}"
    role = running.get("role") if isinstance(running, dict) else None
    if role not in ROLES:
        return "the running service plays this board alone now"
    return "the running service " + ROLES[str(role)].format(running.get("game"))


def _leave(where: Path, current: Pairing | None, config: Config) -> None:
    from boardctl.remote import paired
    from boardctl.remote.broker import say_bye

    if current is None:
        print("this board is not linked")
        return
    try:
        say_bye(current, config.mqtt)
        print("the other board is told the link has ended")
    except BoardError as exc:
        print(f"the other board is not told ({exc}): it will show the link lost")
    paired.remove(where)
    print(f"unlinked: this board no longer plays game {current.game} ({where} removed)")


def _invite(
    where: Path, current: Pairing | None, config: Config, *, new: bool, tracks: str | None
) -> None:
    from dataclasses import replace

    from boardctl.remote import paired
    from boardctl.remote.messages import new_secret

    if current is not None and current.role == "guest":
        raise OptionError("this board has joined another board's game: boardctl remote leave first")
    chosen = paired.parse_tracks(tracks) if tracks is not None else None
    if current is None or new:
        current = paired.save(where, paired.Pairing("host", new_secret(), tracks=chosen or (1,)))
    elif chosen is not None and chosen != current.tracks:
        current = paired.save(where, replace(current, tracks=chosen))
    print(f"code: {current.code}")
    print(_describe(current, config))
    print(f"on the other board: boardctl remote join {current.code}")
    print("the code is the link's secret: say it to the other home only")
    _network_hint()


def _join(where: Path, current: Pairing | None, code: str | None, config: Config) -> None:
    from boardctl.remote import paired
    from boardctl.remote.messages import decode_code

    if code is None:
        raise OptionError("remote join needs the host's code: boardctl remote join CODE")
    secret = decode_code(code)
    if current is not None:
        if current.role == "guest" and current.secret == secret:
            print(_describe(current, config))
            return
        raise OptionError(
            f"this board is already linked ({current.role} of game {current.game}): "
            "boardctl remote leave first"
        )
    print(_describe(paired.save(where, paired.Pairing("guest", secret)), config))
    _network_hint()


def _describe(link: Pairing, config: Config) -> str:
    from boardctl.mqtt.connection import port
    from boardctl.remote.messages import topic

    mqtt = config.mqtt
    role = "hosts the game" if link.role == "host" else "has joined the host's game"
    tracks = ", ".join(str(t + 1) for t in link.tracks)
    whose = [f"the joined board enters for track {tracks}"] if link.role == "host" else []
    return "\n".join(
        [
            f"this board {role} {link.game} (linked since {link.since})",
            f"broker: {mqtt.host}:{port(mqtt)}{' with TLS' if mqtt.tls else ''} "
            "(both boards' [mqtt] must name the same broker)",
            f"topics: {topic(mqtt.prefix, link.game, '#')}",
            f"link key: {link.key_id} (the same on both boards)",
            *whose,
        ]
    )


UNIT = Path("/etc/systemd/system/boardctl.service")
DROP_IN = UNIT.parent / "boardctl.service.d" / "remote.conf"


def _network_hint() -> None:
    """On an installed board whose service has no network yet: how to give it the broker."""
    if UNIT.exists() and not DROP_IN.exists():
        print(
            "the installed service has no network (PrivateNetwork=yes): give it the broker with "
            "sudo BOARDCTL_REMOTE=yes sh boardctl/systemd/install.sh (docs/remote.md)"
        )
