"""The forgotten menu press: how many entries end up filed wrong without the board noticing.

Run from the repository root::

    python benchmarks/bench_forgotten_menu.py [--games 10000] [--forget 0.3] [--seed 1]

Each game is a real two-player six-card game dealt and played by the demo's
players (the rules engine scores every play and count; the discard is the
first two cards, to keep 10,000 games fast). Its entries are replayed as the
buttons send them (no kind: the engine infers it; a count of 0 in the show is
a menu press) into a second engine, and each menu press that ends the deal
or the play is forgotten with probability ``--forget``.

The simulated player reacts to the board only: when an entry is refused (the
board's sign), the slip is noticed, and the player undoes the entries made
since the forgotten press, presses menu and enters them again. When the board
asks about an entry (the white start hole, ``status["ask"]``), the player, who knows
what the entry was, answers: undo held (``refile``) if it is the other kind,
nothing otherwise. An entry is counted *misfiled* when the journal keeps it
under another kind or track than the one the cards gave it, and neither a
refusal nor a question of the board led to its being put right.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import boardctl.demo.game as demo_game  # noqa: E402
from boardctl.errors import EntryError  # noqa: E402
from boardctl.game.commands import Brightness, Command, Cut, Next, Peg, Redo, Undo  # noqa: E402
from boardctl.game.keeper import Scorekeeper  # noqa: E402

Step = tuple[str, int, int, str]  # ("peg", track, points, true kind) or ("next", 0, 0, "")


def _first_cards(
    cards: object, own_crib: bool, count: int, **_rules: object
) -> list[tuple[object, ...]]:
    return [tuple(list(cards)[:count])]  # type: ignore[call-overload]


def transcript(seed: int) -> tuple[int, list[Step]]:
    """The first dealer and the entries of one real game, as the cards gave them."""
    demo_game.discard_advice = _first_cards  # type: ignore[assignment]
    game = demo_game.DemoGame(seed=seed)
    game.play()
    steps: list[Step] = []
    dealer = 0
    for row in game.keeper.history():
        event = row["event"]
        if event["op"] == "cut":
            dealer = int(event["dealer"])
        elif event["op"] == "peg":
            steps.append(("peg", int(event["track"]), int(event["points"]), str(event["kind"])))
        elif event["op"] == "next":
            steps.append(("next", 0, 0, ""))
    return dealer, steps


@dataclass
class Tally:
    games: int = 0
    entries: int = 0
    forgotten: int = 0
    noticed: int = 0  # slips the board refused, then put right
    stuck: int = 0  # refused even after the fix (entered with its kind instead)
    asked: int = 0  # entries the board asked about
    moved: int = 0  # of which the player filed as the other kind (undo held)
    misfiled: Counter[str] = field(default_factory=Counter)


Event = dict[str, object] | None  # the journalled event of an entry (None: a press)


def replay(dealer: int, steps: list[Step], rng: random.Random, forget: float, tally: Tally) -> None:
    """Enter ``steps`` as the buttons would, forgetting phase-ending menu presses at random.

    A second engine takes the true entries (with their kinds): while the board's
    position differs from it, the entries since the first forgotten press are open
    (a refusal puts them right); once the positions agree, what is filed stays filed.
    """
    setup = {"variant": "six-card", "mode": "guided", "preset": "acc"}
    board, truth = Scorekeeper.memory(setup), Scorekeeper.memory(setup)
    board.apply(Cut(dealer))
    truth.apply(Cut(dealer))
    since: list[tuple[Step, Event]] = []  # from the first forgotten press not yet absorbed
    tally.games += 1
    for step in steps:
        _op, track, points, kind = step
        truth.apply(Next() if step[0] == "next" else Peg(track, points, kind))
        if step[0] == "next":
            if board.status()["phase"] in ("deal", "play") and rng.random() < forget:
                tally.forgotten += 1
                since.append((("forgot", 0, 0, ""), None))
                continue
        else:
            tally.entries += 1
        try:
            event = _send(board, step, tally)
        except EntryError:
            if since:
                tally.noticed += 1
                _put_right(board, since, step, tally)
            else:
                tally.stuck += 1
                _check(step, _with_kind(board, step), tally)
            since = []
            continue
        if not since:
            _check(step, event, tally)
            continue
        since.append((step, event))
        if _same_position(board, truth):  # the slip was absorbed: what is filed stays filed
            _settle(since, tally)
            since = []
        if truth.state.winner is not None:
            break
    _settle(since, tally)


def _same_position(board: Scorekeeper, truth: Scorekeeper) -> bool:
    a, b = board.state, truth.state
    keys = ("flow", "dealer", "deal", "count_index", "heels", "winner")
    same = all(getattr(a, key) == getattr(b, key) for key in keys)
    return same and [t.front for t in a.tracks] == [t.front for t in b.tracks]


def _send(board: Scorekeeper, step: Step, tally: Tally) -> Event:
    """One entry as the panel sends it: a count of 0 in the show is a menu press.

    If the board then asks about it, the player answers as the cards say.
    """
    op, track, points, kind = step
    command: Command = Next() if op == "next" or points == 0 else Peg(track, points)
    event = _press(board, command)
    ask = board.status().get("ask")
    if isinstance(ask, dict) and event is not None:
        tally.asked += 1
        if ask["other"] == kind:  # the player knows better: undo held files it so
            tally.moved += 1
            moved = _press(board, Redo())
            assert moved is not None and moved["op"] == "refile"
            event = {**moved, "op": "peg"}
    return event


def _press(board: Scorekeeper, command: Command) -> Event:
    pressed = board.button_command(command)
    assert not isinstance(pressed, Brightness)
    result = board.apply(pressed)
    event = result["event"]
    return event if isinstance(event, dict) and event.get("op") in ("peg", "refile") else None


def _with_kind(board: Scorekeeper, step: Step) -> Event:
    _op, track, points, kind = step
    try:
        event = board.apply(Peg(track, points, kind))["event"]
    except EntryError:
        return {"op": "peg", "track": -1, "kind": "refused"}
    return event if isinstance(event, dict) else None


def _put_right(
    board: Scorekeeper, since: list[tuple[Step, Event]], step: Step, tally: Tally
) -> None:
    """Undo the entries since the forgotten press, press menu, enter them all again."""
    entries = sum(1 for s, _ in since if s[0] != "forgot")
    for _ in range(entries):
        board.apply(Undo())
    for entry, _event in [*since, (step, None)]:
        if entry[0] == "forgot":
            board.apply(Next())  # the press that was forgotten
            continue
        try:
            event = _send(board, entry, tally)
        except EntryError:
            tally.stuck += 1
            event = _with_kind(board, entry)
        _check(entry, event, tally)


def _settle(since: list[tuple[Step, Event]], tally: Tally) -> None:
    for step, event in since:
        if step[0] != "forgot":
            _check(step, event, tally)


def _check(step: Step, event: Event, tally: Tally) -> None:
    op, track, points, kind = step
    if op == "next":
        if event is not None:  # the press meant "the next phase" but entered a 0 count
            tally.misfiled[f"menu press filed as {event.get('kind')} 0"] += 1
        return
    if event is None:
        if points:
            tally.misfiled[f"{kind} not entered"] += 1
        return  # a count of 0 entered with menu moves nothing and journals a 0 count
    if event.get("track") != track or event.get("kind") != kind:
        tally.misfiled[f"{kind} filed as {event.get('kind')}"] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--forget", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="without the engine's rule that a count the play cannot peg starts the show",
    )
    parser.add_argument(
        "--no-ask", action="store_true", help="without the board's questions (as before them)"
    )
    args = parser.parse_args()
    if args.baseline:
        from boardctl.game import entries

        entries._beyond_the_play = lambda state, points, limits: False
    if args.no_ask:
        from boardctl.game import entries

        entries.ask_about = lambda entry: None
    rng = random.Random(args.seed)
    tally = Tally()
    started = time.perf_counter()
    for seed in range(args.games):
        dealer, steps = transcript(seed)
        replay(dealer, steps, rng, args.forget, tally)
    seconds = time.perf_counter() - started
    total = sum(tally.misfiled.values())
    print(f"games {tally.games}, entries {tally.entries}, menu presses forgotten {tally.forgotten}")
    print(f"slips the board refused (its sign shown) and put right: {tally.noticed}")
    print(f"entries refused again after the fix (entered with their kind): {tally.stuck}")
    print(f"entries the board asked about: {tally.asked} (filed as the other kind: {tally.moved})")
    print(f"entries misfiled without the board noticing: {total}")
    for case, count in tally.misfiled.most_common():
        print(f"  {case}: {count}")
    print(f"({seconds:.0f} s)")


if __name__ == "__main__":
    main()
