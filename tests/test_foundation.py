"""The package skeleton: error hierarchy, frame helpers, variants, CLI dispatch."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardctl import errors
from boardctl.board.frame import changed_runs
from boardctl.cli import main
from boardctl.cribbage.variants import VARIANTS, get_variant


def test_every_error_derives_from_board_error() -> None:
    for name in dir(errors):
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, errors.BoardError), name


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (errors.CardError, ValueError),
        (errors.PlayError, ValueError),
        (errors.EntryError, ValueError),
        (errors.JournalError, OSError),
        (errors.LinkError, OSError),
        (errors.LayoutError, ValueError),
        (errors.ConfigError, ValueError),
        (errors.ProtocolError, ValueError),
    ],
)
def test_concrete_errors_also_inherit_a_builtin(error: type, builtin: type) -> None:
    assert issubclass(error, builtin)
    assert issubclass(error, errors.BoardError)


def apply_runs(frame: bytes, runs: list[tuple[int, bytes]]) -> bytes:
    """``frame`` with ``changed_runs`` output applied (what the controller does with a DELTA)."""
    out = bytearray(frame)
    for start, rgb in runs:
        out[3 * start : 3 * start + len(rgb)] = rgb
    return bytes(out)


def _frame_pair(n: int) -> st.SearchStrategy[tuple[bytes, bytes]]:
    frame = st.binary(min_size=3 * n, max_size=3 * n)
    return st.tuples(frame, frame)


frames = st.integers(min_value=0, max_value=40).flatmap(_frame_pair)


@given(frames, st.integers(min_value=0, max_value=5))
def test_changed_runs_rebuild_the_new_frame(pair: tuple[bytes, bytes], gap: int) -> None:
    old, new = pair
    runs = changed_runs(old, new, max_gap=gap)
    assert apply_runs(old, runs) == new
    for start, rgb in runs:
        assert len(rgb) % 3 == 0 and rgb
        assert start >= 0 and 3 * start + len(rgb) <= len(new)


def test_changed_runs_of_a_peg_move_are_two_single_leds() -> None:
    old = bytearray(3 * 100)
    new = bytearray(old)
    new[3 * 10 : 3 * 10 + 3] = b"\xff\x00\x00"
    new[3 * 50 : 3 * 50 + 3] = b"\x10\x00\x00"
    assert changed_runs(bytes(old), bytes(new)) == [(10, b"\xff\x00\x00"), (50, b"\x10\x00\x00")]
    assert changed_runs(bytes(old), bytes(old)) == []


def test_variants_deal_consistent_crib_of_four() -> None:
    for variant in VARIANTS.values():
        assert variant.crib_size == 4, variant.name
        for offset in range(variant.players):
            assert variant.discards_of(offset) >= 0
        seats = sorted(s for team in variant.teams for s in team)
        assert seats == list(range(variant.players))


def test_unknown_variant_names_the_known_ones() -> None:
    with pytest.raises(errors.VariantError, match="six-card"):
        get_variant("seven-card")


def test_cli_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["version"]) == 0
    assert capsys.readouterr().out.startswith("boardctl ")


def test_module_entry_point_runs() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "boardctl", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert "boardctl" in result.stdout
