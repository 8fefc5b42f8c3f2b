"""The review's cost: matches to 30 played by computer players, each seat's review timed (CPU
time of one core, `time.process_time`), and one review printed as a person reads it.

    python bench/review.py --matches 3 --seed 1 [--players 2] [--levels facil,normal]
        [--show es] [--seats 0,1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bot.ai import Level, decide
from bot.ai.review import Review, review
from bot.game import AnyAction, MatchConfig, new_match, observe, random_deal
from bot.i18n import translator

LEVELS = (Level.NORMAL, Level.FACIL, Level.DIFICIL)


def match(
    seed: int, players: int = 2, levels: tuple[str, ...] = ("normal", "facil")
) -> tuple[MatchConfig, list[AnyAction]]:
    """A match to 30 between computer players: its config and its action log."""
    config = MatchConfig(players=players, target=30, flor=False)
    state = new_match(config)
    log: list[AnyAction] = []
    rng = random.Random(seed)
    while not state.is_over:
        if state.needs_deal:
            deal = random_deal(random.Random(f"{seed}:{state.hand_number + 1}"), players)
            state.apply(deal)
            log.append(deal)
            continue
        seat = state.legal_actions()[0].seat
        level = levels[seat % len(levels)]
        action = decide(observe(state, seat), level, rng.getrandbits(32), budget=0.05)
        state.apply(action)
        log.append(action)
    return config, log


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--levels", default="facil,normal")
    parser.add_argument("--show", default="", help="print the reviews in this language")
    parser.add_argument("--seats", default="0,1", help="the seats reviewed")
    args = parser.parse_args()
    levels = tuple(args.levels.split(","))
    times = []
    for index in range(args.matches):
        config, log = match(args.seed + index, args.players, levels)
        for seat in (int(x) for x in args.seats.split(",")):
            wall = time.perf_counter()
            got: Review = review(config, log, seat, table_id=args.seed + index)
            wall = time.perf_counter() - wall
            times.append(got.seconds)
            print(
                f"match {index} seat {seat} ({levels[seat % len(levels)]}): {len(log)} actions,"
                f" {got.decisions} decisions, {got.weighed} weighed, {len(got.slips)} slips,"
                f" {len(got.praise)} praised: CPU {got.seconds:.2f} s, wall {wall:.2f} s"
            )
            if args.show:
                from bot.views.review import review_text

                print(review_text(translator(args.show), got, str(args.seed + index)))
                print()
    print(
        f"CPU per review: mean {statistics.mean(times):.2f} s, max {max(times):.2f} s"
        f" over {len(times)}"
    )


if __name__ == "__main__":
    main()
