"""Measure the demo: how long whole games take, and how well the computer pegs.

Run from the repository root::

    PYTHONPATH=. python benchmarks/bench_demo.py [--games 30] [--deals 3000]

Prints, per variant, the CPU time of a game without pauses and the watching
time at ``--speed 1`` (the sum of the pauses); then the pegging points per deal
of the demo player against two simpler players (always the first legal card;
always the card scoring most now) over the same random four-card hands, seats
alternating.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time
from collections.abc import Callable

from boardctl.cribbage.cards import DECK, Card
from boardctl.cribbage.play import PlayState, score_play
from boardctl.demo.display import Pacer, TextTable
from boardctl.demo.game import DemoGame, discard_advice
from boardctl.demo.players import PlayContext, Player

Chooser = Callable[[PlayContext], Card]


def bench_games(variant: str, games: int) -> None:
    cpu: list[float] = []
    watch: list[float] = []
    for seed in range(games):
        slept: list[float] = []
        table = TextTable(io.StringIO(), Pacer(1.0, sleep=slept.append))
        start = time.process_time()
        DemoGame(seed=seed, variant=variant, table=table).play()
        cpu.append(time.process_time() - start)
        watch.append(sum(slept))
    print(
        f"{variant:13} CPU per game: median {statistics.median(cpu) * 1000:.0f} ms; "
        f"at --speed 1: min {min(watch):.0f} s, mean {statistics.mean(watch):.0f} s, "
        f"max {max(watch):.0f} s"
    )


def first_legal(context: PlayContext) -> Card:
    return context.legal[0]


def greedy(context: PlayContext) -> Card:
    return max(context.legal, key=lambda card: score_play([*context.pile, card]).points)


def bench_pegging(deals: int) -> None:
    demo = Player("demo", discard_advice=discard_advice)
    for name, other in (("first legal card", first_legal), ("most points now", greedy)):
        rng = random.Random(1)
        points = [0, 0]
        for deal in range(deals):
            cards = list(DECK)
            rng.shuffle(cards)
            demo_seat = deal % 2
            state = PlayState([cards[0:4], cards[4:8]], dealer=(deal // 2) % 2)
            while not state.done and state.turn is not None:
                seat = state.turn
                legal = state.legal_plays(seat)
                if not legal:
                    state.go(seat)
                    continue
                context = PlayContext(
                    held=tuple(state.hands[seat]),
                    legal=tuple(legal),
                    pile=tuple(state.pile),
                    count=state.count,
                    my_score=60,
                    best_other_score=60,
                    target=121,
                )
                state.play(demo.play(context) if seat == demo_seat else other(context), seat)
            points[0] += state.points[demo_seat]
            points[1] += state.points[1 - demo_seat]
        print(
            f"pegging v {name}: demo player {points[0] / deals:.2f} points a deal, "
            f"the other {points[1] / deals:.2f} ({deals} deals)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--deals", type=int, default=3000)
    args = parser.parse_args()
    for variant in ("six-card", "five-card", "three-player", "four-player", "six-player"):
        bench_games(variant, args.games)
    bench_pegging(args.deals)


if __name__ == "__main__":
    main()
