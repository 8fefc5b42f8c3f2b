"""Computer players. `decide(observation, level, seed)` is the whole interface: a player sees
what its seat sees (`bot.game.observe`) and nothing else, and answers with one of its legal
actions. Pure and picklable, so it runs in a process pool."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Collection
from enum import StrEnum

from bot.ai.characters import Character, bend
from bot.ai.personas import Belief
from bot.ai.rules import play_facil, play_normal, play_random
from bot.ai.search import play_dificil
from bot.ai.signs import SIGNS
from bot.game.actions import Action
from bot.game.observation import Observation


class Level(StrEnum):
    RANDOM = "random"  # benchmarks only: a uniformly random legal action
    FACIL = "facil"
    NORMAL = "normal"
    DIFICIL = "dificil"


LEVELS: tuple[Level, ...] = (Level.FACIL, Level.NORMAL, Level.DIFICIL)  # offered to players


def decide(
    obs: Observation,
    level: Level | str,
    seed: int | str | None = None,
    signs: Collection[str] = (),
    *,
    priors: dict[int, Belief] | None = None,
    character: Character | str | None = None,
    budget: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Action:
    """The action `level` takes at `obs` (its seat must have a legal action). difícil starts
    from `priors` (what it remembers of the rivals' seats, by seat) and thinks for `budget`
    seconds at most (a safety: its work is fixed, so a seed plays the same move on any machine;
    `clock` tells the time); a `character` bends normal's and difícil's choices its way."""
    if not obs.actions:
        raise ValueError("nothing to decide: the seat has no legal action")
    # A seña said twice says nothing more: the players see each once (a flood of repeats
    # must not slow a decision down, for this table or any other waiting on the same pool).
    signs = tuple(s for s in dict.fromkeys(signs) if s in SIGNS)
    rng = random.Random(seed)
    level = Level(level)
    if level is Level.RANDOM:
        return play_random(obs, rng)
    if level is Level.FACIL:
        return play_facil(obs, rng)
    if level is Level.NORMAL:
        chosen = play_normal(obs, rng, signs)
    else:
        chosen = play_dificil(obs, rng, signs, budget=budget, priors=priors, clock=clock)
    return bend(character, chosen, obs, rng) if character else chosen


__all__ = ["LEVELS", "Level", "decide"]
