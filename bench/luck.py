"""¿Suerte o viveza? checked: does a match's split add up? (docs/computer-players.md)

Matches to 30 between computer players (seat 0, "the person", of a level that changes from
match to match; seat 1 normal). For each, from seat 0's side:

- R, the result: its points minus the rival's at the end;
- D, its decisions, as the review measures them (`Luck.decisions`: every decision with a choice,
  what the move made was worth over the bots' baseline move there, over LUCK_WORLDS worlds);
- C = R − D, the cards, as the bot tells them;
- C*, an independent estimate of the cards: every hand of the match played again from its real
  start (the same deal, the same score) with seat 0 played by the bots' baseline player and the
  rival by its own level, REPLAYS times, the mean of the hand's points summed over the hands.

The residual C − C* = R − D − C* is what neither number explains (how the rival's choices and
the cards fell within each hand, and the estimates' sampling error). Printed: its distribution,
and per level.

    python bench/luck.py --matches 200 --seed 1 --out /tmp/luck.json [--replays 16]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from pathlib import Path

from bot.ai import decide
from bot.ai.review import review
from bot.ai.rules import play_normal
from bot.ai.search import edge_of, facing, rivals_of
from bot.game import AnyAction, Deal, MatchConfig, MatchState, new_match, observe, random_deal
from bot.game.events import HandEnded
from bot.game.state import Phase

LEVELS = ("facil", "normal", "dificil")  # seat 0's, in turn
RIVAL = "normal"


def play(seed: int, level: str, config: MatchConfig) -> list[AnyAction]:
    state = new_match(config)
    log: list[AnyAction] = []
    rng = random.Random(seed)
    while not state.is_over:
        if state.needs_deal:
            deal = random_deal(random.Random(f"{seed}:{state.hand_number + 1}"), config.players)
            state.apply(deal)
            log.append(deal)
            continue
        seat = state.legal_actions()[0].seat
        who = level if seat % 2 == 0 else RIVAL
        action = decide(observe(state, seat), who, rng.getrandbits(32), budget=1.0)
        state.apply(action)
        log.append(action)
    return log


def baseline_hand(start: MatchState, rng: random.Random) -> int:
    """One hand played from `start` (copied): seat 0 as the bots' baseline, the rival as its
    level; seat 0's side's points minus the rival's."""
    state = start.copy()
    before = (state.scores[0], state.scores[1])
    hand = state.hand_number
    while state.phase is Phase.PLAY and state.hand_number == hand:
        seat = state.legal_actions()[0].seat
        obs = observe(state, seat)
        if seat % 2 == 0:
            action = play_normal(obs, rng, (), facing(rivals_of(obs)), edge_of(obs))
        else:
            action = decide(obs, RIVAL, rng.getrandbits(32), budget=1.0)
        events = state.apply(action)
        if any(isinstance(e, HandEnded) for e in events):
            break
    return (state.scores[0] - before[0]) - (state.scores[1] - before[1])


def cards_again(
    config: MatchConfig, log: list[AnyAction], replays: int, seed: int
) -> tuple[float, float]:
    """C*: every hand of the match replayed from its real start, `replays` times, the means
    summed; and its standard error."""
    state = MatchState(config)
    total = variance = 0.0
    rng = random.Random(seed)
    for action in log:
        state.apply(action)
        if isinstance(action, Deal) and state.phase is Phase.PLAY:
            runs = [baseline_hand(state, rng) for _ in range(replays)]
            total += statistics.fmean(runs)
            variance += statistics.variance(runs) / replays
    return total, math.sqrt(variance)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--replays", type=int, default=16)
    parser.add_argument("--target", type=int, default=30)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    config = MatchConfig(players=2, target=args.target, flor=False)
    rows = []
    started = time.process_time()
    for index in range(args.matches):
        seed = args.seed + index
        level = LEVELS[index % len(LEVELS)]
        log = play(seed, level, config)
        got = review(config, log, 0, table_id=seed)
        luck = got.luck
        assert luck is not None
        again, again_error = cards_again(config, log, args.replays, seed)
        row = {
            "seed": seed, "level": level, "R": luck.result, "D": round(luck.decisions, 3),
            "D_error": round(luck.error, 3), "C": round(luck.cards, 3), "C_star": round(again, 3),
            "C_star_error": round(again_error, 3), "residual": round(luck.cards - again, 3),
        }  # fmt: skip
        rows.append(row)
        print(json.dumps(row), f"({time.process_time() - started:.0f} s)", flush=True)
        if args.out:
            Path(args.out).write_text(json.dumps(rows) + "\n")
    summary(rows)


def summary(rows: list[dict[str, object]]) -> None:
    for level in (None, *LEVELS):
        some = [r for r in rows if level is None or r["level"] == level]
        if len(some) < 2:
            continue
        res = sorted(float(r["residual"]) for r in some)  # type: ignore[arg-type]
        mean = statistics.fmean(res)
        sd = statistics.stdev(res)
        q = statistics.quantiles(res, n=20)
        errors = [math.hypot(float(r["D_error"]), float(r["C_star_error"])) for r in some]  # type: ignore[arg-type]
        z = [float(r["residual"]) / e for r, e in zip(some, errors, strict=True) if e > 0]  # type: ignore[arg-type]
        within = sum(1 for v in z if abs(v) <= 2) / len(z)
        se = sd / math.sqrt(len(some))
        mean_of = {k: statistics.fmean(float(r[k]) for r in some) for k in ("R", "D", "C_star")}  # type: ignore[arg-type]
        print(
            f"{level or 'all'}: n={len(some)} residual mean {mean:+.2f} ± {se:.2f} sd {sd:.2f}"
            f" p5 {q[0]:+.1f} p25 {q[4]:+.1f} p50 {q[9]:+.1f} p75 {q[14]:+.1f} p95 {q[18]:+.1f};"
            f" residual / its sampling error: sd {statistics.stdev(z):.2f},"
            f" within 2 {within:.0%}; sampling error median {statistics.median(errors):.2f};"
            f" mean R {mean_of['R']:+.1f} D {mean_of['D']:+.1f} C* {mean_of['C_star']:+.1f}"
        )


if __name__ == "__main__":
    main()
