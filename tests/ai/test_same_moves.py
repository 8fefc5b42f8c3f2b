"""difícil's strength is its work, not the machine's speed: the same seed plays the same move on
a quiet machine and on a busy one (here a clock that runs several times faster than the work,
as a loaded machine's would). Its time is only a safety (`search.CAP`)."""

from __future__ import annotations

import random

from bot.ai import decide
from bot.game import MatchConfig, new_match, observe
from bot.game.dealing import random_deal
from bot.game.observation import Observation


def decisions(count: int, seed: int) -> list[Observation]:
    """Observations of a seat with a choice, from random matches played by normal."""
    rng = random.Random(seed)
    found: list[Observation] = []
    while len(found) < count:
        state = new_match(MatchConfig(players=2, target=30, flor=False))
        while not state.is_over and len(found) < count:
            if state.needs_deal:
                state.apply(random_deal(rng, 2))
                continue
            obs = observe(state, state.legal_actions()[0].seat)
            if len({a.code for a in obs.actions}) > 1 and rng.random() < 0.5:
                found.append(obs)
            state.apply(decide(obs, "normal", rng.random()))
    return found


class Clock:
    """A machine's time as the search reads it, once a world: `per_world` seconds each (the
    test's own clock, so that how busy the machine running the test is changes nothing)."""

    def __init__(self, per_world: float) -> None:
        self.per_world = per_world
        self.now = 0.0

    def __call__(self) -> float:
        self.now += self.per_world
        return self.now


def test_the_same_seed_plays_the_same_move_on_a_busy_machine() -> None:
    moves_quiet, moves_busy = [], []
    for index, obs in enumerate(decisions(24, seed=3)):  # (the old budget differed at 11)
        # a quiet machine (about this one's median: 1 ms a world) and one eight times slower
        moves_quiet.append(decide(obs, "dificil", index, clock=Clock(0.001)).code)
        moves_busy.append(decide(obs, "dificil", index, clock=Clock(0.008)).code)
    assert moves_busy == moves_quiet
