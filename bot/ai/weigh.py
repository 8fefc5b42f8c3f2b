"""Moves weighed over worlds: each option played out to the end of the hand over the same deals
of the cards a seat could not see (difícil's `Sampler`, consistent with everything it saw), the
review's machinery (`bot.ai.review`) and la mano del día's (`bot.ai.puzzle`)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bot.ai.rivals import Rival
from bot.ai.rules import play_normal
from bot.ai.search import NORMAL, Machine, Sampler, _likelihood, edge_of, facing, playout
from bot.game.actions import Action, Deal
from bot.game.errors import IllegalActionError
from bot.game.events import HandEnded
from bot.game.observation import Observation, observe
from bot.game.seats import seats
from bot.game.state import MatchConfig, MatchState, Phase, side_of

WORLDS = 48  # worlds a move is weighed over
# How likely a move one of our computer players never makes with a world's cards is taken to
# be: a rival played in the playouts as the sound player it is built on (difícil too) may
# chant otherwise in truth, and a world is then unlikely, not impossible
MACHINE_FLOOR = 0.05
MACHINE_DRAWS = 8  # its own dice thrown, where they decide its move


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


@dataclass(frozen=True, slots=True)
class Gain:
    """What a move was worth over the baseline's (`over_baseline`): the mean over the worlds,
    its standard error, the worlds, and the spread of one world's difference about the mean
    (how far the one deal that was really dealt may put it: the cards' part, not the move's)."""

    points: float
    error: float
    count: int
    spread: float


class _Dice(random.Random):
    """A player's dice that always roll `at`: every chance it takes (`at` 0) or none (near 1)."""

    def __init__(self, at: float) -> None:
        super().__init__(0)
        self.at = at

    def random(self) -> float:
        return self.at


def _chance_of(machine: Machine, obs: Observation, action: Action, seed: int) -> float:
    """How likely `machine` was to make a move of `action`'s kind (a card, a chant, an answer)
    seeing `obs`: taken by a move its bluffs cannot change (its dice rolled both ways), or
    counted over its dice where they decide."""
    every, none = (machine.play(obs, _Dice(at)).kind is action.kind for at in (0.0, 0.999999))
    if every == none:
        return 1.0 if every else MACHINE_FLOOR
    rng = random.Random(seed)
    hits = sum(machine.play(obs, random.Random(rng.getrandbits(32))).kind is action.kind
               for _ in range(MACHINE_DRAWS))  # fmt: skip
    return max(hits / MACHINE_DRAWS, MACHINE_FLOOR)


def machine_fit(
    obs: Observation, world: MatchState, machines: Mapping[int, Machine], rivals: dict[int, Rival]
) -> float:
    """How much likelier a world is for what the rival seats that are our computer players did
    this hand, taken as they play, than the sampler's mild model of a person took it
    (`search._likelihood`, divided out): a normal that raised to real envido holds an envido
    it raises with, not one a person might bluff with."""
    h = world.hand
    if h is None or not obs.history:
        return 1.0
    side = side_of(obs.seat or 0)
    state = MatchState(obs.config)
    state.scores = list(obs.start_scores)
    state.hand_number = obs.hand_number - 1
    players = obs.config.players
    state.dealer = (obs.dealer - 1) % players if obs.hand_number > 1 else obs.dealer
    fit = 1.0
    try:
        state.deal_as(Deal(h.dealt), obs.duel)
        for place, action in enumerate(obs.history):
            machine = machines.get(action.seat)
            now = state.hand
            if machine is not None and side_of(action.seat) != side and now is not None:
                mild = _likelihood(action, now.pending(), h.dealt[action.seat],
                                   rivals.get(action.seat, NORMAL))  # fmt: skip
                seen = observe(state, action.seat)
                fit *= _chance_of(machine, seen, action, obs.hand_number * 1000 + place) / mild
            state.apply(action)
    except IllegalActionError:
        return 1.0  # (a duel dealt otherwise: the sampler's weight alone)
    return fit


def over_baseline(
    obs: Observation,
    made: Action,
    seed: str,
    worlds: int,
    machines: Mapping[int, Machine] | None = None,
) -> Gain:
    """What a move was worth over the move the bots' baseline would have made there (the
    player the playouts play the seat's side with, `play_normal` betting as the favourite it
    may be), both played out over the same worlds consistent with `obs`, each world's two
    playouts on the same dice. Summed over a person's decisions, it is what their decisions
    made against that player (¿suerte o viveza?, `bot.ai.review.Luck`). A rival seat that is
    one of our computer players (`machines`) plays in the playouts as it plays, not as the
    model of a person: against fácil's wild chants the model answers otherwise than normal
    does, and the split missed by 10 points a match (docs/computer-players.md)."""
    assert obs.seat is not None
    seat = obs.seat
    side = side_of(seat)
    rng = random.Random(seed)
    sampler = Sampler(obs, (), rng, machines=machines)
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
        if machines:
            weight *= machine_fit(obs, world, machines, sampler.rivals)
        # (the baseline's own move, drawn as its playout would draw it in this world)
        usual = play_normal(obs, random.Random(base + index), (), against, edge)
        values = []
        for option in (made, usual):
            state = world.copy()
            before = (state.scores[0], state.scores[1])
            ended = [e.winner for e in state.apply(option) if isinstance(e, HandEnded)]
            if not ended and state.phase is Phase.PLAY:
                playout(state, seat, random.Random(base + index + 1), sampler.rivals, against,
                        edge, sampler.personas, ended, machines)  # fmt: skip
            mine = state.scores[side] - before[side]
            values.append(float(mine - (state.scores[1 - side] - before[1 - side])))
        diffs.append(values[0] - values[1])
        weights.append(weight)
    total = sum(weights)
    if total <= 0:
        return Gain(0.0, 0.0, 0, 0.0)
    mean = sum(w * d for w, d in zip(weights, diffs, strict=True)) / total
    var = sum(w * (d - mean) ** 2 for w, d in zip(weights, diffs, strict=True)) / total
    effective = total * total / sum(w * w for w in weights)
    return Gain(mean, math.sqrt(var / max(effective - 1, 1)), len(weights), math.sqrt(var))
