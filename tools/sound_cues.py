"""The cue table of docs/sound.md, written from :data:`boardctl.sound.cues.CUES`.

``python tools/sound_cues.py`` prints it; a test checks the doc holds it.
"""

from __future__ import annotations

from boardctl.refusals import MEANINGS, Refusal
from boardctl.sound.cues import CUES, cue_seconds, refusal_cue

#: When each cue sounds (refusal cues: the quick-reference card's meaning).
WHEN: dict[str, str] = {
    "commit": "an entry is recorded",
    "undo": "the last entry is taken back",
    "redo": "an undone entry is brought back",
    "next": "the next phase, the cut, a new game",
    "skunk_line": "a track crosses the skunk line",
    "win": "the game is won",
    **{refusal_cue(r): MEANINGS[r] for r in Refusal},
}


def _notes(name: str) -> str:
    parts = []
    for note in CUES[name]:
        tone = "rest" if note.frequency is None else f"{note.frequency:g} Hz"
        parts.append(f"{tone} {round(note.seconds * 1000)} ms")
    return ", ".join(parts)


def cue_table() -> str:
    """Every cue as a Markdown table: name, when, notes, length."""
    lines = ["| cue | when | notes | length |", "|---|---|---|---|"]
    for name in CUES:
        lines.append(f"| `{name}` | {WHEN[name]} | {_notes(name)} | {cue_seconds(name):.2f} s |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(cue_table(), end="")
