"""¿Suerte o viveza? checked: does a match's split add up? (docs/computer-players.md)

Matches to 30 between computer players (seat 0, "the person", of a level that changes from
match to match; seat 1 normal). For each, from seat 0's side:

- R, the result: its points minus the rival's at the end;
- D, its decisions, as the review measures them (`Luck.decisions`: every decision with a choice,
  what the move made was worth over the bots' baseline move there, over LUCK_WORLDS worlds; the
  rival played in the playouts as the computer player it is, as the bot's reviews do; with
  `--model`, as the model of a person instead);
- C = R − D, the cards, as the bot tells them;
- C*, an independent estimate of the cards: every hand of the match played again from its real
  start (the same deal, the same score) with seat 0 played by the bots' baseline player and the
  rival by its own level, REPLAYS times, the mean of the hand's points summed over the hands.

The residual C − C* = R − D − C* is what neither number explains (how the unseen cards and the
rival's choices fell against each decision's worth over the worlds, and the estimates' sampling
error). Printed: its distribution, per level, and the share of matches within the bound the
review states for it (`Luck.bound`, with C*'s standard error).

    python bench/luck.py --matches 200 --seed 1 --out /tmp/luck.json [--replays 16] [--model]

On a busy machine, in parts (each a process; the same matches, the same numbers):

    python bench/luck.py --matches 200 --part 1/2 --out /tmp/luck1.json &
    python bench/luck.py --matches 200 --part 2/2 --out /tmp/luck2.json &
    python bench/luck.py --merge /tmp/luck1.json /tmp/luck2.json
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
from bot.ai.review import decisions, luck_of
from bot.ai.rules import play_normal
from bot.ai.search import Machine, edge_of, facing, rivals_of
from bot.game import AnyAction, Deal, MatchConfig, MatchState, new_match, observe, random_deal
from bot.game.events import HandEnded
from bot.game.state import Phase

LEVELS = ("facil", "normal", "dificil")  # seat 0's, in turn
RIVAL = "normal"


def play(seed: int, level: str, config: MatchConfig, rival: str = RIVAL) -> list[AnyAction]:
    """A match of computer players, `level` in the even seats and `rival` in the odd ones, its
    deals and dice from `seed` (bench/daily_bank.py plays its matches here too)."""
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
        who = level if seat % 2 == 0 else rival
        action = decide(observe(state, seat), who, rng.getrandbits(32), budget=1.0)
        state.apply(action)
        log.append(action)
    return log


def baseline_hand(start: MatchState, rng: random.Random, inplace: bool = False) -> int:
    """One hand played from `start` (copied, unless `inplace`): seat 0 as the bots' baseline,
    the rival as its level; seat 0's side's points minus the rival's."""
    state = start if inplace else start.copy()
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


def in_truth(config: MatchConfig, log: list[AnyAction], replays: int, seed: int) -> float:
    """A: D as it would be if the unseen cards and the rival were known: each decision of seat
    0 with a choice, its move against the baseline's in the one true state, both hands played
    out by the baseline and the rival's real level, `replays` times on the same dice each. R − A
    − C* has nothing left but the rival's own dice and the replays' error (`--truth`)."""
    chosen = {obs.step: made for obs, made in decisions(config, log, 0)}
    state = MatchState(config)
    total = 0.0
    rng = random.Random(f"truth:{seed}")
    for action in log:
        if not isinstance(action, Deal) and state.phase is Phase.PLAY and action.seat == 0:
            obs = observe(state, 0)
            made = chosen.get(obs.step)
            if made is not None:
                diffs = []
                for _ in range(replays):
                    dice = rng.getrandbits(32)
                    usual = play_normal(obs, random.Random(dice), (), facing(rivals_of(obs)),
                                        edge_of(obs))  # fmt: skip
                    values = []
                    for move in (made, usual):
                        after = state.copy()
                        before = after.scores[0] - after.scores[1]
                        ended = any(isinstance(e, HandEnded) for e in after.apply(move))
                        if not ended and after.phase is Phase.PLAY:
                            baseline_hand(after, random.Random(dice + 1), inplace=True)
                        values.append(after.scores[0] - after.scores[1] - before)
                    diffs.append(values[0] - values[1])
                total += statistics.fmean(diffs)
        state.apply(action)
    return total


def cards_again(
    config: MatchConfig, log: list[AnyAction], replays: int, seed: int
) -> tuple[float, float, float]:
    """C*: every hand of the match replayed from its real start, `replays` times, the means
    summed; its standard error; and the dice, the standard deviation of one such play of the
    whole match (the one really played is one: the rival's bluffs and the baseline's)."""
    state = MatchState(config)
    total = variance = 0.0
    rng = random.Random(seed)
    for action in log:
        state.apply(action)
        if isinstance(action, Deal) and state.phase is Phase.PLAY:
            runs = [baseline_hand(state, rng) for _ in range(replays)]
            total += statistics.fmean(runs)
            variance += statistics.variance(runs) / replays
    return total, math.sqrt(variance), math.sqrt(variance * replays)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--replays", type=int, default=16)
    parser.add_argument("--target", type=int, default=30)
    parser.add_argument("--out", default="")
    parser.add_argument("--model", action="store_true", help="the rival as a person's model")
    parser.add_argument("--part", default="1/1", help="k/n: the matches whose index is k-1 mod n")
    parser.add_argument("--merge", nargs="*", help="the rows of parts run before: summed up")
    parser.add_argument("--only", choices=LEVELS, help="seat 0's level: its matches alone")
    parser.add_argument("--skip", type=int, default=0, help="of the matches chosen, the first N")
    parser.add_argument("--truth", action="store_true", help="A too (`in_truth`): R − A − C*")
    args = parser.parse_args()
    if args.merge:
        summary([row for path in args.merge for row in json.loads(Path(path).read_text())])
        return
    part, parts = (int(x) for x in args.part.split("/"))
    config = MatchConfig(players=2, target=args.target, flor=False)
    rows = []
    started = time.process_time()
    chosen = [i for i in range(args.matches) if args.only in (None, LEVELS[i % len(LEVELS)])]
    for place, index in enumerate(chosen[args.skip :]):
        if place % parts != part - 1:
            continue
        seed = args.seed + index
        level = LEVELS[index % len(LEVELS)]
        log = play(seed, level, config)
        machines = None if args.model else {1: Machine(RIVAL)}
        luck = luck_of(config, log, 0, table_id=seed, machines=machines)  # (the review's own)
        assert luck is not None
        again, again_error, dice = cards_again(config, log, args.replays, seed)
        row = {
            "seed": seed, "level": level, "R": luck.result, "D": round(luck.decisions, 3),
            "D_error": round(luck.error, 3), "C": round(luck.cards, 3), "C_star": round(again, 3),
            "C_star_error": round(again_error, 3), "residual": round(luck.cards - again, 3),
            "spread": round(luck.spread, 3), "dice": round(dice, 3),
            "bound": round(luck.bound(again_error, dice), 3),
        }  # fmt: skip
        if args.truth:
            truth = in_truth(config, log, args.replays, seed)
            row |= {"A": round(truth, 3), "residual_A": round(luck.result - truth - again, 3)}
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
        bounded = sum(1 for r in some if abs(float(r["residual"])) <= float(r["bound"])) / len(some)  # type: ignore[arg-type,misc]
        bounds = [float(r["bound"]) for r in some]  # type: ignore[arg-type]
        se = sd / math.sqrt(len(some))
        mean_of = {k: statistics.fmean(float(r[k]) for r in some) for k in ("R", "D", "C_star")}  # type: ignore[arg-type]
        if all("residual_A" in r for r in some):
            truth = [float(r["residual_A"]) for r in some]  # type: ignore[arg-type]
            print(f"{level or 'all'}: R − A − C* mean {statistics.fmean(truth):+.2f}"
                  f" ± {statistics.stdev(truth) / math.sqrt(len(truth)):.2f}"
                  f" sd {statistics.stdev(truth):.2f}")  # fmt: skip
        print(
            f"{level or 'all'}: n={len(some)} residual mean {mean:+.2f} ± {se:.2f} sd {sd:.2f}"
            f" p5 {q[0]:+.1f} p25 {q[4]:+.1f} p50 {q[9]:+.1f} p75 {q[14]:+.1f} p95 {q[18]:+.1f};"
            f" residual / its sampling error: sd {statistics.stdev(z):.2f},"
            f" within 2 {within:.0%}; sampling error median {statistics.median(errors):.2f};"
            f" within the bound {bounded:.1%} (bound median {statistics.median(bounds):.1f},"
            f" p90 {statistics.quantiles(bounds, n=10)[8]:.1f});"
            f" mean R {mean_of['R']:+.1f} D {mean_of['D']:+.1f} C* {mean_of['C_star']:+.1f}"
        )


if __name__ == "__main__":
    main()
