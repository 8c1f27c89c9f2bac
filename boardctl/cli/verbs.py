"""What the CLI verbs share: where the service is, and what to do when it is down.

When no service answers on the control socket, :func:`call` falls back to the
journal itself: ``status`` and ``history`` read it, commands are applied to it
through the same engine (same checks, same messages), and the service resumes
from it when it starts. ``press`` and ``set brightness`` / ``volume`` / ``mute`` need the service.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from boardctl.errors import ControlError

#: ``set`` keys the running service keeps (not the journal): they need the service.
SERVICE_KEPT = ("brightness", "volume", "mute")


def add_target_options(parser: Any) -> None:
    """``--config``, ``--socket`` and ``--journal`` for the CLI verbs."""
    parser.add_argument(
        "--config", metavar="PATH", help="configuration file (default /etc/boardctl/config.toml)"
    )
    parser.add_argument(
        "--socket",
        metavar="PATH",
        help="the service's control socket (default: the running service's)",
    )
    parser.add_argument(
        "--journal",
        metavar="PATH",
        help="journal used when the service is not running (default: the service's)",
    )


def _paths(args: Any) -> tuple[Path, Path]:
    from boardctl.config import load_config
    from boardctl.service import paths

    config = load_config(getattr(args, "config", None))
    socket_file = Path(args.socket) if getattr(args, "socket", None) else None
    journal = Path(args.journal) if getattr(args, "journal", None) else None
    return (
        socket_file or paths.client_socket(config),
        journal or paths.client_journal(config),
    )


def socket_path(args: Any) -> Path:
    """The control socket the verbs talk to (``--socket``, else the service's)."""
    return _paths(args)[0]


def call(args: Any, command: dict[str, Any]) -> tuple[Any, bool]:
    """Send ``command`` to the service; returns (result, True if the service answered).

    When no service is running, read-only requests read the journal and
    commands are applied to the journal directly (the same engine, so the
    same checks and messages); the service replays them when it starts.
    """
    from boardctl.service.client import ServiceDown, request
    from boardctl.service.control import READ_ONLY, encode, parse_request

    socket_file, journal = _paths(args)
    command = parse_request(encode(command))  # the same checks (and cleaning) as the service's
    op = command["op"]
    needs_service = op == "press" or (op == "set" and command.get("key") in SERVICE_KEPT)
    if op not in READ_ONLY and not needs_service:
        from boardctl.service.retry import send_once

        return send_once(socket_file, journal, command)  # one request id, retried: applied once
    try:
        return request(socket_file, command), True
    except ServiceDown:
        pass
    from boardctl.game.keeper import Scorekeeper

    op = command["op"]
    if op in READ_ONLY:
        if not journal.exists():
            raise ControlError(
                f"the boardctl service is not running and there is no journal at {journal}"
            )
        with Scorekeeper.open(journal, readonly=True) as keeper:
            if op == "status":
                return keeper.status(), False
            if op == "history":
                return keeper.history(), False
            raise ControlError(f"{op}: needs the running service")
    if op == "press" or (op == "set" and command.get("key") in SERVICE_KEPT):
        raise ControlError(
            f"{op} {command.get('button') or command.get('key')}: needs the running service "
            "(for a lasting value, set board.brightness or sound.volume / sound.mute in the config)"
        )
    from boardctl.service.handoff import apply_or_hand_over

    return apply_or_hand_over(socket_file, journal, command)  # direct only if no one else writes


def format_status(status: dict[str, Any]) -> str:
    """The status as a few readable lines."""
    tracks = status.get("tracks") or []
    dealer, to_count, winner = status.get("dealer"), status.get("to_count"), status.get("winner")
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
    for i, track in enumerate(tracks):
        notes = []
        if i == dealer:
            notes.append("dealer")
        if i == to_count:
            notes.append("to count")
        if i == winner:
            notes.append("WON")
        if i < len(pending) and pending[i]:
            notes.append(f"+{pending[i]} pending")
        if match:
            notes.append(f"game points {track.get('game_points', 0)}")
        lines.append(
            f"{track.get('name', ''):<{width}}  {track.get('front', 0):>3}  "
            f"(back {track.get('back', 0):>3})  {'  '.join(notes)}".rstrip()
        )
    from boardctl.game.integrity import damage_lines

    lines += damage_lines(status)
    link = status.get("link")
    if isinstance(link, dict):
        state = "connected" if link.get("connected") else "NOT connected: the LEDs may be dark"
        lines.append(f"LED link ({link.get('kind', '?')}): {state}")
    return "\n".join(lines)


def send(args: argparse.Namespace, command: dict[str, Any]) -> int:
    """Send ``command`` (to the service, else the journal) and print the new score."""
    result, live = call(args, command)
    status = result.get("status") if isinstance(result, dict) else None
    if isinstance(status, dict):
        print(format_status(status))
    elif isinstance(result, dict):
        print(", ".join(f"{k} {v}" for k, v in result.items()))
    if not live:
        print("(the service is not running: written to the journal directly)", file=sys.stderr)
    return 0
