"""The guided flow: cut, deal, his heels, the play, the show in order, the next deal."""

from __future__ import annotations

import re
from typing import Any

import pytest

from boardctl.cribbage.variants import VARIANTS
from boardctl.errors import EntryError
from boardctl.game.commands import Command, Peg, parse_command
from boardctl.game.keeper import Scorekeeper


def peg(track: int, points: int, kind: str | None = None) -> Peg:
    return Peg(track, points, kind)


def typed(command: Command | dict[str, Any]) -> Command:
    """A command, from its JSON form if need be (as the control socket parses it)."""
    return parse_command(command) if isinstance(command, dict) else command


def rejected(keeper: Scorekeeper, command: Command | dict[str, Any], match: str = "") -> str:
    """Apply a command that must be refused; check nothing changed; return the reason."""
    state, machine_past = keeper.state, list(keeper.machine.past)
    with pytest.raises(EntryError, match=match) as info:
        keeper.apply(typed(command))
    assert keeper.state == state
    assert keeper.machine.past == machine_past
    return str(info.value)


def fronts(keeper: Scorekeeper) -> list[int]:
    return [t.front for t in keeper.state.tracks]


def test_cut_then_deal_heels_play_show_and_next_deal() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "names": ["Ann", "Bob"]})
    assert keeper.state.phase == "cut"
    rejected(keeper, peg(0, 2), "cut")
    rejected(keeper, {"op": "next"}, "cut")
    keeper.apply(parse_command({"op": "cut", "dealer": 1}))
    state = keeper.state
    assert (state.phase, state.dealer, state.dealer_track, state.deal) == ("deal", 1, 1, 1)
    rejected(keeper, {"op": "cut", "dealer": 0}, "already")
    rejected(keeper, peg(0, 2, "heels"), "dealer")
    rejected(keeper, peg(1, 3, "heels"), "worth 2")
    keeper.apply(peg(1, 2, "heels"))
    rejected(keeper, peg(1, 2, "heels"), "already")
    keeper.apply(parse_command({"op": "next"}))
    assert keeper.state.phase == "play"
    keeper.apply(peg(0, 2))  # kind inferred: pegging
    keeper.apply(peg(1, 3, "pegging"))
    keeper.apply(peg(0, 1))
    assert fronts(keeper) == [3, 5]
    assert keeper.state.tracks[0].back == 2
    keeper.apply(parse_command({"op": "next"}))
    state = keeper.state
    assert (state.phase, state.to_count, state.crib_due) == ("show", 0, False)
    rejected(keeper, peg(0, 2, "pegging"), "play is over")
    rejected(keeper, peg(1, 8, "hand"), "Ann counts first")
    rejected(keeper, peg(0, 8, "crib"), "hand count is due")
    rejected(keeper, {"op": "next"}, "Ann's hand count first")
    keeper.apply(peg(0, 0, "hand"))  # a zero count is an entry too
    assert keeper.state.to_count == 1
    assert keeper.state.tracks[0].back == 2  # 0 points: pegs do not move
    keeper.apply(peg(1, 12))  # inferred: hand
    assert keeper.state.crib_due
    assert keeper.state.to_count == 1
    rejected(keeper, peg(1, 19, "crib"), "not a possible crib")
    keeper.apply(peg(1, 4))  # inferred: crib
    state = keeper.state
    assert (state.phase, state.dealer, state.deal, state.heels) == ("deal", 0, 2, False)
    assert fronts(keeper) == [3, 21]
    kinds = [row["event"].get("kind") for row in keeper.history() if row["op"] == "peg"]
    assert kinds == ["heels", "pegging", "pegging", "pegging", "hand", "hand", "crib"]


def test_pegging_in_deal_starts_the_play_and_a_hand_count_ends_it() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card"})
    keeper.apply(parse_command({"op": "cut", "dealer": 0}))
    keeper.apply(peg(1, 2))
    assert keeper.state.phase == "play"
    keeper.apply(peg(1, 2, "pegging"))
    rejected(keeper, peg(0, 6, "hand"), "Track 2 counts first")
    keeper.apply(peg(1, 6, "hand"))
    assert (keeper.state.phase, keeper.state.to_count) == ("show", 0)


def test_pegging_limit_comes_from_the_rules() -> None:
    from boardctl.cribbage.validation import max_play_points

    keeper = Scorekeeper.memory({"variant": "six-card"})
    keeper.apply(parse_command({"op": "cut", "dealer": 0}))
    limit = max_play_points() + 1  # one card plus the go or last card
    keeper.apply(peg(0, limit))
    rejected(keeper, peg(0, limit + 1, "pegging"), f"1-{limit}")
    # without a kind, a possible hand count past the limit is the show's first count (not due)
    rejected(keeper, peg(0, limit + 1), "counts first")
    rejected(keeper, peg(0, 0), "1-")
    rejected(keeper, peg(0, -1), "1-")


@pytest.mark.parametrize("count", [19, 25, 26, 27, 30, -1])
def test_impossible_counts_are_refused(count: int) -> None:
    keeper = Scorekeeper.memory({"variant": "six-card"})
    keeper.apply(parse_command({"op": "cut", "dealer": 0}))
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "next"}))
    rejected(keeper, peg(1, count, "hand"), "not a possible")
    keeper.apply(peg(1, 29, "hand"))
    keeper.apply(peg(0, 28, "hand"))
    rejected(keeper, peg(0, count, "crib"), "not a possible crib")


def test_five_card_three_for_last_once_and_three_card_hands() -> None:
    from boardctl.cribbage.validation import possible_scores

    keeper = Scorekeeper.memory({"variant": "five-card"})
    assert keeper.state.target == 61
    keeper.apply(parse_command({"op": "cut", "dealer": 0}))
    assert fronts(keeper) == [0, 3]  # the non-dealer pegs three for last at the start
    rejected(keeper, peg(1, 3, "last"), "already")
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "next"}))
    three_card = possible_scores(3)
    too_big = max(three_card) + 1
    rejected(keeper, peg(1, too_big, "hand"), "not a possible 3-card hand")
    keeper.apply(peg(1, max(three_card), "hand"))
    keeper.apply(peg(0, 0, "hand"))
    keeper.apply(peg(0, 5, "crib"))
    assert keeper.state.dealer == 1
    assert fronts(keeper) == [5, 3 + max(three_card)]  # no second three for last


def test_three_for_last_belongs_to_the_five_card_game() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    rejected(keeper, peg(0, 3, "last"), "five-card")
    free = Scorekeeper.memory({"variant": "five-card", "mode": "free"})
    free.apply(peg(1, 3, "last"))
    rejected(free, peg(1, 3, "last"), "already")


def test_undo_and_redo_across_phase_boundaries() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card"})
    commands: list[Command | dict[str, Any]] = [
        {"op": "cut", "dealer": 0},
        peg(0, 2, "heels"),
        {"op": "next"},
        peg(1, 2),
        {"op": "next"},
        peg(1, 10),
        peg(0, 8),
        peg(0, 6),  # crib: next deal, dealer passes
        peg(0, 1),  # pegging in the new deal
    ]
    states = [keeper.state]
    for command in commands:
        keeper.apply(typed(command))
        states.append(keeper.state)
    assert keeper.state.dealer == 1 and keeper.state.phase == "play"
    for expected in reversed(states[:-1]):
        keeper.apply(parse_command({"op": "undo"}))
        assert keeper.state == expected
    assert keeper.state.phase == "cut"
    rejected(keeper, {"op": "undo"}, "start of the game")
    for expected in states[1:]:
        keeper.apply(parse_command({"op": "redo"}))
        assert keeper.state == expected
    rejected(keeper, {"op": "redo"}, "nothing to redo")
    for _ in range(2):
        keeper.apply(parse_command({"op": "undo"}))
    assert keeper.state.crib_due
    keeper.apply(peg(0, 4, "crib"))  # a new entry drops the redo stack
    rejected(keeper, {"op": "redo"}, "nothing to redo")
    assert keeper.state.dealer == 1


def test_undo_reverses_a_win_but_not_past_the_start_of_a_game() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "match": 5})
    keeper.apply(parse_command({"op": "cut", "dealer": 0}))
    keeper.apply(peg(1, 120, "correction"))
    keeper.apply(peg(1, 2))
    assert keeper.state.winner == 1
    keeper.apply(parse_command({"op": "undo"}))
    assert keeper.state.winner is None
    assert fronts(keeper) == [0, 120]
    assert keeper.state.tracks[1].game_points == 0
    keeper.apply(parse_command({"op": "redo"}))
    keeper.apply(parse_command({"op": "next"}))
    assert keeper.state.game_number == 2
    rejected(keeper, {"op": "undo"}, "start of the game")


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_whole_scripted_game_for_each_variant(name: str) -> None:
    """Deal after deal with counts in the right order until a track reaches the target."""
    variant = VARIANTS[name]
    keeper = Scorekeeper.memory({"variant": name})
    players, target = variant.players, variant.target
    keeper.apply(parse_command({"op": "cut", "dealer": players - 1}))
    dealer = players - 1
    deals = 0
    pattern = [4, 7, 2, 12, 8, 5, 10, 6, 3, 9]
    step = 0
    while keeper.state.winner is None:
        deals += 1
        assert keeper.state.dealer == dealer
        assert keeper.state.deal == deals
        keeper.apply(parse_command({"op": "next"}))
        for seat_offset in range(1, players + 1):  # the play: one peg per seat
            seat = (dealer + seat_offset) % players
            keeper.apply(peg(variant.team_of(seat), 1 + seat_offset % 3))
            if keeper.state.winner is not None:
                break
        if keeper.state.winner is not None:
            break
        keeper.apply(parse_command({"op": "next"}))
        order = [(dealer + k) % players for k in range(1, players + 1)]
        for seat in order:
            assert keeper.state.counting_seat == seat
            assert not keeper.state.crib_due
            track = variant.team_of(seat)
            if seat != order[0]:  # someone not due is refused
                early = variant.team_of(order[0])
                if early != track:
                    rejected(keeper, peg(early, 2, "hand"), "counts first")
            step += 1
            keeper.apply(peg(track, pattern[step % len(pattern)], "hand"))
            if keeper.state.winner is not None:
                break
        if keeper.state.winner is not None:
            break
        assert keeper.state.crib_due and keeper.state.counting_seat == dealer
        keeper.apply(peg(variant.team_of(dealer), 4, "crib"))
        dealer = (dealer + 1) % players
    state = keeper.state
    assert state.phase == "over"
    winner = state.winner
    assert winner is not None
    assert state.tracks[winner].front == target
    assert all(t.front < target for i, t in enumerate(state.tracks) if i != winner)
    assert state.match_winner == winner  # one-game match by default
    assert state.tracks[winner].game_points >= 2  # ACC: 2 or 3
    rejected(keeper, peg(0, 1), "over")
    total = sum(row["event"].get("points", 0) for row in keeper.history() if row["op"] == "peg")
    total += 3 if variant.three_for_last else 0  # pegged by the cut, not by an entry
    assert sum(t.front for t in state.tracks) <= total  # the winner stops at the target


def test_three_or_more_players_count_from_the_dealers_left() -> None:
    keeper = Scorekeeper.memory({"variant": "three-player", "names": ["A", "B", "C"]})
    keeper.apply(parse_command({"op": "cut", "dealer": 1}))
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "next"}))
    assert keeper.state.to_count == 2
    rejected(keeper, peg(0, 4, "hand"), "C counts first")
    keeper.apply(peg(2, 4, "hand"))
    assert keeper.state.to_count == 0
    keeper.apply(peg(0, 4, "hand"))
    assert keeper.state.to_count == 1 and not keeper.state.crib_due
    keeper.apply(peg(1, 4, "hand"))
    assert keeper.state.crib_due and keeper.state.to_count == 1
    keeper.apply(peg(1, 4, "crib"))
    assert keeper.state.dealer == 2


def test_partners_share_a_track() -> None:
    keeper = Scorekeeper.memory({"variant": "four-player"})
    assert len(keeper.state.tracks) == 2
    keeper.apply(parse_command({"op": "cut", "dealer": 3}))
    assert keeper.state.dealer_track == 1
    keeper.apply(parse_command({"op": "next"}))
    keeper.apply(parse_command({"op": "next"}))
    counted = []
    for _ in range(4):
        track = keeper.state.to_count
        assert track is not None
        counted.append((keeper.state.counting_seat, track))
        keeper.apply(peg(track, 2, "hand"))
    assert counted == [(0, 0), (1, 1), (2, 0), (3, 1)]
    keeper.apply(peg(1, 2, "crib"))
    assert fronts(keeper) == [4, 6]


def test_free_mode_has_no_phases_but_detects_the_win() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free", "target": 61})
    assert keeper.state.phase == "free"
    rejected(keeper, {"op": "next"}, "free mode")
    keeper.apply(peg(1, 24))  # inferred as a hand count
    keeper.apply(peg(1, 3))
    rejected(keeper, peg(0, 19), "not a possible")
    keeper.apply(peg(0, 2, "heels"))
    keeper.apply(peg(1, 29, "hand"))
    keeper.apply(peg(1, 5, "crib"))
    assert keeper.state.winner == 1
    assert fronts(keeper) == [2, 61]
    rejected(keeper, peg(0, 1), "over")


def test_corrections_and_muggins() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "mode": "free"})
    keeper.apply(peg(0, 10, "hand"))
    keeper.apply(peg(0, -4, "correction"))
    assert keeper.state.tracks[0].front == 6 and keeper.state.tracks[0].back == 0  # taken back
    keeper.apply(peg(0, 5, "hand"))
    keeper.apply(peg(0, -2, "correction"))
    assert (keeper.state.tracks[0].front, keeper.state.tracks[0].back) == (9, 6)  # back stays
    keeper.apply(peg(0, -4, "correction"))
    assert (keeper.state.tracks[0].front, keeper.state.tracks[0].back) == (5, 5)  # never ahead
    rejected(keeper, peg(0, -7, "correction"), "below 0")
    rejected(keeper, peg(0, 0, "correction"), "changes nothing")
    rejected(keeper, peg(1, 3, "muggins"), "muggins is off")
    keeper.apply(parse_command({"op": "set", "key": "muggins", "value": True}))
    keeper.apply(peg(1, 3, "muggins"))
    assert keeper.state.tracks[1].front == 3
    rejected(keeper, peg(1, 30, "muggins"), "claim")


def test_commands_are_checked() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card"})
    rejected(keeper, {"op": "peg", "track": 0, "points": 2, "colour": "red"}, "unknown field")
    rejected(keeper, {"op": "peg", "track": 0, "points": "2"}, "whole number")
    rejected(keeper, {"op": "peg", "track": True, "points": 2}, "whole number")
    message = (
        "no track 3 (index 2): this game has 2 tracks, 1 (Track 1) to 2 (Track 2), index 0 to 1"
    )
    rejected(keeper, {"op": "peg", "track": 2, "points": 2}, re.escape(message))
    rejected(keeper, {"op": "cut", "dealer": 2}, re.escape("seat index 0-1 (seats 1-2 counted"))
    keeper.apply(parse_command({"op": "cut", "dealer": 0}))
    rejected(keeper, {"op": "peg", "track": 0, "points": 2, "kind": "bonus"}, "unknown kind")
    rejected(keeper, {"op": "set", "key": "colour", "value": 1}, "unknown setting")
    rejected(keeper, {"op": "new_game", "variant": "seven-card"}, "unknown variant")
    rejected(keeper, {"op": "new_game", "variant": "six-card", "players": 3}, "2 players")
    rejected(keeper, {"op": "new_game", "target": 20}, "target")
    rejected(keeper, {"op": "new_game", "preset": "pub"}, "unknown preset")
    rejected(keeper, {"op": "new_game", "mode": "lazy"}, "mode")
    rejected(keeper, {"op": "new_game", "names": ["a", "b", "c"]}, "3 names")
    with pytest.raises(EntryError, match="object"):
        parse_command("peg")
    rejected(keeper, {"op": {}}, "unknown op")  # from a JSON client: not a name at all
    rejected(keeper, {"op": ["peg"]}, "unknown op")


def test_random_cut_is_recorded_so_replay_is_exact() -> None:
    keeper = Scorekeeper.memory({"variant": "five-player"}, choose=lambda n: n - 2)
    event = keeper.apply(parse_command({"op": "cut"}))["event"]
    assert event == {"op": "cut", "dealer": 3, "drawn": True}
    assert keeper.state.dealer == 3


def test_settings_change_through_events() -> None:
    keeper = Scorekeeper.memory({"variant": "six-card"})
    keeper.apply(parse_command({"op": "set", "key": "names", "value": ["Ann", "Bob"]}))
    keeper.apply(parse_command({"op": "set", "key": "target", "value": 61}))
    keeper.apply(parse_command({"op": "set", "key": "preset", "value": "casual"}))
    keeper.apply(parse_command({"op": "set", "key": "match", "value": 7}))
    keeper.apply(parse_command({"op": "set", "key": "points", "value": {"win": 1, "skunk": 3}}))
    status = keeper.status()
    assert (status["target"], status["preset"], status["match_target"]) == (61, "custom", 7)
    assert status["preset_points"]["skunk"] == 3
    assert [t["name"] for t in status["tracks"]] == ["Ann", "Bob"]
    keeper.apply(parse_command({"op": "set", "key": "mode", "value": "free"}))
    keeper.apply(peg(0, 5))
    rejected(keeper, {"op": "set", "key": "target", "value": 121}, "before anyone scores")
    keeper.apply(parse_command({"op": "set", "key": "mode", "value": "guided"}))
    assert keeper.state.phase == "cut"
    keeper.apply(parse_command({"op": "undo"}))
    assert keeper.state.phase == "free"


def test_free_mode_infers_a_crib_when_only_a_crib_can_make_the_count() -> None:
    keeper = Scorekeeper.memory({"variant": "five-card", "mode": "free"})
    event = keeper.apply(peg(0, 24))["event"]  # a three-card hand cannot make 24
    assert event["kind"] == "crib"
    assert keeper.apply(peg(1, 20))["event"]["kind"] == "hand"
    rejected(keeper, peg(1, 19), "not a possible")


@pytest.mark.parametrize("phase_steps", [0, 1])
def test_a_crib_count_before_the_show_is_refused_cleanly(phase_steps: int) -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "names": ["Ann", "Bob"]})
    keeper.apply(parse_command({"op": "cut", "dealer": 1}))
    for _ in range(phase_steps):
        keeper.apply(parse_command({"op": "next"}))
    assert keeper.state.phase == ("deal", "play")[phase_steps]
    reason = rejected(keeper, peg(1, 8, "crib"), "no crib count is due")
    assert keeper.state.phase in reason


@pytest.mark.parametrize("players", [1, 7, True, "4"])
def test_a_player_count_no_variant_is_for_is_refused_in_one_way(players: object) -> None:
    keeper = Scorekeeper.memory({"variant": "six-card", "names": ["Ann", "Bob"]})
    reason = rejected(keeper, {"op": "new_game", "players": players}, "players must be 2-6")
    assert reason.endswith(f"not {players!r}")
