"""Where difícil leaves the normal player's choice, does it gain? A low-noise check, for tuning.

    python bench/deviations.py --opponent caller [--matches 20] [--tune SIGNIFICANCE=1.0]

The normal player plays matches against the opponent. At each of its decisions, difícil is
asked too (from the same observation). Where they differ, both choices are played out from the
*true* table (the real hidden cards, the real opponent) to the end of the hand many times, with
the normal player for our side afterwards and the same random numbers for both, and the
difference of the match-winning chance at the end of the hand is its gain. A whole match is one
noisy bit; a deviation valued against the truth is much less noisy, so a change can be judged
on a few hundred deviations instead of thousands of matches. (Only difícil's choice at that
moment is judged: its later moves are the normal player's.)
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ai import CONFIG, apply_tune, choose
from bot.ai import search
from bot.ai.estimate import equity
from bot.ai.rules import play_normal
from bot.game import MatchState, Phase, observe, random_deal, side_of
from bot.game.actions import Action


def rollout(state: MatchState, opponent: str, seed: int) -> float:
    """Side 0's match chance at the end of this hand: side 0 normal, side 1 the opponent."""
    rng = random.Random(seed)
    hand = state.hand_number
    while state.phase is Phase.PLAY and state.hand_number == hand:
        seat = state.legal_actions()[0].seat
        obs = observe(state, seat)
        if side_of(seat) == 0:
            state.apply(play_normal(obs, rng))
        else:
            state.apply(choose(opponent, obs, f"{seed}:{state.step}"))
    if state.phase is Phase.OVER:
        return 1.0 if state.winner == 0 else 0.0
    return equity(state.scores[0], state.scores[1], state.config.target)


def value(state: MatchState, action: Action, opponent: str, rollouts: int, seed: int) -> float:
    total = 0.0
    for i in range(rollouts):
        world = state.copy()
        world.apply(action)
        total += rollout(world, opponent, seed * 1000 + i)
    return total / rollouts


def match(opponent: str, seed: int, rollouts: int, tune: str) -> list[tuple[str, float]]:
    search.CAP = math.inf
    apply_tune(tune)
    state = MatchState(CONFIG)
    found: list[tuple[str, float]] = []
    while not state.is_over:
        if state.needs_deal:
            state.apply(random_deal(random.Random(f"{seed}:{state.hand_number + 1}"), 2))
            continue
        seat = state.legal_actions()[0].seat
        obs = observe(state, seat)
        name = "normal" if seat == 0 else opponent
        action = choose(name, obs, f"{seed}:{state.step}:{seat}")
        if seat == 0 and len(obs.actions) > 1:
            hard = choose("dificil", obs, f"{seed}:{state.step}:{seat}")
            if hard != action:
                gain = value(state, hard, opponent, rollouts, state.step) - value(
                    state, action, opponent, rollouts, state.step
                )
                found.append((f"{action.kind.value}->{hard.kind.value}", gain))
        state.apply(action)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--opponent", default="caller")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--rollouts", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tune", default="")
    args = parser.parse_args()
    seeds = [args.seed * 1000 + i for i in range(args.matches)]
    gains: list[tuple[str, float]] = []
    with ProcessPoolExecutor(args.jobs) as pool:
        n = len(seeds)
        for found in pool.map(match, [args.opponent] * n, seeds, [args.rollouts] * n,
                              [args.tune] * n):  # fmt: skip
            gains += found
    values = [g for _, g in gains]
    n = len(values)
    mean = sum(values) / max(n, 1)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / max(n - 1, 1))
    print(f"{args.opponent} {args.tune or 'as is'}: {n} deviations in {args.matches} matches, "
          f"gain per deviation {mean * 100:+.2f} ± {1.96 * sd / math.sqrt(max(n, 1)) * 100:.2f} "
          f"points of match chance, per match {sum(values) / args.matches * 100:+.1f}")  # fmt: skip
    by_kind: dict[str, list[float]] = {}
    for kind, g in gains:
        by_kind.setdefault(kind, []).append(g)
    for kind, gs in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        print(f"  {kind}: {len(gs)}, mean {sum(gs) / len(gs) * 100:+.2f}")


if __name__ == "__main__":
    main()
