"""The cue table: every refusal class has a cue, each distinct, all playable on the buzzer."""

from __future__ import annotations

from boardctl.refusals import MEANINGS, Refusal
from boardctl.sound.cues import CUES, HIGHEST, LOWEST, cue_seconds, refusal_cue


def test_every_refusal_class_has_its_own_cue() -> None:
    figures = [CUES[refusal_cue(r)] for r in Refusal]
    assert len(set(figures)) == len(Refusal)
    assert set(MEANINGS) == set(Refusal)


def test_every_cue_is_playable_and_short() -> None:
    for name, notes in CUES.items():
        assert notes, name
        for note in notes:
            assert note.seconds > 0
            assert note.frequency is None or LOWEST <= note.frequency <= HIGHEST, name
        assert cue_seconds(name) <= 1.0, name


def test_the_click_is_shorter_than_any_refusal() -> None:
    shortest_refusal = min(cue_seconds(refusal_cue(r)) for r in Refusal)
    assert cue_seconds("commit") < shortest_refusal


def test_the_skunk_line_rises() -> None:
    tones = [n.frequency for n in CUES["skunk_line"] if n.frequency is not None]
    assert tones == sorted(tones) and len(set(tones)) == len(tones)
