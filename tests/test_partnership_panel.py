"""A four-player partnership game played through the panel (MockFactory pins), to the match end.

Alice & Carol (seats 1 and 3) play Bob & Dave (seats 2 and 4) on the two tracks.
On the way: his heels from the buttons (the board asks, menu keeps it), a forgotten
menu press at the end of the play (the board asks, undo held files the entry as the
first hand count), a count out of turn refused with its sign (holes 1-2), a skunk
that pays 3 and wins the match to 3, a refusal after the game with its sign, and the
menu press that starts a new match.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory

from boardctl.board import builtin_layout, pixel
from boardctl.board.signs import SIGN_HOLES
from boardctl.board.theme import DEFAULT_THEME
from boardctl.cli.cmd_status import summary_lines
from boardctl.config import parse_config
from boardctl.game.commands import Set
from boardctl.game.keeper import Scorekeeper
from boardctl.link import RecordingLink
from boardctl.refusals import Refusal
from boardctl.service.loop import Call
from boardctl.view import ViewExtra
from tests.test_e2e import ManualClock, Rig

WHITE = (255, 255, 255)
ERROR = tuple(DEFAULT_THEME.error)
LAYOUT = builtin_layout("two-121")
# timings with room for a busy machine: a slow press is never read as held, and a pending
# amount never commits by itself before its encoder push (the debounce as in test_e2e)
TIMING = {"inputs": {"commit_idle": 5.0, "debounce": 0.002, "long_press": 1.0}}

# what each team counts (hands, crib): Bob & Dave count big, Alice & Carol small
HANDS = {0: 15, 1: 24}
CRIBS = {0: 0, 1: 20}


def _execute(rig: Rig, command: Any) -> None:
    """A command as the control socket sends it (names cannot be set with buttons)."""
    done = threading.Event()

    def run() -> None:
        rig.loop.dispatcher.execute(command)
        done.set()

    rig.loop.post(Call(run))
    assert done.wait(5)


def _view_extra(rig: Rig) -> ViewExtra:
    out: list[ViewExtra] = []
    done = threading.Event()

    def read() -> None:
        out.append(rig.loop.view().extra)
        done.set()

    rig.loop.post(Call(read))
    assert done.wait(5)
    return out[0]


def _count(rig: Rig, track: int, points: int) -> None:
    """A count in the show: a count of 0 is a menu press (the board enters it for the track due)."""
    if points:
        rig.enter(track + 1, points)
    else:
        rig.press("menu")


def _wait_past(rig: Rig, seq: int) -> None:
    """Wait until an entry after ``seq`` is in the journal."""
    rig.wait_for(lambda: rig.status()["seq"] > seq)


def _sign_lit(rig: Rig, refusal: Refusal) -> bool:
    frame = rig.link.frames[-1]
    holes = SIGN_HOLES[refusal]
    return all(
        tuple(pixel(frame, LAYOUT.led_of(track, hole))) == ERROR
        for track in (0, 1)
        for hole in range(1, holes + 1)
    )


def _first_deal(rig: Rig) -> None:
    """Seat 1 deals: heels, the play, the forgotten menu press, a refused count, the show."""
    rig.enter(1, 2)  # the starter is a jack: the dealer's team pegs his heels
    rig.wait_for(lambda: rig.status()["tracks"][0]["front"] == 2)
    status = rig.status()
    assert status["phase"] == "deal" and status["ask"]["kind"] == "heels"
    rig.sync()
    assert tuple(pixel(rig.link.frames[-1], LAYOUT.led_of(0, 0))) == WHITE  # the question
    rig.press("menu")  # it was his heels: menu keeps it and starts the play
    assert rig.status()["phase"] == "play" and rig.status()["ask"] is None
    rig.enter(2, 2)  # seat 2 leads, seat 3 pairs it ... a fifteen for Bob & Dave
    rig.enter(1, 1)  # a go for Alice & Carol
    rig.wait_for(lambda: [t["front"] for t in rig.status()["tracks"]] == [3, 2])
    # the play is over, but nobody presses menu: seat 2 counts a 12 hand at once
    rig.enter(2, 12)
    rig.wait_for(lambda: rig.status()["tracks"][1]["front"] == 14)
    status = rig.status()
    assert status["phase"] == "play"
    assert status["ask"] == {"track": 1, "points": 12, "kind": "pegging", "other": "hand"}
    rig.press("undo", hold=TIMING["inputs"]["long_press"] + 0.3)  # undo held: the show's count
    rig.wait_for(lambda: rig.status()["phase"] == "show")
    status = rig.status()
    assert status["to_count"] == 0 and status["tracks"][1]["front"] == 14  # seat 3 is next
    # Bob & Dave count again out of turn: refused, with the not-your-turn sign
    rig.enter(2, 8)
    rig.wait_for(lambda: _view_extra(rig).refusal == Refusal.NOT_YOUR_TURN)
    rig.sync()
    assert _sign_lit(rig, Refusal.NOT_YOUR_TURN)
    assert rig.status()["tracks"][1]["front"] == 14  # nothing changed
    for track, points in ((0, HANDS[0]), (1, HANDS[1]), (0, HANDS[0]), (0, CRIBS[0])):
        assert rig.status()["to_count"] == track
        before = rig.status()["seq"]
        _count(rig, track, points)
        _wait_past(rig, before)


def _deal(rig: Rig) -> None:
    """A deal without slips: the play, then every count of the show in turn."""
    dealer = rig.status()["dealer"]
    pone = 1 - dealer
    rig.press("menu")  # to the play
    before = rig.status()["seq"]
    rig.enter(pone + 1, 2)
    rig.wait_for(lambda: rig.status()["seq"] > before)
    if rig.status()["winner"] is not None:
        return
    rig.press("menu")  # to the show
    while rig.status()["phase"] == "show":
        status = rig.status()
        track = status["to_count"]
        before = status["seq"]
        _count(rig, track, (CRIBS if status["crib_due"] else HANDS)[track])
        _wait_past(rig, before)


def test_a_four_player_partnership_game_through_the_panel(
    tmp_path: Path, mock_factory: MockFactory
) -> None:
    config = parse_config(
        {
            **TIMING,
            "board": {"brightness": 255},
            "game": {"mode": "guided", "variant": "four-player", "match": 3},
        }
    )
    rig = Rig(tmp_path, mock_factory, config, RecordingLink(), clock=ManualClock())
    try:
        _execute(rig, Set("names", ["Alice", "Bob", "Carol", "Dave"]))
        names = [t["name"] for t in rig.status()["tracks"]]
        assert names == ["Alice & Carol", "Bob & Dave"]  # four names, two teams
        rig.press("track1.plus1")  # the cut: Alice (seat 1) deals
        rig.wait_for(lambda: rig.status()["phase"] == "deal")
        assert rig.status()["dealer_seat"] == 0
        _first_deal(rig)
        deals = 1
        while rig.status()["winner"] is None:
            deals += 1
            assert deals < 12
            _deal(rig)
        status = rig.status()
        assert status["winner"] == 1 and status["tracks"][1]["front"] == 121
        assert 61 <= status["tracks"][0]["front"] < 91  # under the skunk line, not the double
        assert status["skunk"] == 1 and status["won_points"] == 3  # ACC: 3 for a skunk
        assert status["match_winner"] == 1  # 3 game points win the match to 3
        words = summary_lines(status)
        assert "game won by Bob & Dave (3 game points)" in words
        assert "Alice & Carol skunked" in words and "match won by Bob & Dave" in words
        # an entry after the match: refused with the game-over sign
        rig.enter(1, 3)
        rig.wait_for(lambda: _view_extra(rig).refusal == Refusal.GAME_OVER)
        rig.sync()
        assert _sign_lit(rig, Refusal.GAME_OVER)
        rig.press("menu")  # a new match, with the same teams
        rig.wait_for(lambda: rig.status()["phase"] == "cut")
        status = rig.status()
        assert status["match_number"] == 2 and status["winner"] is None
        assert [t["game_points"] for t in status["tracks"]] == [0, 0]
        assert [t["name"] for t in status["tracks"]] == names
    finally:
        rig.close()
    with Scorekeeper.open(tmp_path / "state" / "journal.sqlite", readonly=True) as keeper:
        events = [row["event"] for row in keeper.history(all_games=True)]
    pegs = [e for e in events if e["op"] in ("peg", "refile")]
    assert pegs[0] == {"op": "peg", "track": 0, "points": 2, "kind": "heels"}
    assert {"op": "refile", "kind": "hand", "track": 1, "points": 12} in pegs
    assert all(e.get("points") != 8 for e in pegs)  # the refused count is not in the journal
