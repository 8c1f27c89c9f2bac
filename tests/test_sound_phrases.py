"""Spoken phrases: the words players use, and espeak-ng renders them as real speech."""

from __future__ import annotations

import contextlib
import subprocess
import threading
from pathlib import Path

import pytest

from boardctl.config import SoundConfig
from boardctl.cribbage.cards import parse_cards
from boardctl.cribbage.hand import score_hand
from boardctl.cribbage.speech import number_words
from boardctl.refusals import Refusal
from boardctl.sound import phrases
from boardctl.sound.voice import EspeakVoice, SpeechQueue


@pytest.mark.parametrize(
    ("score", "words"),
    [
        (0, "zero"),
        (15, "fifteen"),
        (91, "ninety-one"),
        (100, "one hundred"),
        (103, "one-oh-three"),
        (110, "one-ten"),
        (115, "one-fifteen"),
        (121, "one twenty-one"),
    ],
)
def test_scores_are_said_as_players_say_them(score: int, words: str) -> None:
    assert phrases.score_words(score) == words


def test_an_entry_without_cards_says_points_and_score() -> None:
    assert phrases.entry("Alice", 12, 103) == "Alice twelve, one-oh-three"


def test_an_entry_with_cards_says_the_count() -> None:
    *hand, starter = parse_cards("5H 5C JD QS 10H")
    count = score_hand(hand, starter)
    said = phrases.counted("Alice", 0, count)[0]
    assert said.startswith("Alice, fifteen two, fifteen four")
    assert said.endswith(f"is {number_words(count.total)}")
    assert "a pair" in said and "a run of three" in said


COUNTS = [
    ("5H 5C KD 2S", "AC", False, "Alice, fifteen two, fifteen four, and a pair is six"),
    ("2H 3D 4S 9C", "5S", False, "Alice, fifteen two, and a run of four is six"),
    ("7H 8H 9H", "AC", False, "Alice, fifteen two, a run of three is five, and a flush is eight"),
    ("4H 6H 8H QH", "AS", False, "Alice, fifteen two, fifteen four, and a flush is eight"),
    ("4H 6H 8H QH", "AH", True, "Alice's crib, fifteen two, fifteen four, and a flush is nine"),
    ("4H 6H 8H QH", "AS", True, "Alice's crib, fifteen two, fifteen four"),  # no four-card flush
    ("3H 6C 9D JS", "2S", False, "Alice, fifteen two, fifteen four, and one for his nobs is five"),
    ("2H 4C 8D QS", "KH", False, "Alice, nothing: zero"),
]


@pytest.mark.parametrize(("hand", "starter", "crib", "words"), COUNTS)
def test_a_count_with_its_cards_is_said_as_players_count_it(
    hand: str, starter: str, crib: bool, words: str
) -> None:
    count = score_hand(hand, starter, crib=crib)
    assert phrases.counted("Alice", 103, count) == [words, "Alice one-oh-three."]


def test_the_starter_is_named() -> None:
    assert phrases.starter("5S") == "The starter: the five of spades"
    assert phrases.starter("JD") == "The starter: the jack of diamonds"


def test_his_heels_three_for_last_and_corrections_are_named() -> None:
    assert phrases.entry("Bob", 2, 23, kind="heels") == "Bob, two for his heels, twenty-three"
    assert phrases.entry("Ann", 3, 3, kind="last") == "Ann, three for last, three"
    assert phrases.entry("Ann", -2, 41, kind="correction") == "Ann minus two, forty-one"
    assert phrases.entry("Ann", 2, 41, kind="pegging") == "Ann two, forty-one"


def test_refusals_and_the_win_are_said() -> None:
    assert "no hand or crib" in phrases.refusal(Refusal.IMPOSSIBLE)
    said = phrases.win("Bob", [("Bob", 121), ("Alice", 88)], skunk=1)
    assert said == "Bob wins, with a skunk. Bob one twenty-one, Alice eighty-eight."


class RecordingVoice:
    """A voice that takes 0.2 s per phrase and notes what it said and what was cut."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.cut: list[str] = []
        self.started: list[str] = []
        self._stop = threading.Event()

    def speak(self, text: str) -> None:
        self._stop.clear()
        self.started.append(text)
        if self._stop.wait(0.2):
            self.cut.append(text)
        else:
            self.said.append(text)

    def stop(self) -> None:
        self._stop.set()


def test_the_queue_speaks_in_order_off_the_callers_thread() -> None:
    voice = RecordingVoice()
    queue = SpeechQueue(voice)
    try:
        queue.say("one")
        queue.say("two")
        assert queue.wait_idle(3)
        assert voice.said == ["one", "two"]
    finally:
        queue.close()


def test_an_interrupting_phrase_cuts_short_and_drops_the_waiting() -> None:
    voice = RecordingVoice()
    queue = SpeechQueue(voice)
    try:
        queue.say("Alice twelve, one-oh-three")
        queue.say("Bob to count")
        for _ in range(100):
            if voice.started:
                break
            threading.Event().wait(0.01)
        queue.say("Refused", interrupt=True)
        assert queue.wait_idle(3)
        assert voice.cut == ["Alice twelve, one-oh-three"]
        assert voice.said == ["Refused"]
    finally:
        queue.close()


def sox_stat(path: Path) -> dict[str, float]:
    text = subprocess.run(["sox", str(path), "-n", "stat"], capture_output=True, text=True).stderr
    out: dict[str, float] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        with contextlib.suppress(ValueError):
            out[key.strip()] = float(value)
    return out


@pytest.mark.parametrize(
    "text",
    [
        phrases.entry("Alice", 12, 103),
        COUNTS[0][3],
        COUNTS[2][3],
        phrases.counted("Alice", 103, score_hand("3H 6C 9D JS", "2S"))[0],
        phrases.entry("Bob", 2, 23, kind="heels"),
        phrases.to_count("Bob", crib=True),
        phrases.refusal(Refusal.NOT_YOUR_TURN),
        phrases.win("Bob", [("Bob", 121), ("Alice", 88)], skunk=1),
    ],
)
def test_espeak_renders_each_phrase_as_speech(tmp_path: Path, text: str) -> None:
    wav = tmp_path / "phrase.wav"
    subprocess.run([*EspeakVoice(SoundConfig()).argv, "-w", str(wav), "--", text], check=True)
    stat = sox_stat(wav)
    words = len(text.split())
    # espeak-ng at 165 words a minute: about 0.36 s a word, give or take pauses
    assert 0.15 * words < stat["Length (seconds)"] < 0.8 * words + 1
    assert stat["RMS     amplitude"] > 0.02  # not silence
