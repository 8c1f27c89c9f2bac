"""A cue goes to the LED controller only after the frame it goes with (the click with the light).

The dispatcher sends an entry's frame (and, once it is durable, any frame of the
durable view) before it tells its listeners, and a refusal's sign before its cue:
a link that records frames and TONE messages in one list sees each cue after the
frame showing what it sounds.
"""

from __future__ import annotations

from typing import Any

import pytest

from boardctl.board import Renderer, builtin_layout
from boardctl.board.overlay import OverlayRenderer
from boardctl.errors import EntryError
from boardctl.game.commands import Peg
from boardctl.game.keeper import Scorekeeper
from boardctl.inputs.events import Tap
from boardctl.inputs.panel import Panel
from boardctl.link import RecordingLink
from boardctl.service.loop import ServiceLoop
from boardctl.sound.announcer import Announcer, attach
from boardctl.sound.cues import tone_steps
from boardctl.sound.pico import PicoCues


class ToneRecordingLink(RecordingLink):
    """Frames and TONEs in the order they were written to the controller."""

    def __init__(self) -> None:
        super().__init__()
        self.wire: list[tuple[str, Any]] = []

    def show(self, frame: bytes) -> None:
        super().show(frame)
        self.wire.append(("frame", bytes(frame)))

    def play_tones(self, level: int, steps: list[tuple[int, int]]) -> bool:
        self.wire.append(("tone", steps))
        return True


def _board(setup: dict[str, Any]) -> tuple[ServiceLoop, ToneRecordingLink, list[float]]:
    keeper = Scorekeeper.memory(setup)
    layout = builtin_layout("two-121")
    now = [100.0]
    link = ToneRecordingLink()
    loop = ServiceLoop(
        keeper,
        OverlayRenderer(Renderer(layout), layout),
        link,
        panel=Panel(tracks=2),
        clock=lambda: now[0],
    )
    attach(Announcer(PicoCues(link), status=keeper.status), loop.dispatcher)
    loop.start()
    return loop, link, now


def _tone_after_its_frame(link: ToneRecordingLink, mark: int, cue: str, frame: bytes) -> None:
    """The wire since ``mark`` has the cue once, after ``frame``, and no frame after it."""
    wire = link.wire[mark:]
    tones = [i for i, (kind, data) in enumerate(wire) if kind == "tone"]
    assert [wire[i][1] for i in tones] == [tone_steps(cue)], wire
    before = [data for kind, data in wire[: tones[0]] if kind == "frame"]
    assert before and before[-1] == frame  # the frame showing it went first ...
    assert all(kind == "tone" for kind, _ in wire[tones[0] :])  # ... and none after the cue


def test_a_commit_from_the_buttons_clicks_after_its_frame() -> None:
    loop, link, now = _board({"variant": "six-card", "mode": "free"})
    loop.post(Tap("track1.plus5"))
    loop.run_once(max_wait=0)
    mark = len(link.wire)
    loop.post(Tap("track1.encoder_push"))
    loop.run_once(max_wait=0)
    now[0] += 0.05
    loop.run_once(max_wait=0)
    assert loop.keeper.status()["tracks"][0]["front"] == 5
    assert loop.frame is not None
    _tone_after_its_frame(link, mark, "commit", loop.frame)
    loop.close()


def test_a_refusal_sounds_after_the_frame_with_its_sign() -> None:
    loop, link, _now = _board({"variant": "six-card", "mode": "guided"})
    shown = loop.frame
    mark = len(link.wire)
    with pytest.raises(EntryError):
        loop.dispatcher.execute(Peg(0, 3))  # guided, before the cut: refused
    refusal = loop.view().extra.refusal
    assert loop.frame is not None and loop.frame != shown  # the sign is lit ...
    _tone_after_its_frame(link, mark, f"refusal.{refusal}", loop.frame)  # ... then sounded
    loop.run_once(max_wait=0)
    assert link.wire[-1][0] == "tone"  # the turn's own refresh had nothing more to send
    loop.close()
