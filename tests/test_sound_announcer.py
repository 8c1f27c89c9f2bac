"""The announcer in the service: every entry heard, refusals by class, and no press delayed."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from boardctl.board import Renderer, builtin_layout
from boardctl.board.overlay import OverlayRenderer
from boardctl.config import Config, SoundConfig, parse_config
from boardctl.errors import EntryError, JournalError
from boardctl.game.commands import Cut, NewGame, Next, Peg
from boardctl.game.keeper import Scorekeeper
from boardctl.inputs.events import Tap, Turn
from boardctl.inputs.panel import Panel
from boardctl.link import RecordingLink
from boardctl.refusals import Refusal
from boardctl.service.loop import ServiceLoop
from boardctl.sound import phrases
from boardctl.sound.announcer import Announcer, attach, classify
from boardctl.sound.build import build_announcer
from boardctl.sound.buzzer import CuePlayer, TonalBuzzerOutput
from boardctl.sound.gesture import score_gesture
from boardctl.sound.voice import SpeechQueue
from tests.test_e2e import built
from tests.test_sound_buzzer import BUZZER_PIN, RecordingPWMPin, expected, tones

PHRASE_SECONDS = 1.0  # the slow voice's time per phrase: far longer than a press may take


class SlowVoice:
    """Takes a second per phrase (unless stopped) and records what it was given."""

    def __init__(self) -> None:
        self.spoken: list[str] = []
        self._stop = threading.Event()

    def speak(self, text: str) -> None:
        self.spoken.append(text)
        self._stop.clear()
        self._stop.wait(PHRASE_SECONDS)

    def stop(self) -> None:
        self._stop.set()


class RecordingQueue(SpeechQueue):
    """A speech queue that logs every phrase handed to it (spoken or later cut short)."""

    def __init__(self, voice: Any) -> None:
        super().__init__(voice)
        self.said: list[str] = []

    def say(self, text: str, *, interrupt: bool = False) -> None:
        self.said.append(text)
        super().say(text, interrupt=interrupt)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def rig(
    factory: MockFactory, setup: dict[str, Any]
) -> tuple[ServiceLoop, Announcer, RecordingQueue, Clock]:
    keeper = Scorekeeper.memory(setup)
    layout = builtin_layout("two-121")
    clock = Clock()
    loop = ServiceLoop(
        keeper,
        OverlayRenderer(Renderer(layout), layout),
        RecordingLink(),
        panel=Panel(tracks=2),
        clock=clock,
    )
    cues = CuePlayer(TonalBuzzerOutput(BUZZER_PIN, pin_factory=factory), tempo=0.05)
    speech = RecordingQueue(SlowVoice())
    announcer = Announcer(cues, speech, status=keeper.status)
    attach(announcer, loop.dispatcher)
    loop.start()
    return loop, announcer, speech, clock


def enter(loop: ServiceLoop, clock: Clock, track: int, points: int) -> float:
    """Press +5 / +1 for ``points``, wait out the commit; the seconds the committing turn took."""
    for button, step in (("plus5", 5), ("plus1", 1)):
        for _ in range(points // step if step == 5 else points % 5):
            loop.post(Tap(f"track{track + 1}.{button}"))
            loop.run_once(max_wait=0)
    clock.now += loop.panel.timing.commit_idle + 0.01
    started = time.perf_counter()
    loop.run_once(max_wait=0)
    return time.perf_counter() - started


def test_a_whole_game_is_announced_and_no_press_waits_for_speech(factory: MockFactory) -> None:
    loop, announcer, speech, clock = rig(factory, {"variant": "six-card", "mode": "free"})
    try:
        entries = [(0, 12), (1, 7)] * 9 + [(0, 12)]  # track 1 reaches 120 after 10 entries
        turns: list[float] = []
        expected_said: list[str] = []
        for track, points in entries:
            turns.append(enter(loop, clock, track, points))
            front = loop.keeper.status()["tracks"][track]["front"]
            expected_said.append(phrases.entry(f"Track {track + 1}", points, front))
        turns.append(enter(loop, clock, 0, 1))  # 121: the win
        status = loop.keeper.status()
        assert status["winner"] == 0
        said_entries = [s for s in speech.said if s.startswith("Track") and "," in s]
        assert said_entries[: len(expected_said)] == expected_said  # every entry, in order
        assert "Track 1 is past the skunk line" in speech.said
        win = phrases.win("Track 1", [("Track 1", 121), ("Track 2", 63)], skunk=1)
        assert speech.said[-1] == win
        # 21 committed entries, each phrase would take a second: the loop never waited
        assert max(turns) < 0.25 * PHRASE_SECONDS, turns
        assert sum(turns) < PHRASE_SECONDS
        assert announcer.cues is not None and announcer.cues.wait_idle(5)
        pin = factory.pin(BUZZER_PIN)
        fanfare = expected("win")[1:]  # (the click it cut short may sound right before it)
        assert tones(pin)[-len(fanfare) :] == fanfare  # the fanfare last
    finally:
        announcer.close()
        loop.close()


def test_a_commit_clicks_and_a_refusal_sounds_its_class(factory: MockFactory) -> None:
    loop, announcer, speech, clock = rig(factory, {"variant": "six-card", "mode": "guided"})
    pin = factory.pin(BUZZER_PIN)
    cues = announcer.cues
    assert cues is not None
    try:
        loop.post(Tap("track1.plus1"))  # the cut: track 1 deals
        loop.run_once(max_wait=0)
        clock.now += 2
        loop.run_once(max_wait=0)
        assert speech.said[-1] == "Track 1 deals"
        loop.post(Tap("menu"))  # to the play
        loop.run_once(max_wait=0)
        assert speech.said[-1] == "The play"
        assert cues.wait_idle(5)
        pin.played.clear()
        enter(loop, clock, 1, 2)  # a pegging entry
        assert cues.wait_idle(5)
        assert tones(pin) == expected("commit")
        assert speech.said[-1] == "Track 2 two, two"
        loop.post(Tap("menu"))  # to the show: track 2 counts first
        loop.run_once(max_wait=0)
        assert speech.said[-1] == "Track 2 to count"
        assert cues.wait_idle(5)
        pin.played.clear()
        with pytest.raises(EntryError):
            loop.dispatcher.execute(Peg(0, 8, "hand"))  # the dealer's hand before the pone's
        assert cues.wait_idle(5)
        assert tones(pin) == expected("refusal.not_your_turn")
        assert speech.said[-1] == phrases.refusal(Refusal.NOT_YOUR_TURN)
        pin.played.clear()
        with pytest.raises(EntryError):
            loop.dispatcher.execute(Peg(1, 19, "hand"))  # no hand counts 19
        assert cues.wait_idle(5)
        assert tones(pin) == expected("refusal.impossible")
    finally:
        announcer.close()
        loop.close()


def test_a_count_entered_with_its_cards_is_said_in_words(factory: MockFactory) -> None:
    loop, announcer, speech, _clock = rig(
        factory, {"variant": "six-card", "mode": "guided", "names": ["Alice", "Bob"]}
    )
    try:
        loop.dispatcher.execute(Cut(dealer=0))
        loop.dispatcher.execute(Peg(0, None, starter="JD"))  # his heels, naming its jack
        assert speech.said[-2:] == [
            "Alice, two for his heels, two",
            "Alice's two: his heels or pegging? Hold undo for pegging.",  # the board asks
        ]
        loop.dispatcher.execute(Next())
        loop.dispatcher.execute(Next())
        loop.dispatcher.execute(
            Peg(1, None, cards=("5H", "5C", "KD", "2S"))
        )  # the deal's starter: JD
        assert speech.said[-3:] == [
            "Bob, fifteen two, fifteen four, fifteen six, fifteen eight, and a pair is ten",
            "Bob ten.",
            "Alice to count",
        ]
        loop.dispatcher.execute(Peg(0, 0, "hand"))  # points only
        assert speech.said[-2:] == ["Alice zero, two", "Alice's crib"]
        loop.dispatcher.execute(Peg(0, None, cards=("AH", "2D", "3S", "KC")))
        assert speech.said[-2:] == [
            "Alice's crib, fifteen two, fifteen four, and a run of three is seven",
            "Alice nine.",
        ]
        loop.dispatcher.execute(Cut(starter="5S"))  # Bob's deal: its starter named alone
        assert speech.said[-1] == "The starter: the five of spades"
    finally:
        announcer.close()
        loop.close()


def test_the_boards_question_is_said_once_with_its_answer(factory: MockFactory) -> None:
    loop, announcer, speech, clock = rig(
        factory, {"variant": "six-card", "mode": "guided", "names": ["Alice", "Bob"]}
    )
    question = "Bob's two: his heels or pegging? Hold undo for pegging."
    try:
        loop.dispatcher.execute(Cut(dealer=1))
        enter(loop, clock, 1, 2)  # Bob's 2 in the deal: his heels, or the play's first peg?
        assert loop.keeper.status()["ask"] is not None
        assert speech.said[-2:] == ["Bob, two for his heels, two", question]
        clock.now += 1
        loop.redraw()
        loop.run_once(max_wait=0)  # the board goes on asking, silently
        loop.post(Tap("undo", hold=1))  # undo held: file it as pegging
        loop.run_once(max_wait=0)
        status = loop.keeper.status()
        assert status["ask"] is None and status["phase"] == "play"
        enter(loop, clock, 1, 3)  # Bob pegs on: the board asks nothing
        assert speech.said[-1] == "Bob three, five"
        assert speech.said.count(question) == 1
        assert phrases.ask("Alice", 4, "pegging", "hand") == (
            "Alice's four: pegging or a hand count? Hold undo for hand."
        )
    finally:
        announcer.close()
        loop.close()


def test_the_count_said_follows_the_games_rules(factory: MockFactory) -> None:
    loop, announcer, speech, _clock = rig(
        factory, {"variant": "six-card", "mode": "free", "house_rules": ["runs-of-two"]}
    )
    try:
        loop.dispatcher.execute(Peg(0, None, "hand", ("AH", "2D", "7S", "KC"), "QC"))
        assert speech.said[-2:] == [
            "Track 1, a run of two is two, and another run of two is four",
            "Track 1 four.",
        ]
    finally:
        announcer.close()
        loop.close()


def test_undo_and_redo_have_their_figures_and_the_score_is_said_on_request(
    factory: MockFactory,
) -> None:
    loop, announcer, speech, clock = rig(factory, {"variant": "six-card", "mode": "free"})
    pin = factory.pin(BUZZER_PIN)
    cues = announcer.cues
    assert cues is not None
    try:
        enter(loop, clock, 0, 6)
        for op in ("undo", "redo"):
            assert cues.wait_idle(5)
            pin.played.clear()
            loop.post(Tap("undo", hold=1 if op == "redo" else 0))
            loop.run_once(max_wait=0)
            assert cues.wait_idle(5)
            assert tones(pin) == expected(op)
        assert speech.said[-1] == "Redone. Track 1 six, Track 2 zero."
        announcer.say_score()
        assert speech.said[-1] == "Track 1 six, Track 2 zero."
    finally:
        announcer.close()
        loop.close()


def test_mute_and_quiet_hours_silence_cues_and_words(factory: MockFactory) -> None:
    loop, announcer, speech, clock = rig(factory, {"variant": "six-card", "mode": "free"})
    try:
        announcer.apply_setting("mute", True)
        enter(loop, clock, 0, 3)
        assert speech.said == []
        announcer.apply_setting("mute", False)
        announcer.apply_setting("volume", 0.25)
        assert announcer.cues is not None and announcer.cues.volume == 0.25
        enter(loop, clock, 0, 3)
        assert speech.said == ["Track 1 three, six"]
    finally:
        announcer.close()
        loop.close()


@pytest.mark.parametrize(
    ("error", "refusal"),
    [
        (EntryError("7 is not a possible crib count (0-29, not every number)"), Refusal.IMPOSSIBLE),
        (EntryError("Ann counts first: Bob is not due to count a hand"), Refusal.NOT_YOUR_TURN),
        (EntryError("a pegging entry is 1-15 points, not 19"), Refusal.TOO_MANY_POINTS),
        (EntryError("the board (two-121) has 2 tracks; a x game needs 3"), Refusal.NO_SUCH_TRACK),
        (EntryError("the game is over (Ann won); send next for the next game"), Refusal.GAME_OVER),
        (EntryError("the match is over (Ann won); send next for a new match"), Refusal.GAME_OVER),
        (EntryError("there is no track 6: this game has 2 tracks"), Refusal.NO_SUCH_TRACK),
        (JournalError("disk full"), Refusal.STORAGE),
        (EntryError("unknown op 'fly'"), Refusal.OTHER),
    ],
)
def test_the_fallback_classifies_the_engines_messages(error: Exception, refusal: Refusal) -> None:
    assert classify(error) is refusal


def test_a_class_the_error_carries_wins_over_the_message() -> None:
    error = EntryError("a pegging entry is 1-15 points, not 19")
    error.refusal = Refusal.GAME_OVER
    assert classify(error) is Refusal.GAME_OVER


def test_nothing_is_built_by_default(tmp_path: Path) -> None:
    assert build_announcer(SoundConfig()) is None
    before = {t.name for t in threading.enumerate()}
    factory = MockFactory(revision="902120")
    board = built(tmp_path, factory, Config())
    try:
        assert board.sound is None
        # no cue is told of refusals: only the panel, whose undo guard a refused entry keeps
        assert board.loop.dispatcher.refused == [board.loop.panel.refused]
        names = {t.name for t in threading.enumerate()} - before
        assert not names & {"boardctl-buzzer", "boardctl-speech"}
    finally:
        board.close()
        factory.reset()


def test_a_configured_buzzer_is_wired_into_the_service(tmp_path: Path) -> None:
    factory = MockFactory(revision="902120", pin_class=RecordingPWMPin)
    config = parse_config({"sound": {"buzzer": BUZZER_PIN, "volume": 0.5}})
    board = built(tmp_path, factory, config)
    try:
        announcer = board.sound
        assert isinstance(announcer, Announcer) and announcer.cues is not None
        assert announcer.speech is None  # voice = "none"
        with pytest.raises(EntryError):
            board.loop.dispatcher.execute(Peg(0, 99))
        assert announcer.cues.wait_idle(5)
        pin = factory.pin(BUZZER_PIN)
        assert tones(pin)[-2:] != [None]  # something sounded
        assert max(duty for _, _, duty in pin.played) == pytest.approx(0.25)  # volume 0.5
    finally:
        board.close()
        factory.reset()


def test_turning_an_encoder_back_with_nothing_pending_says_the_score(
    factory: MockFactory,
) -> None:
    loop, announcer, speech, clock = rig(factory, {"variant": "six-card", "mode": "free"})
    loop.input_listeners.append(score_gesture(loop.panel, announcer.say_score))
    try:
        enter(loop, clock, 1, 4)
        loop.post(Turn(0, -1))  # nothing pending on track 1: the gesture
        loop.run_once(max_wait=0)
        assert speech.said[-1] == "Track 1 zero, Track 2 four."
        assert loop.panel.pending == (0, 0) and loop.keeper.status()["seq"] == 2  # no change
        said = len(speech.said)
        loop.post(Turn(0, 2))
        loop.post(Turn(0, -1))  # takes back one of the two pending: an entry, not the gesture
        loop.run_once(max_wait=0)
        assert loop.panel.pending == (1, 0)
        assert len(speech.said) == said
    finally:
        announcer.close()
        loop.close()


def test_the_announcer_says_the_rule_sets_skunk_lines(factory: MockFactory) -> None:
    # an English game to 61 (fraction-lines): the skunk line is 46, the double 31
    loop, announcer, speech, clock = rig(factory, {"variant": "five-card", "mode": "free"})
    try:
        loop.dispatcher.execute(NewGame(rules="english", target=61, mode="free"))
        assert loop.keeper.status()["lines"] == [46, 31]
        for points in (12, 12, 8):  # track 2 to 32: past 31, not the skunk line here
            enter(loop, clock, 1, points)
        assert not any("past the skunk line" in said for said in speech.said)
        for points in (12, 12, 12):
            enter(loop, clock, 0, points)
        assert not any("past the skunk line" in said for said in speech.said)
        enter(loop, clock, 0, 12)  # track 1 from 36 to 48: past 46, the skunk line
        assert "Track 1 is past the skunk line" in speech.said
        enter(loop, clock, 1, 8)  # 40: short of 46
        enter(loop, clock, 0, 12)
        enter(loop, clock, 0, 1)  # 61: the win, track 2 skunked by the English lines
        assert loop.keeper.status()["tracks"][1]["lines_failed"] == 1
        assert speech.said[-1] == phrases.win(
            "Track 1", [("Track 1", 61), ("Track 2", 40)], skunk=1
        )
    finally:
        announcer.close()
        loop.close()
