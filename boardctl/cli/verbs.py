"""What the CLI verbs share: where the service is, and what to do when it is down (:func:`call`:
the journal through the same engine; ``press`` and the board's own settings need the service)."""

from __future__ import annotations

import functools
import sys

from boardctl.errors import ControlError
from boardctl.notices import damage_lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from boardctl.config_file import ServiceConfig
    from boardctl.cribbage.scoring import Scoring


def add_target_options(
    parser: Any,
    journal: str | None = "journal used when the service is not running (default: the service's)",
    *,
    socket: str | None = "the service's control socket (default: the running one's)",
    config: str = "configuration file (default /etc/boardctl/config.toml)",
) -> None:
    """``--config``, ``--socket`` and ``--journal`` for the CLI verbs, each with its help (None:
    the option left out)."""
    for option, text in (("--config", config), ("--socket", socket), ("--journal", journal)):
        if text is not None:
            parser.add_argument(option, metavar="PATH", help=text)


RULES_HELP = "rule set: acc (default), polish, finnish, czech, english (see `boardctl rules`)"


def add_rules_options(parser: Any) -> None:
    """``--rules`` and ``--house-rules`` (checked when the verb runs: the parser imports none)."""
    parser.add_argument("--rules", metavar="NAME", help=RULES_HELP)
    parser.add_argument(
        "--house-rules",
        metavar="LIST",
        help="house rules instead of the rule set's own, e.g. runs-of-two,crib-four-flush (none)",
    )


def scoring_from(args: Any) -> Scoring:
    """The scoring switches ``--rules`` and ``--house-rules`` select."""
    from boardctl.cribbage.rules import scoring_for, selected

    return scoring_for(selected(args.rules, args.house_rules)[1])


def index_of(number: int, what: str = "track") -> int:
    """A 1-based track or seat number as the engine's index; refused below 1."""
    if number < 1:
        raise ControlError(f"{what} numbers start at 1, not {number}")
    return number - 1


def card_text(text: str) -> str:
    """A card as typed (``5s``, ``10♦``) in its short form (``5S``); refused if it is none."""
    from boardctl.cribbage.cards import format_card, parse_card

    return format_card(parse_card(text))


@functools.cache
def _service(config: str | None) -> ServiceConfig:
    """``[service]`` of the configuration at ``config`` (default: the system's), checked, read once
    per process (the other sections are checked where they are used)."""
    from boardctl.config_file import load_service

    return load_service(config)


def socket_path(args: Any) -> str:
    """The control socket the verbs talk to (``--socket``, else the service's)."""
    from boardctl.service.paths import client_socket_name

    return str(getattr(args, "socket", None) or client_socket_name(_service(args.config)))


def journal_name(args: Any) -> str:
    """The journal the verbs read or write when no service answers (``--journal``, else its)."""
    from boardctl.service.paths import client_journal_name

    return str(getattr(args, "journal", None) or client_journal_name(_service(args.config)))


def journal_path(args: Any) -> Path:
    from pathlib import Path

    return Path(journal_name(args))


def read_journal(journal: str, op: str) -> Any:
    """``status`` or ``history`` (``all``: every game's) of ``journal``, read-only, by replay."""
    from boardctl.game.keeper import Scorekeeper

    with Scorekeeper.open(journal, readonly=True) as keeper:
        return keeper.status() if op == "status" else keeper.history(all_games=op == "all")


def target_paths(args: Any) -> tuple[Path, Path]:
    """The control socket and the journal the verbs use."""
    from pathlib import Path

    return Path(socket_path(args)), journal_path(args)


def checked(command: dict[str, Any]) -> dict[str, Any]:
    """``command`` through the service's own checks (and cleaning), here in the process."""
    from boardctl.service.control import parse_request
    from boardctl.service.wire import encode

    return parse_request(encode(command))


def call(args: Any, command: dict[str, Any]) -> tuple[Any, bool]:
    """Send ``command``: ``(result, True if the service answered)``. A running service checks the
    request itself; without one it is checked here, then read from, or applied to, the journal."""
    from boardctl.service.client import ServiceDown, request
    from boardctl.service.wire import READ_ONLY

    socket_file = socket_path(args)
    op = command.get("op")
    needs_service = op == "press"  # a press, or a value the running board keeps
    if op == "set":
        from boardctl.service.settings import BOARD_SETTINGS

        needs_service = command.get("key") in BOARD_SETTINGS
    if op not in READ_ONLY and not needs_service:
        from boardctl.service.retry import send_once

        def direct(command: dict[str, Any]) -> tuple[Any, bool]:
            from boardctl.service.retry import apply_or_hand_over

            # checked here first; its request id kept: an entry the service got is not repeated
            return apply_or_hand_over(*target_paths(args), checked(command))

        return send_once(socket_file, command, direct)  # one id, retried: once
    try:
        return request(socket_file, command), True
    except ServiceDown:  # a status has nothing in it to check: the journal's
        command = command if command == {"op": "status"} else checked(command)
    op = command["op"]
    if op not in READ_ONLY:  # a press or a board setting
        raise ControlError(
            f"{op} {command.get('button') or command.get('key')}: needs the running service "
            "(for a lasting value, set board.brightness or sound.volume / sound.mute in the config)"
        )
    from boardctl.store.journal_file import kept_here

    journal = journal_name(args)
    if not kept_here(journal):
        raise ControlError(
            f"the boardctl service is not running and there is no journal at {journal}"
        )
    if op not in ("status", "history"):
        raise ControlError(f"{op}: needs the running service")
    return read_journal(journal, op), False


def format_status(status: dict[str, Any]) -> str:
    tracks = status.get("tracks") or []
    winner = status.get("winner")
    head = (
        f"{status.get('variant', '?')} to {status.get('target', '?')} · "
        f"{status.get('mode', '?')} · phase {status.get('phase', '?')} · "
        f"game {status.get('game_number', 1)}"
    )
    match = status.get("match_target") or 0
    if status.get("best_of"):
        head += f" of a best-of-{status['best_of']} match (first to {match} wins)"
    elif match:
        head += f" of a match to {match}"
    if status.get("rules_label", "acc") != "acc":
        head += f" · rules {status['rules_label']}"
    if status.get("confirm_result") and winner is not None:
        waiting = [t.get("name", "") for i, t in enumerate(tracks) if i not in status["confirmed"]]
        head += f" · waiting for {', '.join(waiting)} to confirm" if waiting else " · confirmed"
    lines = [head]
    width = max([len(str(t.get("name", ""))) for t in tracks] + [5])
    pending = status.get("pending") or []
    marks = (
        ("dealer", status.get("dealer")),
        ("to count", status.get("to_count")),
        ("WON", winner),
    )
    for i, track in enumerate(tracks):
        notes = [word for word, index in marks if i == index]
        if i < len(pending) and pending[i]:
            notes.append(f"+{pending[i]} pending")
        if match:
            notes.append(f"game points {track.get('game_points', 0)}")
        lines.append(
            f"{track.get('name', ''):<{width}}  {track.get('front', 0):>3}  "
            f"(back {track.get('back', 0):>3})  {'  '.join(notes)}".rstrip()
        )
    lines += damage_lines(status)
    link = status.get("link")
    if isinstance(link, dict):
        state = "connected" if link.get("connected") else "NOT connected: the LEDs may be dark"
        lines.append(f"LED link ({link.get('kind', '?')}): {state}")
    remote = status.get("remote")
    if isinstance(remote, dict):  # a board linked with another home's (boardctl.remote)
        lines.append(str(remote.get("words", "")))  # its service's words (LinkStatus)
    return "\n".join(lines)


def sender(command: dict[str, Any]) -> Callable[[argparse.Namespace], int]:
    """The ``run`` of a verb that sends ``command`` as it is (``undo``, ``redo``, ``next``)."""
    return lambda args: send(args, dict(command))


def send(args: argparse.Namespace, command: dict[str, Any]) -> int:
    """Send ``command`` (to the service, else the journal) and print the new score."""
    result, live = call(args, command)
    status = result.get("status") if isinstance(result, dict) else None
    if isinstance(status, dict):
        print(format_status(status))
    elif isinstance(result, dict):
        # as the command line writes them: "mute true", not Python's "True"
        words = {k: str(v).lower() if isinstance(v, bool) else v for k, v in result.items()}
        print(", ".join(f"{k} {v}" for k, v in words.items()))
    if not live:
        print("(the service is not running: written to the journal directly)", file=sys.stderr)
    return 0
