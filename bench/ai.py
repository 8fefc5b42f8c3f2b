"""Computer players head to head: 1v1 matches to 30, con flor, deals mirrored.

    python bench/ai.py [--matches N] [--pairs random:facil,facil:normal,...] [--jobs J]
    python bench/ai.py --hand-points 5000     # the hand-size table of bot/ai/estimate.py

Each deal sequence is played twice, with the seats swapped, so luck of the cards cancels out;
a pair of mirrored matches is the unit of the confidence interval (95%, normal approximation
over pairs). Also printed per level: decisions per second and the p99 time of one decision
(only decisions with a choice; a single legal action is not a decision).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.ai import Level, decide
from bot.game import MatchConfig, new_match, observe, random_deal, side_of

CONFIG = MatchConfig(players=2, target=30, flor=True)
DEFAULT_PAIRS = (
    "facil:random,normal:facil,dificil:normal,dificil:random,normal:random,dificil:facil"
)


def play(levels: tuple[str, str], seed: int) -> tuple[int, dict[str, list[float]]]:
    """One match; `levels[s]` plays seat s. Returns the winning seat and decision times."""
    state = new_match(CONFIG)
    times: dict[str, list[float]] = {levels[0]: [], levels[1]: []}
    while not state.is_over:
        if state.needs_deal:
            state.apply(random_deal(random.Random(f"{seed}:{state.hand_number + 1}"), 2))
            continue
        seat = state.legal_actions()[0].seat
        obs = observe(state, seat)
        level = levels[seat]
        started = time.perf_counter()
        action = decide(obs, level, f"{seed}:{state.step}:{seat}")
        if len(obs.actions) > 1:
            times[level].append(time.perf_counter() - started)
        state.apply(action)
    assert state.winner is not None
    return side_of(state.winner), times


def mirrored(a: str, b: str, seed: int) -> tuple[float, dict[str, list[float]]]:
    """A's score over a deal sequence played twice (A as seat 0, then as seat 1)."""
    first, t1 = play((a, b), seed)
    second, t2 = play((b, a), seed)
    score = (first == 0) * 0.5 + (second == 1) * 0.5
    times = {k: t1.get(k, []) + t2.get(k, []) for k in {*t1, *t2}}
    return score, times


def run_chunk(a: str, b: str, seeds: list[int]) -> tuple[list[float], dict[str, list[float]]]:
    scores: list[float] = []
    times: dict[str, list[float]] = {}
    for seed in seeds:
        score, t = mirrored(a, b, seed)
        scores.append(score)
        for k, v in t.items():
            times.setdefault(k, []).extend(v)
    return scores, times


def hand_points(hands: int) -> None:
    """Normal vs normal: how many points each hand gives each side, as a frequency table."""
    counts: Counter[tuple[int, int]] = Counter()
    seed = 0
    done = 0
    while done < hands:
        seed += 1
        state = new_match(CONFIG)
        while not state.is_over and done < hands:
            if state.needs_deal:
                start = tuple(state.scores)
                state.apply(random_deal(random.Random(f"hp{seed}:{state.hand_number}"), 2))
                mano = state.hand.mano if state.hand else 0
                while state.phase.value == "play":
                    seat = state.legal_actions()[0].seat
                    state.apply(decide(observe(state, seat), Level.NORMAL, f"{seed}:{state.step}"))
                got = (state.scores[mano] - start[mano], state.scores[1 - mano] - start[1 - mano])
                if not state.is_over:
                    counts[(max(got), min(got))] += 1
                    done += 1
    total = sum(counts.values())
    print("HAND_POINTS = (  # (more, fewer, frequency)")
    for (more, fewer), n in sorted(counts.items(), key=lambda kv: -kv[1]):
        if n / total >= 0.002:
            print(f"    ({more}, {fewer}, {n / total:.3f}),")
    print(")")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=2000, help="matches per pairing")
    parser.add_argument("--pairs", default=DEFAULT_PAIRS)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hand-points", type=int, default=0)
    args = parser.parse_args()
    if args.hand_points:
        hand_points(args.hand_points)
        return
    all_times: dict[str, list[float]] = {}
    rows = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for pair in args.pairs.split(","):
            a, b = pair.split(":")
            Level(a), Level(b)
            seeds = [args.seed * 1_000_000 + i for i in range(args.matches // 2)]
            chunks = [seeds[i :: args.jobs * 4] for i in range(args.jobs * 4)]
            started = time.perf_counter()
            scores: list[float] = []
            for chunk_scores, times in pool.map(run_chunk, [a] * len(chunks), [b] * len(chunks),
                                                 chunks):  # fmt: skip
                scores += chunk_scores
                for k, v in times.items():
                    all_times.setdefault(k, []).extend(v)
            n = len(scores)
            mean = sum(scores) / n
            var = sum((s - mean) ** 2 for s in scores) / max(n - 1, 1)
            half = 1.96 * math.sqrt(var / n)
            took = time.perf_counter() - started
            rows.append((a, b, 2 * n, mean, mean - half, mean + half, took))
            print(f"{a} vs {b}: {2 * n} matches, {mean:.1%} [{mean - half:.1%}, "
                  f"{mean + half:.1%}] in {took:.0f} s", flush=True)  # fmt: skip
    print()
    print("| pairing | matches | first wins | 95% CI |")
    print("|---|---|---|---|")
    for a, b, n, mean, low, high, _ in rows:
        print(f"| {a} vs {b} | {n} | {mean:.1%} | {low:.1%} – {high:.1%} |")
    print()
    print("| level | decisions | decisions/s (one core) | p50 | p99 | max |")
    print("|---|---|---|---|---|---|")
    for level in Level:
        t = sorted(all_times.get(level.value, []))
        if not t:
            continue
        rate = len(t) / sum(t)
        p50, p99 = t[len(t) // 2], t[min(len(t) - 1, int(len(t) * 0.99))]
        print(f"| {level.value} | {len(t)} | {rate:,.0f} | {p50 * 1000:.2f} ms | "
              f"{p99 * 1000:.1f} ms | {t[-1] * 1000:.1f} ms |")  # fmt: skip


if __name__ == "__main__":
    main()
