"""Moves weighed over worlds: each option played out to the end of the hand over the same deals
of the cards a seat could not see (difícil's `Sampler`, consistent with everything it saw), the
review's machinery (`bot.ai.review`) and la mano del día's (`bot.ai.puzzle`)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.ai.rules import play_normal
from bot.ai.search import Sampler, edge_of, facing, playout
from bot.game.actions import Action
from bot.game.events import HandEnded
from bot.game.observation import Observation
from bot.game.seats import seats
from bot.game.state import MatchConfig, MatchState, Phase, side_of

WORLDS = 48  # worlds a move is weighed over


@dataclass(frozen=True, slots=True)
class Worth:
    """A move's value over the worlds: points (its side's minus the other's, to the hand's end)
    and the share of the worlds in which its side won the hand."""

    points: float
    won: float


# -- who is who, from the person's seat ------------------------------------------------------------
YOU, PARTNER, RIVAL = 0, 1, 2


def relative(config: MatchConfig, seat: int, other: int) -> int:
    if other == seat:
        return YOU
    return PARTNER if other in seats(config.players).partners(seat) else RIVAL


@dataclass(frozen=True, slots=True)
class Weighed:
    """Options played out over the same worlds: each world's points per option and its weight
    (the worlds, and so each option's value, do not depend on which other options are
    weighed with it: the same seed gives an option the same value beside any others)."""

    points: tuple[tuple[float, ...], ...]  # per option, per world
    wins: tuple[tuple[float, ...], ...]
    weights: tuple[float, ...]
    seen: tuple[float, ...] = ()  # per world, what `weigh`'s `look` measured of it

    def share(self) -> float:
        """The weighted mean of what `look` measured over the worlds."""
        total = sum(self.weights)
        if total <= 0 or not self.seen:
            return 0.0
        return sum(w * x for w, x in zip(self.weights, self.seen, strict=True)) / total

    @property
    def count(self) -> int:
        return len(self.weights)

    def worths(self) -> list[Worth]:
        total = sum(self.weights)
        if total <= 0:
            return [Worth(0.0, 0.0) for _ in self.points]
        return [
            Worth(
                sum(w * p for w, p in zip(self.weights, points, strict=True)) / total,
                sum(w * p for w, p in zip(self.weights, wins, strict=True)) / total,
            )
            for points, wins in zip(self.points, self.wins, strict=True)
        ]

    def error(self, a: int, b: int) -> float:
        """The standard error of option `a`'s value minus option `b`'s (paired by world)."""
        weights = self.weights
        total = sum(weights)
        if total <= 0:
            return math.inf
        if a == b or max(a, b) >= len(self.points):
            return 0.0
        effective = total * total / sum(w * w for w in weights)
        diffs = [x - y for x, y in zip(self.points[a], self.points[b], strict=True)]
        mean = sum(w * d for w, d in zip(weights, diffs, strict=True)) / total
        var = sum(w * (d - mean) ** 2 for w, d in zip(weights, diffs, strict=True)) / total
        return math.sqrt(var / max(effective - 1, 1))


def weigh(
    obs: Observation,
    options: Sequence[Action],
    seed: str,
    worlds: int = WORLDS,
    look: Callable[[MatchState], float] | None = None,
) -> Weighed:
    """Each option played out over the same worlds consistent with `obs`, each to the end of
    the hand (`worth`'s machinery, its raw numbers); `look`, something measured of each world
    as dealt (whose envido wins, say)."""
    assert obs.seat is not None
    seat = obs.seat
    side = side_of(seat)
    rng = random.Random(seed)
    sampler = Sampler(obs, (), rng)
    against = facing(sampler.rivals)
    edge = edge_of(obs)
    points: list[list[float]] = [[] for _ in options]
    wins: list[list[float]] = [[] for _ in options]
    weights: list[float] = []
    seen: list[float] = []
    base = rng.getrandbits(32)
    for index in range(worlds):
        found = sampler.world()
        if found is None:
            break
        world, weight = found
        if look is not None:
            seen.append(look(world))
        for i, option in enumerate(options):
            state = world.copy()
            before = (state.scores[0], state.scores[1])
            ended = [e.winner for e in state.apply(option) if isinstance(e, HandEnded)]
            if not ended and state.phase is Phase.PLAY:
                playout(state, seat, random.Random(base + index), sampler.rivals, against, edge,
                        sampler.personas, ended)  # fmt: skip
            mine = state.scores[side] - before[side]
            theirs = state.scores[1 - side] - before[1 - side]
            points[i].append(float(mine - theirs))
            won = ended[0] == side if ended else state.winner == side
            wins[i].append(1.0 if won else 0.0)
        weights.append(weight)
    return Weighed(tuple(map(tuple, points)), tuple(map(tuple, wins)), tuple(weights), tuple(seen))


def over_baseline(
    obs: Observation, made: Action, seed: str, worlds: int
) -> tuple[float, float, int]:
    """What a move was worth over the move the bots' baseline would have made there (the
    player the playouts play the seat's side with, `play_normal` betting as the favourite it
    may be), both played out over the same worlds consistent with `obs`, each world's two
    playouts on the same dice: (the mean difference, its standard error, the worlds). Summed
    over a person's decisions, it is what their decisions made against that player
    (¿suerte o viveza?, `bot.ai.review.Luck`)."""
    assert obs.seat is not None
    seat = obs.seat
    side = side_of(seat)
    rng = random.Random(seed)
    sampler = Sampler(obs, (), rng)
    against = facing(sampler.rivals)
    edge = edge_of(obs)
    base = rng.getrandbits(32)
    diffs: list[float] = []
    weights: list[float] = []
    for index in range(worlds):
        found = sampler.world()
        if found is None:
            break
        world, weight = found
        # (the baseline's own move, drawn as its playout would draw it in this world)
        usual = play_normal(obs, random.Random(base + index), (), against, edge)
        values = []
        for option in (made, usual):
            state = world.copy()
            before = (state.scores[0], state.scores[1])
            ended = [e.winner for e in state.apply(option) if isinstance(e, HandEnded)]
            if not ended and state.phase is Phase.PLAY:
                playout(state, seat, random.Random(base + index + 1), sampler.rivals, against,
                        edge, sampler.personas, ended)  # fmt: skip
            mine = state.scores[side] - before[side]
            values.append(float(mine - (state.scores[1 - side] - before[1 - side])))
        diffs.append(values[0] - values[1])
        weights.append(weight)
    total = sum(weights)
    if total <= 0:
        return 0.0, 0.0, 0
    mean = sum(w * d for w, d in zip(weights, diffs, strict=True)) / total
    var = sum(w * (d - mean) ** 2 for w, d in zip(weights, diffs, strict=True)) / total
    effective = total * total / sum(w * w for w in weights)
    return mean, math.sqrt(var / max(effective - 1, 1)), len(weights)
