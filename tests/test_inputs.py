"""Debounce, gestures and pending entries, driven with exact edge timings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from boardctl.config import InputsConfig as Timing
from boardctl.game.commands import BoardCommand, Brightness, NewGame, Next, Peg, Redo, Set, Undo
from boardctl.inputs.debounce import Debouncer
from boardctl.inputs.panel import Panel, parse_button_id
from boardctl.view import SettingsShown, ViewExtra

T = Timing()  # commit_idle 1.5, debounce 0.02, long 1.0, very long 4.0


def press(panel: Panel, name: str, t: float, duration: float = 0.1) -> list[BoardCommand]:
    """A clean press and release, running the timers in between."""
    out = panel.edge(name, True, t)
    out += panel.tick(t + duration)
    out += panel.edge(name, False, t + duration)
    return out


def run_until(panel: Panel, end: float) -> list[BoardCommand]:
    """Run the timers at each deadline up to ``end``, as the service loop does."""
    out: list[BoardCommand] = []
    for _ in range(1000):
        due = panel.deadline()
        if due is None or due > end:
            break
        out += panel.tick(due)
    return out


# --- debounce -------------------------------------------------------------------
def test_chatter_on_press_and_release_counts_once() -> None:
    d = Debouncer(0.02)
    accepted = []
    for pressed, t in [(True, 0.0), (False, 0.0004), (True, 0.0011), (False, 0.003), (True, 0.004)]:
        accepted += d.edge(pressed, t)
    assert accepted == [(True, 0.0)]  # the first edge counts at once
    for pressed, t in [(False, 0.3), (True, 0.3005), (False, 0.301), (True, 0.304), (False, 0.31)]:
        accepted += d.edge(pressed, t)
    assert accepted == [(True, 0.0), (False, 0.3)]
    assert d.deadline() is None and d.poll(1.0) == []


def test_chatter_that_ends_on_the_other_level_settles_after_the_lockout() -> None:
    d = Debouncer(0.02)
    assert d.edge(True, 0.0) == [(True, 0.0)]
    assert d.edge(False, 0.005) == []  # a real short press, but inside the lockout
    assert d.deadline() == 0.025
    assert d.poll(0.024) == []
    assert d.poll(0.025) == [(False, 0.025)]
    assert not d.pressed


def test_edges_inside_the_lockout_keep_postponing_the_settle() -> None:
    d = Debouncer(0.02)
    d.edge(True, 0.0)
    d.edge(False, 0.01)
    d.edge(True, 0.025)  # not quiet: still chatter
    d.edge(False, 0.04)
    assert d.poll(0.059) == []
    assert d.poll(0.060) == [(False, 0.06)]


def test_a_settled_level_counts_even_when_no_poll_ran_before_the_next_edge() -> None:
    d = Debouncer(0.02)
    assert d.edge(True, 0.0) == [(True, 0.0)]
    assert d.edge(False, 0.1) == [(False, 0.1)]
    assert d.edge(True, 0.11) == []  # too soon after the release: settles at 0.13
    # a busy loop polls late; the release edge arrives first
    assert d.edge(False, 0.2) == [(True, 0.13), (False, 0.2)]


def test_a_new_press_after_a_quiet_line_counts_at_once() -> None:
    d = Debouncer(0.02)
    d.edge(True, 0.0)
    d.edge(False, 0.1)
    assert d.edge(True, 0.2) == [(True, 0.2)]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(min_value=0.00001, max_value=0.0049), min_size=0, max_size=30),
    st.lists(st.floats(min_value=0.00001, max_value=0.0049), min_size=0, max_size=30),
    st.floats(min_value=0.05, max_value=5.0),
)
def test_any_bounce_shorter_than_the_lockout_gives_one_press_and_one_release(
    press_gaps: list[float], release_gaps: list[float], hold: float
) -> None:
    """Chatter bursts (each gap < 5 ms, burst < lockout + settle) never double count."""
    d = Debouncer(0.2)
    out: list[tuple[bool, float]] = []
    t, level = 0.0, True
    out += d.edge(True, t)
    for gap in press_gaps[: len(press_gaps) // 2 * 2]:  # even count: ends pressed
        t += gap
        level = not level
        out += d.edge(level, t)
    t += hold
    out += d.poll(t)
    out += d.edge(False, t)
    level = False
    for gap in release_gaps[: len(release_gaps) // 2 * 2]:
        t += gap
        level = not level
        out += d.edge(level, t)
    out += d.poll(t + 10)
    assert [pressed for pressed, _ in out] == [True, False]


# --- pending entries -----------------------------------------------------------------
def test_three_presses_commit_as_one_peg_after_the_idle_time() -> None:
    panel = Panel(tracks=2)
    out = []
    for i in range(3):
        out += press(panel, "track1.plus1", 0.3 * i)
    assert out == []
    assert panel.pending == (3, 0)
    last_activity = 0.6 + 0.1
    assert panel.deadline() == last_activity + T.commit_idle
    assert panel.tick(last_activity + T.commit_idle - 0.01) == []
    assert panel.tick(last_activity + T.commit_idle) == [Peg(0, 3)]
    assert panel.pending == (0, 0)
    assert panel.deadline() is None


def test_plus5_and_encoder_turns_add_to_pending_and_push_commits_at_once() -> None:
    panel = Panel(tracks=2)
    press(panel, "track2.plus5", 0.0)
    panel.turn(1, 1, 0.2)
    panel.turn(1, 1, 0.3)
    panel.turn(1, -1, 0.4)
    assert panel.pending == (0, 6)
    assert panel.edge("track2.encoder_push", True, 0.5) == [Peg(1, 6)]
    panel.edge("track2.encoder_push", False, 0.6)
    assert run_until(panel, 10.0) == []


def test_encoder_never_takes_pending_below_zero() -> None:
    panel = Panel(tracks=2)
    panel.turn(0, -3, 0.0)
    assert panel.pending == (0, 0)
    assert panel.deadline() is None


def test_two_tracks_pressing_at_once_both_count() -> None:
    panel = Panel(tracks=2)
    panel.edge("track1.plus1", True, 0.0)
    panel.edge("track2.plus1", True, 0.0)
    panel.edge("track2.plus1", False, 0.005)  # chatter on track 2 ...
    panel.edge("track2.plus1", True, 0.006)
    panel.edge("track1.plus1", False, 0.1)
    panel.edge("track2.plus1", False, 0.1)
    assert panel.pending == (1, 1)
    out = run_until(panel, 5.0)
    assert sorted(out, key=lambda c: c.track if isinstance(c, Peg) else -1) == [
        Peg(0, 1),
        Peg(1, 1),
    ]


def test_a_press_in_progress_holds_back_the_commit() -> None:
    panel = Panel(tracks=2)
    press(panel, "track1.plus1", 0.0)
    panel.edge("track1.plus1", True, 1.4)  # second press before the idle time ran out
    assert panel.tick(1.6) == []  # 1.6 > 0.1 + 1.5, but a press is in progress
    panel.edge("track1.plus1", False, 1.5)
    assert panel.tick(2.99) == []
    assert panel.tick(3.0) == [Peg(0, 2)]


def test_a_button_held_forever_adds_at_most_one_entry() -> None:
    panel = Panel(tracks=2)
    press(panel, "track1.plus1", 0.0)  # a real +1 is pending
    panel.edge("track1.plus1", True, 0.5)  # then the button sticks
    assert panel.pending == (2, 0)
    out = run_until(panel, 3600.0)
    # the long press took back its own +1 and cancelled the pending entry: nothing pegged
    assert out == []
    assert panel.pending == (0, 0)
    assert panel.deadline() is None  # and nothing more, ever, while it stays down
    press(panel, "track2.plus1", 4000.0)  # the other track still works
    assert run_until(panel, 4100.0) == [Peg(1, 1)]


def test_long_press_on_a_track_button_undoes_the_last_entry() -> None:
    panel = Panel(tracks=2)
    panel.edge("track1.plus5", True, 0.0)
    assert panel.pending == (5, 0)
    assert panel.tick(0.99) == []
    assert panel.tick(1.0) == [Undo()]
    assert panel.pending == (0, 0)
    assert panel.edge("track1.plus5", False, 2.0) == []
    assert run_until(panel, 10.0) == []


# --- shared buttons and gestures -------------------------------------------------
def test_undo_button_cancels_pending_first_then_undoes() -> None:
    panel = Panel(tracks=2)
    press(panel, "track1.plus1", 0.0)
    assert press(panel, "undo", 0.5) == []
    assert panel.pending == (0, 0)
    assert press(panel, "undo", 1.0) == [Undo()]


def test_undo_held_is_redo() -> None:
    panel = Panel(tracks=2)
    panel.edge("undo", True, 0.0)
    assert panel.deadline() == 1.0
    assert panel.tick(1.0) == [Redo()]
    assert panel.edge("undo", False, 1.5) == []


def test_menu_short_commits_pending_then_advances_the_phase() -> None:
    panel = Panel(tracks=2)
    press(panel, "track2.plus1", 0.0)
    out = press(panel, "menu", 0.3, 0.2)
    assert out == [Peg(1, 1), Next()]


def test_menu_very_long_asks_for_a_confirm_then_a_press_starts_a_new_game() -> None:
    panel = Panel(tracks=2)
    panel.edge("menu", True, 0.0)
    assert run_until(panel, 3.9) == []
    assert panel.mode == "entry"
    assert panel.tick(4.0) == []
    assert panel.mode == "confirm" and panel.overlay() == ViewExtra(confirm={"op": "new_game"})
    assert panel.edge("menu", False, 6.0) == []  # releasing does not confirm
    assert press(panel, "track1.plus1", 6.5) == []  # track buttons do nothing now
    assert panel.pending == (0, 0)
    assert press(panel, "menu", 7.0) == [NewGame()]
    assert panel.mode == "entry"


def test_new_game_confirm_is_cancelled_by_undo_or_by_the_timeout() -> None:
    panel = Panel(tracks=2)
    panel.tap("menu", 0.0, hold=4.5)
    assert panel.mode == "confirm"
    assert press(panel, "undo", 1.0) == []
    assert panel.mode == "entry"
    panel.tap("menu", 2.0, hold=4.5)
    assert panel.mode == "confirm"
    assert run_until(panel, 2.0 + T.confirm_timeout) == []
    assert panel.mode == "entry"


def _settings(panel: Panel) -> SettingsShown:
    settings = panel.overlay().settings
    assert settings is not None
    return settings


def test_settings_mode_cycles_values_and_applies_them_as_set_commands() -> None:
    current = {"target": 121, "variant": "six-card", "preset": "acc", "brightness": 128}
    current["mode"] = "guided"
    panel = Panel(tracks=2, current_settings=lambda: current)
    assert panel.tap("menu", 0.0, hold=1.5) == []
    assert panel.mode == "settings"
    assert _settings(panel).item == "target"
    assert press(panel, "track1.plus1", 1.0) == []  # target: 121 -> 61
    assert _settings(panel).value == 61
    assert panel.pending == (0, 0)  # track buttons do not enter points here
    press(panel, "menu", 2.0)  # next setting: variant
    press(panel, "menu", 3.0)  # preset
    press(panel, "menu", 4.0)  # brightness
    assert _settings(panel).item == "brightness"
    assert press(panel, "track2.plus1", 5.0) == [Brightness(64)]
    press(panel, "menu", 5.5)  # mode
    press(panel, "track1.plus1", 5.7)  # guided -> free
    out = panel.tap("menu", 6.0, hold=1.2)
    # a new target means a new game: it asks for the confirm first
    assert out == []
    assert panel.mode == "confirm"
    assert (panel.overlay().confirm or {})["target"] == 61
    assert press(panel, "menu", 7.0) == [NewGame(target=61, preset="acc", mode="free")]
    assert panel.mode == "entry"


def test_settings_that_need_no_new_game_are_set_commands() -> None:
    current = {"target": 121, "variant": "six-card", "preset": "acc", "mode": "guided"}
    panel = Panel(tracks=2, current_settings=lambda: current)
    panel.tap("menu", 0.0, hold=1.5)
    for t in (1.0, 2.0):
        press(panel, "menu", t)  # to preset
    press(panel, "track1.plus1", 3.0)  # acc -> casual
    for t in (4.0, 5.0):
        press(panel, "menu", t)  # brightness, then mode
    press(panel, "track2.plus1", 6.0)  # guided -> free (backwards, wraps)
    assert panel.tap("menu", 7.0, hold=1.5) == [
        Set("preset", "casual"),
        Set("mode", "free"),
    ]


def test_settings_left_with_undo_or_timeout_change_nothing() -> None:
    current = {"target": 121, "mode": "guided", "brightness": 128}
    panel = Panel(tracks=2, current_settings=lambda: current)
    panel.tap("menu", 0.0, hold=2.0)
    press(panel, "track1.plus1", 1.0)
    assert press(panel, "undo", 2.0) == []
    assert panel.mode == "entry"
    panel.tap("menu", 3.0, hold=2.0)
    press(panel, "track1.plus1", 4.0)
    assert run_until(panel, 4.0 + T.settings_timeout) == []
    assert panel.mode == "entry"
    # a previewed brightness goes back; holding undo here is not a redo
    panel.tap("menu", 100.0, hold=2.0)
    for t in (101.0, 102.0, 103.0):
        press(panel, "menu", t)  # to brightness
    assert press(panel, "track1.plus1", 104.0) == [Brightness(192)]
    assert panel.tap("undo", 105.0, hold=1.5) == [Brightness(128)]
    assert panel.mode == "entry"


def test_a_new_variant_in_settings_starts_a_game_with_its_own_target() -> None:
    current = {"target": 121, "variant": "six-card", "preset": "acc", "mode": "guided"}
    panel = Panel(tracks=2, current_settings=lambda: current)
    panel.tap("menu", 0.0, hold=1.5)
    press(panel, "menu", 1.0)  # variant
    press(panel, "track1.plus1", 2.0)  # six-card -> five-card
    panel.tap("menu", 3.0, hold=1.5)
    assert panel.mode == "confirm"
    assert press(panel, "menu", 4.0) == [NewGame(variant="five-card", preset="acc", mode="guided")]


def test_a_board_that_takes_no_new_game_sends_it_at_once_for_its_refusal() -> None:
    current = {"target": 121, "variant": "six-card", "preset": "acc", "mode": "guided"}
    panel = Panel(tracks=2, current_settings=lambda: current, takes_new_game=lambda: False)
    panel.edge("menu", True, 1.0)
    assert run_until(panel, 4.9) == [] and panel.mode == "entry"
    assert panel.tick(5.0) == [NewGame()]  # at the hold, not after a confirm
    assert panel.mode == "entry" and panel.overlay().confirm is None
    assert panel.edge("menu", False, 6.0) == []  # its release neither
    panel.tap("menu", 7.0, hold=1.5)  # settings: the target changed, then left
    press(panel, "track1.plus1", 8.0)  # 121 -> 61
    assert panel.tap("menu", 9.0, hold=1.5) == [NewGame(target=61, preset="acc", mode="guided")]
    assert panel.mode == "entry" and panel.overlay().confirm is None


def test_keyboard_taps_match_button_gestures() -> None:
    panel = Panel(tracks=3)
    panel.tap("track3.plus5", 0.0)
    panel.tap("track3.plus1", 0.1)
    assert panel.pending == (0, 0, 6)
    assert panel.tap("track3.encoder_push", 0.2) == [Peg(2, 6)]
    assert panel.tap("undo", 0.3) == [Undo()]
    assert panel.tap("undo", 0.4, hold=1.0) == [Redo()]


def test_buttons_of_tracks_beyond_the_game_are_ignored() -> None:
    panel = Panel(tracks=2)
    assert press(panel, "track3.plus1", 0.0) == []
    assert panel.pending == (0, 0)
    assert run_until(panel, 10.0) == []


def test_button_names() -> None:
    assert parse_button_id("track2.plus5") == ("plus5", 1)
    assert parse_button_id("menu") == ("menu", None)
    for bad in ("track0.plus1", "track1.plus2", "trackx.plus1", "reset"):
        try:
            parse_button_id(bad)
        except ValueError as exc:
            assert bad in str(exc)
        else:
            raise AssertionError(bad)


def test_pending_at_follows_the_last_change_of_a_pending_amount() -> None:
    panel = Panel(tracks=2)
    assert panel.pending_at is None
    panel.edge("track1.plus1", True, 1.0)
    assert panel.pending_at == 1.0
    panel.edge("track1.plus1", False, 1.2)
    panel.turn(1, 1, 2.0)
    assert panel.pending_at == 2.0
    assert panel.tick(2.7) == [Peg(0, 1)]
    assert panel.pending_at == 2.0  # track 2 still pending
    assert panel.tick(3.5) == [Peg(1, 1)]
    assert panel.pending_at is None
