"""Entries through the control socket, run inside the twin by its power-cut test.

  python guest_pegger.py new            a new game in free mode
  python guest_pegger.py run TRIAL      for each line read: one entry of 1 point, tracks in
                                        turn; "ack N" once entry N's reply came (on disk)
  python guest_pegger.py resend TRIAL N send entry N again, same request id; print "ack N"

Entry N of TRIAL carries the request id TRIAL-N, made here, where the entry is made: after a
power cut the one entry in flight is sent again with its id, so it is written at most once.
"""

from __future__ import annotations

import sys

from boardctl.service.client import request

SOCKET = "/run/boardctl/control.sock"


def peg(trial: str, number: int) -> None:
    message = {"op": "peg", "track": number % 2, "points": 1, "request_id": f"{trial}-{number}"}
    request(SOCKET, message, timeout=120)
    print(f"ack {number}", flush=True)


def main(argv: list[str]) -> None:
    if argv[0] == "new":
        request(SOCKET, {"op": "new_game", "mode": "free"}, timeout=120)
    elif argv[0] == "run":
        for number, _ in enumerate(sys.stdin, 1):
            peg(argv[1], number)
    elif argv[0] == "resend":
        peg(argv[1], int(argv[2]))


if __name__ == "__main__":
    main(sys.argv[1:])
