"""Turn what the service does into cues and phrases, without ever delaying a press: told once
the frame showing an entry or a refusal's sign was sent, :class:`Announcer` builds a short phrase
and hands it, with a cue, to players with threads of their own (docs/sound.md)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from boardctl.cribbage.hand import HandScore, score_hand
from boardctl.cribbage.rules import scoring_for
from boardctl.errors import refusal_of
from boardctl.refusals import Refusal
from boardctl.sound import phrases
from boardctl.sound.buzzer import CueGate, QuietHours
from boardctl.sound.cues import refusal_cue
from boardctl.sound.voice import SpeechQueue
from boardctl.view import lines_failed, skunk_lines

log = logging.getLogger(__name__)

Status = Mapping[str, Any]


# FALLBACK: until every EntryError the engine raises carries its class (an attribute
# ``refusal`` holding a boardctl.refusals.Refusal), the class is guessed from the type
# and the message here. An error that carries its class is never guessed.
_MESSAGE_CLASSES: tuple[tuple[Refusal, tuple[str, ...]], ...] = (
    (Refusal.GAME_OVER, ("game is over", "match is over", "has been won", "game over")),
    (Refusal.NOT_YOUR_TURN, ("counts first", "is not due", "count is due", "not due to")),
    (Refusal.IMPOSSIBLE, ("not a possible", "no hand or crib")),
    (Refusal.TOO_MANY_POINTS, ("pegging entry is", "more than one")),
    (Refusal.NO_SUCH_TRACK, ("tracks;", "there is no track", "no such track")),
)


def classify(error: BaseException) -> Refusal:
    """The refusal class of ``error``: its own ``refusal`` if it has one (fallback: guessed)."""
    own = refusal_of(error)  # the engine's own class (storage for the journal)
    if own is not Refusal.OTHER:
        return own
    if isinstance(error, OSError):
        return Refusal.STORAGE
    text = str(error).lower()
    for refusal, needles in _MESSAGE_CLASSES:
        if any(needle in text for needle in needles):
            return refusal
    return Refusal.OTHER


def _names(status: Status) -> list[str]:
    return [str(t.get("name", f"Track {i + 1}")) for i, t in enumerate(status.get("tracks") or [])]


def _fronts(status: Status) -> list[int]:
    return [int(t.get("front", 0)) for t in status.get("tracks") or []]


def _count(event: Mapping[str, Any], status: Status) -> HandScore | None:
    """The count of a hand or crib event that names its cards, under the game's house rules."""
    cards, starter, kind = event.get("cards"), event.get("starter"), event.get("kind")
    if not isinstance(cards, list) or not isinstance(starter, str) or kind not in ("hand", "crib"):
        return None
    house_rules = status.get("house_rules") or ()
    scoring = scoring_for(tuple(str(rule) for rule in house_rules))
    return score_hand([str(card) for card in cards], starter, crib=kind == "crib", scoring=scoring)


class Announcer:
    """Cues on ``cues`` and phrases on ``speech`` (either may be ``None``: not wired)."""

    def __init__(
        self,
        cues: CueGate | None = None,
        speech: SpeechQueue | None = None,
        *,
        status: Callable[[], Status] | None = None,
        muted: bool = False,
        quiet_hours: QuietHours | None = None,
    ) -> None:
        self.cues = cues
        self.speech = speech
        self.voice_gate = CueGate(muted=muted, quiet_hours=quiet_hours)
        self._status = status
        self._last: Status | None = status() if status is not None else None

    def close(self) -> None:
        """Stop both workers and release the buzzer."""
        if self.speech is not None:
            self.speech.close()
        if self.cues is not None:
            self.cues.close()

    def apply_setting(self, key: str, value: float | bool) -> None:
        """A setting changed at run time (``BoardSettings.on_sound``): volume or mute."""
        if key == "volume":
            if self.cues is not None:
                self.cues.volume = float(value)
            if self.speech is not None and hasattr(self.speech.voice, "volume"):
                self.speech.voice.volume = float(value)
        elif key == "mute":
            self.voice_gate.muted = bool(value)
            if self.cues is not None:
                self.cues.muted = bool(value)

    def _cue(self, name: str) -> None:
        if self.cues is not None:
            self.cues.play(name)

    def _say(self, lines: list[str]) -> None:
        """Speak ``lines``, unless muted or in quiet hours."""
        if self.speech is None or not lines or not self.voice_gate.audible():
            return
        self.speech.say(lines[0], interrupt=True)  # a new event: the old phrase is stale
        for line in lines[1:]:
            self.speech.say(line)

    def committed(self, command: object, result: Mapping[str, Any]) -> None:
        """A command was journalled (``Dispatcher.committed``): its cue and its words."""
        status = result.get("status")
        if not isinstance(status, Mapping) and self._status is not None:
            status = self._status()
        if not isinstance(status, Mapping):
            return
        before, self._last = self._last, status
        event = result.get("event") or {}
        try:
            cue, lines = self._describe(event, before, status)
        except (KeyError, IndexError, TypeError, ValueError) as exc:  # never break the loop
            log.warning("sound: cannot announce %s: %s", event, exc)
            return
        self._cue(cue)
        self._say(lines)

    def refused(self, command: object, error: BaseException) -> None:
        """An entry was refused or not saved (``Dispatcher.refused``): its class's cue."""
        reason = classify(error)
        self._cue(refusal_cue(reason))
        self._say([phrases.refusal(reason)])

    def say_score(self) -> None:
        """The score on request: every track, front peg first (no cue)."""
        status = self._status() if self._status is not None else self._last
        if status is not None:
            self._say([phrases.scores(list(zip(_names(status), _fronts(status), strict=True)))])

    def _describe(
        self, event: Mapping[str, Any], before: Status | None, after: Status
    ) -> tuple[str, list[str]]:
        op = event.get("op")
        names, fronts = _names(after), _fronts(after)
        pairs = list(zip(names, fronts, strict=True))
        if op in ("undo", "redo"):
            return str(op), [f"{'Undone' if op == 'undo' else 'Redone'}. {phrases.scores(pairs)}"]
        winner = after.get("winner")
        if isinstance(winner, int) and (before is None or before.get("winner") != winner):
            target = int(after.get("target", 121))
            losers = [f for i, f in enumerate(fronts) if i != winner]
            skunk = after.get("skunk")  # the skunk the winner is paid for (the lowest loser's)
            if not isinstance(skunk, int):
                lines = _lines(after)
                skunk = max((lines_failed(target, f, lines=lines) for f in losers), default=0)
            return "win", [phrases.win(names[winner], pairs, skunk=skunk)]
        if op == "peg":
            return _peg(event, before, after)
        starter = event.get("starter")
        if op == "cut" and isinstance(starter, str):
            if "dealer" not in event:  # the deal's starter named, nothing else
                return "next", [phrases.starter(starter)]
            return "next", [*_phase("cut", after, names), phrases.starter(starter)]
        return "next", _phase(str(op), after, names)


def _peg(event: Mapping[str, Any], before: Status | None, after: Status) -> tuple[str, list[str]]:
    """An entry: its words, the skunk line crossed, whose count is due, the board's question."""
    names, fronts = _names(after), _fronts(after)
    track, points = int(event["track"]), int(event.get("points", 0))
    count = _count(event, after)
    if count is not None:
        lines = phrases.counted(names[track], fronts[track], count)
    else:
        lines = [phrases.entry(names[track], points, fronts[track], kind=event.get("kind"))]
    cue = "commit"
    line = _lines(after)[0]
    was = _fronts(before)[track] if before is not None and track < len(_fronts(before)) else 0
    if line > 0 and was < line <= fronts[track]:
        cue = "skunk_line"
        lines.append(phrases.skunk_line(names[track]))
    return cue, lines + _whose_turn(after, names, before) + _ask(after, names)


def _phase(op: str, after: Status, names: list[str]) -> list[str]:
    """A cut, ``next`` or a new game: what the board moved on to."""
    lines = [phrases.NEW_GAME] if op == "new_game" else []
    if op not in ("cut", "next", "new_game"):
        return lines
    phase, dealer = after.get("phase"), after.get("dealer")
    if phase == "deal" and isinstance(dealer, int) and dealer < len(names):
        lines.append(phrases.deals(names[dealer]))
    elif phase == "play":
        lines.append(phrases.THE_PLAY)
    return lines + _whose_turn(after, names)


def _whose_turn(after: Status, names: list[str], before: Status | None = None) -> list[str]:
    """Whose count is due in the show (unless it was due already ``before``)."""
    due = after.get("to_count")
    if after.get("phase") != "show" or not isinstance(due, int) or due >= len(names):
        return []
    crib = bool(after.get("crib_due"))
    if before is not None and (before.get("to_count"), bool(before.get("crib_due"))) == (due, crib):
        return []
    return [phrases.to_count(names[due], crib=crib)]


def attach(announcer: Announcer, dispatcher: Any) -> None:
    """Listen to a :class:`~boardctl.service.dispatch.Dispatcher`'s commits and refusals."""
    dispatcher.committed.append(announcer.committed)
    dispatcher.refused.append(announcer.refused)


def _ask(status: Status, names: list[str]) -> list[str]:
    """The board's question about the entry just made, if it asks one (``status["ask"]``)."""
    ask = status.get("ask")
    if not isinstance(ask, Mapping) or not isinstance(ask.get("track"), int):
        return []
    track = int(ask["track"])
    name = names[track] if track < len(names) else f"Track {track + 1}"
    return [phrases.ask(name, int(ask["points"]), str(ask["kind"]), str(ask["other"]))]


def _lines(status: Status) -> tuple[int, ...]:
    """The game's skunk lines as the engine gives them (``lines``), else target-30, -60, -90."""
    given = status.get("lines")
    if isinstance(given, list | tuple) and given and all(isinstance(x, int) for x in given):
        return tuple(given)
    return skunk_lines(int(status.get("target", 121)))
