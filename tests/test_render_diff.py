"""The frame diff (``changed_runs``) agrees with a plain LED-by-LED reference."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from boardctl.board.frame import changed_runs
from tests.test_foundation import apply_runs


def reference_runs(old: bytes, new: bytes, max_gap: int) -> list[tuple[int, bytes]]:
    """The obvious algorithm: every changed LED, runs merged over small gaps."""
    changed = [i for i in range(len(new) // 3) if old[3 * i : 3 * i + 3] != new[3 * i : 3 * i + 3]]
    runs: list[list[int]] = []
    for i in changed:
        if runs and i - runs[-1][1] - 1 <= max_gap:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return [(a, new[3 * a : 3 * b + 3]) for a, b in runs]


@st.composite
def frame_pairs(draw: st.DrawFn) -> tuple[bytes, bytes]:
    count = draw(st.integers(min_value=1, max_value=300))
    old = bytearray(draw(st.binary(min_size=3 * count, max_size=3 * count)))
    new = bytearray(old)
    for led in draw(st.lists(st.integers(min_value=0, max_value=count - 1), max_size=12)):
        new[3 * led + draw(st.integers(0, 2))] ^= draw(st.integers(1, 255))
    return bytes(old), bytes(new)


@given(frame_pairs(), st.integers(min_value=0, max_value=4))
def test_changed_runs_match_the_reference(pair: tuple[bytes, bytes], gap: int) -> None:
    old, new = pair
    runs = changed_runs(old, new, max_gap=gap)
    assert runs == reference_runs(old, new, gap)
    assert apply_runs(old, runs) == new


def test_changes_at_block_edges_and_the_last_led() -> None:
    old = bytes(3 * 256)
    new = bytearray(old)
    for led in (15, 16, 255):
        new[3 * led] = 9
    assert changed_runs(old, bytes(new)) == [(15, bytes([9, 0, 0, 9, 0, 0])), (255, b"\x09\0\0")]
