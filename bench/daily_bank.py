"""The bank of la mano del día (bot/ai/positions.json): decisions of computer players' matches
with one clearly best choice, for a group that has no reviewed match of its own yet.

Matches between normal and fácil (1v1 and 2v2, con and sin flor, to 30 and to 15) are played;
each decision with a chant at hand or to answer is posed (`bot.ai.daily.pose`, every choice
weighed over the review's 48 worlds) and kept when it makes a good question (`Puzzle.good`:
its best choice beats every other a player weighs by half a point and three standard errors).
At most two a match; the rules vary so that a group that draws from the bank for weeks sees
every kind of table.

    python bench/daily_bank.py --positions 60 --seed 1 [--out bot/ai/positions.json]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from bot.ai import decide
from bot.ai.daily import position
from bot.ai.puzzle import askable, pose
from bot.game import AnyAction, Deal, MatchConfig, MatchState, new_match, observe, random_deal
from bot.game.actions import ActionKind

CONFIGS = (
    MatchConfig(players=2, target=30, flor=False),
    MatchConfig(players=2, target=30, flor=True),
    MatchConfig(players=4, target=30, flor=False),
    MatchConfig(players=2, target=15, flor=False),
)
LEVELS = ("normal", "facil")


def match(seed: int, config: MatchConfig) -> list[AnyAction]:
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
        action = decide(observe(state, seat), LEVELS[seat % 2], rng.getrandbits(32), budget=1.0)
        state.apply(action)
        log.append(action)
    return log


def through_hand(log: list[AnyAction], step: int) -> list[str]:
    """The log up to the end of the hand of `step` (the rest is never read)."""
    for index, action in enumerate(log):
        if index > step and isinstance(action, Deal):
            return [a.code for a in log[:index]]
    return [a.code for a in log]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--positions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="bot/ai/positions.json")
    args = parser.parse_args()
    kept: list[dict[str, object]] = []
    started = time.process_time()
    index = 0
    while len(kept) < args.positions:
        config = CONFIGS[index % len(CONFIGS)]
        seed = args.seed + index
        index += 1
        log = match(seed, config)
        state = MatchState(config)
        found = 0
        rng = random.Random(seed)
        steps: list[tuple[int, int]] = []
        for action in log:
            if not isinstance(action, Deal) and state.phase.name == "PLAY":
                obs = observe(state, action.seat)
                chant = obs.pending is not None or any(
                    a.kind is not ActionKind.PLAY for a in obs.actions
                )
                if askable(obs) and chant:
                    steps.append((action.seat, state.step))
            state.apply(action)
        rng.shuffle(steps)
        for seat, step in steps[:12]:
            got = position(config, log, seat, step)
            if got is None:
                continue
            obs, _ = got
            puzzle = pose(obs, f"bank:{seed}:{step}")
            if puzzle.good:
                kept.append({"config": config.options(), "log": through_hand(log, step),
                             "seat": seat, "step": step})  # fmt: skip
                found += 1
                print(f"{len(kept)}: match {seed} step {step} margin {puzzle.margin:.2f}"
                      f" ({time.process_time() - started:.0f} s)", flush=True)  # fmt: skip
                if found == 2 or len(kept) >= args.positions:
                    break
    Path(args.out).write_text(json.dumps(kept, separators=(",", ":")) + "\n", "utf-8")
    print(f"{len(kept)} positions from {index} matches in {time.process_time() - started:.0f} s")


if __name__ == "__main__":
    main()
