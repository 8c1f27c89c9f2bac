"""The buzzer's cues: short tone figures (:class:`Note` tuples, ``None`` = a rest), one per thing a
player must notice, each refusal class its own, all within :data:`LOWEST`-:data:`HIGHEST` (what
``TonalBuzzer`` plays)."""

from __future__ import annotations

from dataclasses import dataclass

from boardctl.refusals import Refusal

LOWEST = 220.0  # Hz: A3, two octaves below the buzzer's mid tone
HIGHEST = 3520.0  # Hz: A7, two octaves above it
MID_TONE = 880.0  # Hz: A5


@dataclass(frozen=True, slots=True)
class Note:
    """One tone (``frequency`` Hz) or a rest (``None``) for ``seconds``."""

    frequency: float | None
    seconds: float


def _notes(*pairs: tuple[float | None, float]) -> tuple[Note, ...]:
    return tuple(Note(f, s) for f, s in pairs)


#: Every cue by name. Refusal cues are named ``refusal.<class>`` (:func:`refusal_cue`).
CUES: dict[str, tuple[Note, ...]] = {
    "commit": _notes((2093.0, 0.02)),  # C7: a click
    "undo": _notes((1319.0, 0.04), (988.0, 0.05)),  # E6 -> B5: falling
    "redo": _notes((988.0, 0.04), (1319.0, 0.05)),  # rising
    "next": _notes((1568.0, 0.03)),  # G6: a tick
    "skunk_line": _notes((784.0, 0.08), (988.0, 0.08), (1175.0, 0.08), (1568.0, 0.16)),
    "win": _notes(
        (1047.0, 0.12), (1319.0, 0.12), (1568.0, 0.12), (None, 0.05), (1319.0, 0.1), (2093.0, 0.4)
    ),
    "refusal.impossible": _notes((392.0, 0.25)),  # one low buzz
    "refusal.not_your_turn": _notes((440.0, 0.1), (None, 0.08), (440.0, 0.1)),  # two
    "refusal.too_many_points": _notes(
        (494.0, 0.08), (None, 0.06), (494.0, 0.08), (None, 0.06), (494.0, 0.08)
    ),  # three
    "refusal.game_over": _notes((659.0, 0.15), (523.0, 0.15), (392.0, 0.3)),  # falling
    "refusal.no_such_track": _notes((330.0, 0.1), (660.0, 0.1), (330.0, 0.1)),  # low-high-low
    "refusal.storage": _notes(*[(f, 0.06) for f in (2637.0, 262.0) * 4]),  # a siren
    "refusal.other": _notes((349.0, 0.18), (None, 0.05), (294.0, 0.25)),
}


def refusal_cue(refusal: Refusal) -> str:
    return f"refusal.{refusal.value}"


def cue_seconds(name: str) -> float:
    return sum(note.seconds for note in CUES[name])


def tone_steps(name: str) -> list[tuple[int, int]]:
    """Cue ``name`` as whole ``(Hz, ms)`` steps, ``0`` Hz for a rest: what a TONE message
    carries to a piezo on the LED controller (the same figure ``TonalBuzzer`` plays)."""
    return [
        (0 if note.frequency is None else round(note.frequency), round(note.seconds * 1000))
        for note in CUES[name]
    ]
