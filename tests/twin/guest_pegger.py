"""Entries through the control socket, and the journal's stream, run inside the twin by its
power-cut trials.

  python guest_pegger.py new            a new game in free mode
  python guest_pegger.py run TRIAL      for each line read: one entry of 1 point on the first
                                        track; "ack N" once entry N's reply came (on disk)
  python guest_pegger.py resend TRIAL N send entry N again, same request id; print "ack N"
  python guest_pegger.py watch          "watching", then "journalled TRACK POINTS" for each
                                        peg the service journals from then on (the buttons'
                                        too): the control socket's stream sends an event only
                                        once its write is on disk

Entry N of TRIAL carries the request id TRIAL-N, made here, where the entry is made: after a
power cut the one entry in flight is sent again with its id, so it is written at most once.
"""

from __future__ import annotations

import sys

from boardctl.service.client import request, watch

SOCKET = "/run/boardctl/control.sock"
SOCKET_TRACK = 0  # the control socket's entries; the buttons enter on the other track


def peg(trial: str, number: int) -> None:
    message = {"op": "peg", "track": SOCKET_TRACK, "points": 1, "request_id": f"{trial}-{number}"}
    request(SOCKET, message, timeout=120)
    print(f"ack {number}", flush=True)


def journalled() -> None:
    stream = watch(SOCKET)
    next(stream)  # the snapshot: from here on every journalled event comes
    print("watching", flush=True)
    for message in stream:
        event = message.get("event")  # a journalled command, as the engine's event
        if isinstance(event, dict) and event.get("op") == "peg":
            print(f"journalled {event['track']} {event['points']}", flush=True)


def main(argv: list[str]) -> None:
    if argv[0] == "new":
        request(SOCKET, {"op": "new_game", "mode": "free"}, timeout=120)
    elif argv[0] == "run":
        for number, _ in enumerate(sys.stdin, 1):
            peg(argv[1], number)
    elif argv[0] == "resend":
        peg(argv[1], int(argv[2]))
    elif argv[0] == "watch":
        journalled()


if __name__ == "__main__":
    main(sys.argv[1:])
