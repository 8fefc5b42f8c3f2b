"""Engine speed: random legal matches, one core.

    python bench/engine.py [--matches N] [--seed S] [--repeat R]

Each step is `legal_actions()` then `apply()`; deals count as steps too. Each mode runs the same
matches `--repeat` times and reports the fastest run (the least disturbed by whatever else the
machine is doing: on a shared machine a single run varies by a third).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.game import MatchConfig, new_match, random_deal
from bot.game.seats import SEAT_COUNTS, mode_of


def play(config: MatchConfig, rng: random.Random) -> int:
    state = new_match(config)
    steps = 0
    while not state.is_over:
        if state.needs_deal:
            state.apply(random_deal(rng, config.players))
        else:
            state.apply(rng.choice(state.legal_actions()))
        steps += 1
    return steps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for players in SEAT_COUNTS:
        for flor in (True, False):
            config = MatchConfig(players=players, flor=flor)
            elapsed = float("inf")
            for _ in range(args.repeat):
                rng = random.Random(args.seed)
                start = time.perf_counter()
                steps = sum(play(config, rng) for _ in range(args.matches))
                elapsed = min(elapsed, time.perf_counter() - start)
            mode = mode_of(players)
            print(
                f"{mode} {'con' if flor else 'sin'} flor: {args.matches} matches, {steps} steps, "
                f"{steps / elapsed:,.0f} actions/s, {args.matches / elapsed:,.0f} matches/s"
            )


if __name__ == "__main__":
    main()
