"""💡 A hint: what difícil would do at a seat now, and the chance it reckons it has.

The hint reads the asking seat's `Observation` only (what the person sees), exactly as the
computer players do: its move is difícil's for the same observation and seed, and its chance
comes from the same imagined worlds (deals of the hidden cards consistent with everything the
seat saw, weighted by how likely they made the rivals' chants):

- about the **envido** (answering one, or chanting one): the share of the worlds in which the
  seat's side holds the best envido of the table (ties to the one nearer the mano, F5);
- about **the hand** (a card, a truco, an answer to a truco, the mazo): the share in which its
  side wins the hand, played out from the move by the same players as difícil's playouts. For
  a refusal or the mazo, which lose the hand for sure, the chance is the one it turns down:
  that of the hand wanted (or played on with its best card, or the truco waiting wanted);
- about a **flor** (answering one): the share in which its side holds the best flor.

With the chance, what is at stake (`Stakes`): what backing down gives (a refusal, the mazo;
the rivals refusing a chant) and what the bet is worth wanted, as the engine scores them. A
hint always tells its chance: the budget is a few worlds at least (FLOOR), however busy the
machine (a hint that says only its move teaches nothing).

Whether those chances are true is measured, not assumed: `python bench/ai.py --calibration
--rivals ...` compares each stated chance with what happened, against each kind of rival
apart. The envido's goes through its map (CALIBRATION), the rival's chants already read in the
worlds' weights (`envido_tells`); the hand's and a refusal's are reckoned against the rivals at
the table (RECKONING): what the match, and the rivals memory, has shown of them (`Known`: the
persona belief difícil keeps, and the table's counts of their habits: trucos wanted, chanted,
mazos, envidos wanted and chanted) and the score so far; against rivals not known yet the
hint says so, with the range the chance may be in (`Hint.span`).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import NamedTuple

from bot.ai import personas, rivals
from bot.ai.estimate import ENVIDO_FLOOR
from bot.ai.search import Machine, Sampler, edge_of, facing, play_dificil, playout
from bot.ai.signs import SIGNS
from bot.ai.tells import CHANT_RATE
from bot.ai.tells import PRIOR as TELLS_PRIOR
from bot.game.actions import ENVIDO_CHANTS, FLOR_CHANTS, TRUCO_CHANTS, Action, ActionKind
from bot.game.cards import DECK, envido_value, flor_value, has_flor
from bot.game.events import HandEnded, Scored
from bot.game.observation import Observation
from bot.game.scoring import (
    envido_not_wanted_value,
    envido_wanted_value,
    truco_not_wanted_value,
    truco_wanted_value,
)
from bot.game.state import MatchState, Pending, Phase, side_of

K = ActionKind

WORLDS = 120  # worlds for the chance, at most (the budget stops it sooner on a slow machine)
BUDGET = 0.1  # seconds for the chance, after difícil's own move
FLOOR = 12  # worlds a chance is told on at least, whatever the budget (the machine's load)
FLOR_FAMILY = frozenset({*FLOR_CHANTS, ActionKind.CON_FLOR_ME_ACHICO})


class Topic(StrEnum):
    ENVIDO = "envido"  # the chance to hold the best envido
    HAND = "hand"  # the chance to win the hand
    FLOR = "flor"  # the chance to hold the best flor
    NONE = "none"  # no chance to tell (no world could be drawn)


@dataclass(frozen=True, slots=True)
class Stakes:
    """What a hint's move puts at stake, in points: `folded`, what backing down gives (the
    rivals, for a refusal or the mazo; the seat's side, when the rivals refuse its chant);
    `wanted`, what the bet is worth played out (the truco's hand, the envido's points);
    `now`, what the hand is worth before the move."""

    folded: int
    wanted: int
    now: int


@dataclass(frozen=True, slots=True)
class Hint:
    action: Action  # difícil's move
    topic: Topic
    chance: float | None  # the chance (0-1) of the topic, calibrated; None: none to tell
    raw: float | None  # the share of the worlds, before calibration
    probe: Action  # the move the chance is of (the action, or the one a refusal turns down)
    envido: int  # the seat's envido (for the words)
    worlds: int  # how many worlds the chance stands on
    known: Known | None = None  # what the match has shown of the rivals the chance is against
    low: float | None = None  # where the rivals are not known yet: the chance's range
    high: float | None = None
    stakes: Stakes | None = None  # what the move puts at stake (None: a card, a flor's call)
    flor: int = 0  # the seat's flor (for the words), when it holds one

    @property
    def tenths(self) -> int | None:
        """The chance in tenths, as told ("8 de cada 10")."""
        return None if self.chance is None else round(self.chance * 10)

    @property
    def span(self) -> tuple[int, int] | None:
        """Where the rivals are not known yet, the chance's range in tenths, as told ("3 a 5
        de cada 10"); None when one number is told."""
        if self.low is None or self.high is None or self.chance is None:
            return None
        low, high = round(self.low * 10), round(self.high * 10)
        return None if low >= high else (low, high)


@dataclass(frozen=True, slots=True)
class Known:
    """What the match (and the rivals memory) has shown of the asking seat's rivals, from the
    persona belief difícil keeps of each (`bot.ai.personas`), averaged over the rival seats."""

    sound: float  # how likely they play like the sound player (our normal level)
    settled: float  # how far the belief has come from knowing nothing (0) to certainty (1)
    hands: int  # hands of theirs the match has shown (earlier matches not counted)
    # The persona belief's habits (`HABITS`): how often they want a middling truco, chant one
    # with a poor hand, and run to the mazo with a poor hand (averaged over the rival seats)
    wants: float = 0.5
    chants: float = 0.22
    runs: float = 0.38
    # What the table counted of them this match (`Observation.habits`, summed over the rival
    # seats): trucos wanted and refused, truco chants, envidos wanted and refused, envido
    # chants, mazos; and the rival seat-hands those counts are over
    counts: tuple[int, ...] = (0, 0, 0, 0, 0, 0, 0)
    seat_hands: int = 0
    rivals: int = 1  # rival seats (2 or 3: the chance of a side of partners)
    more: tuple[float, ...] = ()  # the belief's further habits (`MORE_HABITS`), averaged
    # The table's every count of the rival seats (`Habits`, summed; bluffs shown included)
    every: tuple[int, ...] = ()


def _settled(belief: personas.Belief) -> float:
    """1 minus the belief's entropy over that of the first hand's, averaged over the groups
    of habits and the sound player's share (0: a stranger; 1: one candidate left)."""
    out = []
    for weights in belief.groups:
        most = math.log(len(weights))
        left = -sum(q * math.log(q) for q in weights if q > 0)
        out.append(1 - left / most if most > 0 else 1.0)
    p = belief.sound
    left = -sum(q * math.log(q) for q in (p, 1 - p) if q > 0)
    out.append(1 - left / math.log(2))
    return sum(out) / len(out)


# The habits the chance reads of a persona belief: a yes of one group at a fixed hand
HABITS = (
    (personas.Group.TRUCO_ANSWER, personas.Step(personas.TA_WANT, 0.5, 1, True, 0.5)),
    (personas.Group.TRUCO_CHANT, personas.Step(personas.TO, 0.35, 1, True, 0.35)),
    (personas.Group.CARDS, personas.Step(personas.MZ, 0.3, 1, True)),
)
# Further habits of the belief, read as `HABITS` are: wanting a poor and a good truco,
# chanting one with a middling and a strong hand, raising, wanting a middling envido, opening
# an envido with a poor one and a good one, going to the mazo with a very poor hand
MORE_HABITS = (
    (personas.Group.TRUCO_ANSWER, personas.Step(personas.TA_WANT, 0.3, 1, True, 0.3)),
    (personas.Group.TRUCO_ANSWER, personas.Step(personas.TA_WANT, 0.7, 1, True, 0.7)),
    (personas.Group.TRUCO_CHANT, personas.Step(personas.TO, 0.6, 1, True, 0.6)),
    (personas.Group.TRUCO_CHANT, personas.Step(personas.TO, 0.85, 1, True, 0.85)),
    (personas.Group.TRUCO_CHANT, personas.Step(personas.TA_RAISE, 0.8, 1, True, 0.8)),
    (personas.Group.ENVIDO_ANSWER, personas.Step(personas.EA_WANT, 26, 1, True)),
    (personas.Group.ENVIDO_CHANT, personas.Step(personas.EO, 22, 1, True)),
    (personas.Group.ENVIDO_CHANT, personas.Step(personas.EO, 29, 1, True)),
    (personas.Group.CARDS, personas.Step(personas.MZ, 0.15, 1, True)),
)
COUNTED = ("truco_wanted", "truco_refused", "truco_chants", "envido_wanted", "envido_refused",
           "envido_chants", "mazos")  # fmt: skip


def _habit(belief: personas.Belief, group: personas.Group, step: personas.Step) -> float:
    chances = personas.column(step)
    return sum(q * c for q, c in zip(belief.groups[group], chances, strict=True))


def _counted(obs: Observation) -> tuple[tuple[int, ...], int]:
    """The table's counts of the rival seats' habits (summed), and their seat-hands."""
    assert obs.seat is not None
    side = side_of(obs.seat)
    seats = [s for s in range(len(obs.habits)) if side_of(s) != side]
    counts = tuple(sum(getattr(obs.habits[s], name) for s in seats) for name in COUNTED)
    return counts, len(obs.past) * len(seats)


def _every(obs: Observation) -> tuple[int, ...]:
    """Every count the table keeps of the rival seats' habits (summed)."""
    assert obs.seat is not None
    side = side_of(obs.seat)
    seats = [s for s in range(len(obs.habits)) if side_of(s) != side]
    return tuple(sum(obs.habits[s][i] for s in seats) for i in range(len(obs.habits[0])))


def known_of(obs: Observation, beliefs: dict[int, personas.Belief]) -> Known:
    """What the match has shown of the rivals whose `beliefs` are given, and what the table
    counted of their habits (all of the public record: nothing a seat could not see)."""
    counts, seat_hands = _counted(obs) if obs.habits else ((0,) * len(COUNTED), 0)
    every = _every(obs) if obs.habits else ()
    seats = max(1, obs.config.players // 2)
    if not beliefs:
        return Known(personas.SOUND_PRIOR, 0.0, len(obs.past), counts=counts,
                     seat_hands=seat_hands, rivals=seats, every=every)  # fmt: skip
    values = list(beliefs.values())
    sound = sum(b.sound for b in values) / len(values)
    settled = sum(_settled(b) for b in values) / len(values)
    wants, chants, runs, *more = (
        sum(_habit(b, group, step) for b in values) / len(values)
        for group, step in (*HABITS, *MORE_HABITS)
    )
    return Known(sound, settled, len(obs.past), wants, chants, runs, counts, seat_hands, seats,
                 tuple(more), every)  # fmt: skip


def topic_of(obs: Observation, action: Action) -> Topic:
    if obs.pending is Pending.FLOR or action.kind in FLOR_FAMILY:
        return Topic.FLOR
    if obs.pending is Pending.ENVIDO or action.kind in ENVIDO_CHANTS:
        return Topic.ENVIDO
    return Topic.HAND


@dataclass(frozen=True, slots=True)
class Moment:
    """Where in the hand the chance is told: the move it is of (`ActionKind` value), the
    truco's level, and the rounds begun (as `len(Observation.rounds)`)."""

    act: str = "play"
    level: int = 0
    rounds: int = 0


def moment_of(obs: Observation, probe: Action) -> Moment:
    return Moment(probe.kind.value, obs.truco_level, len(obs.rounds))


def probe_of(obs: Observation, action: Action) -> Action:
    """The move whose chance a hint tells: the action itself, unless it gives the hand away
    (a truco refused, the mazo): then the one it turns down."""
    if action.kind is K.NO_QUIERO and obs.pending is Pending.TRUCO:
        wanted = next((a for a in obs.actions if a.kind is K.QUIERO), None)
        return wanted or action
    if action.kind is K.MAZO:
        plays = [a for a in obs.actions if a.kind is K.PLAY and a.card is not None]
        if plays:
            return max(plays, key=lambda a: a.card.strength if a.card else 0)
        wanted = next((a for a in obs.actions if a.kind is K.QUIERO), None)
        if wanted is not None and obs.pending is Pending.TRUCO:  # (the truco waiting, wanted)
            return wanted
    return action


def stakes_of(world: MatchState, action: Action) -> Stakes | None:
    """What `action` puts at stake in `world` (any state consistent with what the seat sees:
    the stakes are public), as the engine scores it; None for a card or a flor's call."""
    h = world.hand
    if h is None:
        return None
    kind, side = action.kind, side_of(action.seat)
    now = h.hand_value()
    falta_points = world.config.envido_falta(world.scores, h.duel is not None)
    pending = h.pending()
    if kind is K.MAZO:
        given = sum(
            e.points for e in world.copy().apply(action) if isinstance(e, Scored) and e.side != side
        )  # (the engine's own reckoning: an envido waiting, the house rule, a truco waiting)
        waiting = h.truco_pending and h.truco_pending_side != side
        return Stakes(given, truco_wanted_value(h.truco_pending) if waiting else now, now)
    if kind in (K.QUIERO, K.NO_QUIERO) and pending is Pending.TRUCO:
        level = h.truco_pending
        return Stakes(truco_not_wanted_value(level), truco_wanted_value(level), now)
    if kind in (K.QUIERO, K.NO_QUIERO) and pending is Pending.ENVIDO:
        chain = h.envido_chain
        return Stakes(
            envido_not_wanted_value(chain), envido_wanted_value(chain, falta_points), now
        )
    if kind in TRUCO_CHANTS:
        level = TRUCO_CHANTS.index(kind) + 1
        return Stakes(truco_not_wanted_value(level), truco_wanted_value(level), now)
    if kind in ENVIDO_CHANTS:
        chain = [*(h.envido_chain if h.envido_pending else ()), kind]
        return Stakes(
            envido_not_wanted_value(chain), envido_wanted_value(chain, falta_points), now
        )
    return None


def flor_won(state: MatchState, side: int) -> bool:
    """Whether `side` holds the best flor of the hand dealt in `state` (ties to the one
    nearer the mano), or the only one."""
    h = state.hand
    assert h is not None
    holders = [s for s in h.table.all if has_flor(h.dealt[s])]
    values = [flor_value(cards) for cards in h.dealt]
    best = h.best(holders, values)
    return best is not None and side_of(best[0]) == side


def envido_won(state: MatchState, side: int) -> bool:
    """Whether `side` holds the best envido of the hand dealt in `state` (F5: ties to the one
    nearer the mano; in a pica-pica duel, of its two seats)."""
    h = state.hand
    assert h is not None
    values = [envido_value(cards) for cards in h.dealt]
    best = h.best(list(h.table.all), values)
    return best is not None and side_of(best[0]) == side


def machines_facing(
    obs: Observation, machines: Mapping[int, Machine] | None
) -> Mapping[int, Machine] | None:
    """`machines` when every rival of the seat of `obs` is one of them, else None (a table
    with a person among the rivals is reckoned against the rivals the match has shown)."""
    if not machines or obs.seat is None:
        return None
    side = side_of(obs.seat)
    rivals = [s for s in range(obs.config.players) if side_of(s) != side]
    return machines if all(s in machines for s in rivals) else None


def advise(
    obs: Observation,
    seed: int | str | None = None,
    signs: Collection[str] = (),
    budget: float | None = None,
    worlds: int = WORLDS,
    priors: dict[int, personas.Belief] | None = None,
    machines: Mapping[int, Machine] | None = None,
) -> Hint:
    """The hint for the seat of `obs` (which must have a legal action); `priors`, what the
    rivals memory keeps of the rivals' seats (as difícil at that table starts from);
    `machines`, the seats that are our own computer players. When every rival is one, the
    hand's chance is reckoned with them playing as they play, and told as it comes: there is
    nobody to get to know (`bench/ai.py --calibration` against them, docs/computer-players.md).
    Otherwise, and for the envido, the chance is reckoned against the rivals the match has
    shown (`stated`)."""
    if obs.seat is None or not obs.actions:
        raise ValueError("nothing to advise: the seat has no legal action")
    ours = machines_facing(obs, machines)
    signs = tuple(s for s in dict.fromkeys(signs) if s in SIGNS)
    action = play_dificil(obs, random.Random(seed), signs, budget=budget, priors=priors)
    envido = envido_value(obs.dealt) if obs.dealt else 0
    flor = flor_value(obs.dealt) if obs.dealt and has_flor(obs.dealt) else 0
    topic = topic_of(obs, action)
    probe = probe_of(obs, action)
    rng = random.Random(f"hint:{seed}")
    # (the hand's only: the envido's chance, mapped and reckoned against the rivals' chants as
    # the persona belief reads them, was already true against ours, and with them played as
    # machines it was not: docs/computer-players.md)
    ours = ours if topic is Topic.HAND else None
    raw, count, known, world = _share(
        obs, topic, probe, signs, rng, budget, worlds, priors, ours
    )
    stakes = stakes_of(world, action) if world is not None else None
    if raw is None:
        return Hint(action, Topic.NONE, None, None, probe, envido, count, known,
                    stakes=stakes, flor=flor)  # fmt: skip
    kind = topic.value if probe == action else "refusal"
    if ours or topic is Topic.FLOR:  # (one number, as it comes: nobody to get to know; a
        # flor's, measured by nothing yet)
        return Hint(action, topic, raw, raw, probe, envido, count, known, stakes=stakes, flor=flor)
    chance, low, high = stated(kind, raw, known, edge_of(obs), moment_of(obs, probe))
    return Hint(action, topic, chance, raw, probe, envido, count, known, low, high, stakes, flor)


def _share(
    obs: Observation,
    topic: Topic,
    probe: Action,
    signs: Collection[str],
    rng: random.Random,
    budget: float | None,
    worlds: int,
    priors: dict[int, personas.Belief] | None = None,
    machines: Mapping[int, Machine] | None = None,
) -> tuple[float | None, int, Known, MatchState | None]:
    """The share of the worlds in which the seat's side wins what `topic` is about (None:
    no world could be drawn), the worlds it stands on, what the rivals showed, and the first
    world (a state the stakes are read from)."""
    assert obs.seat is not None
    budget = BUDGET if budget is None else budget
    started = time.perf_counter()
    side = side_of(obs.seat)
    sampler = Sampler(obs, signs, rng, priors=priors, machines=machines)
    known = known_of(obs, sampler.beliefs)
    against = facing(sampler.rivals)
    edge = edge_of(obs)
    won = total = 0.0
    count = 0
    first: MatchState | None = None
    chanted = rival_envidos(obs, priors) if topic is Topic.ENVIDO else {}
    drawn: list[tuple[float, bool, tuple[bool, ...]]] = []  # (weight, won, weak per chanter)
    for index in range(worlds):
        found = sampler.world()
        if found is None:
            break
        world, weight = found
        if first is None:
            first = world.copy()
        if topic is Topic.ENVIDO:
            win = envido_won(world, side)
            if chanted:
                drawn.append((weight, win, _weak(world, chanted)))
        elif topic is Topic.FLOR:
            win = flor_won(world, side)
        else:
            state = world.copy()
            ended = [e.winner for e in state.apply(probe) if isinstance(e, HandEnded)]
            if not ended and state.phase is Phase.PLAY:  # the hand goes on: played out
                playout(state, obs.seat, random.Random(index), sampler.rivals, against, edge,
                        sampler.personas, ended, machines)  # fmt: skip
            # (nothing ended: the match did, a side reaching its points before the hand's end)
            win = ended[0] == side if ended else state.winner == side
        won += weight * win
        total += weight
        count += 1
        spent = time.perf_counter() - started
        if count >= FLOOR and spent + 2 * spent / (index + 1) > budget:
            break
    if total <= 0 or count < min(FLOOR, worlds):
        return None, count, known, first
    if chanted:
        return _as_shown(drawn, list(chanted.values())), count, known, first
    return won / total, count, known, first


# -- what a rival's envido chants came with ----------------------------------------------------
# The worlds weigh a rival's envido chant by how a stranger's reads (the persona belief, bluffs
# now and then included). A rival whose chants come with less than the chant's floor far more
# often (an envido bluffer; one who calls real envido with a plain envido's hand) is another
# matter: against the gauntlet's envido bluffer, answering its envido, 42% was told and 53% won;
# against its envido caller's real envido, 14% told and 43% won (docs/computer-players.md). So
# the share of the worlds in which each rival's last envido chant of the hand came with less
# than its floor (`ENVIDO_FLOOR`) is moved to what the rival model (`bot.ai.tells`: every
# showing of the match and of earlier ones, partial ones included) learned of its chants of
# that kind, the worlds' own share standing for SHOWN_WEIGHT showings; never below the rival
# model's own rate of them (a stranger's until it learns: the persona belief weighs a real
# envido under 27 at 5-10%, the model at 15%); and never below what its chants' frequency
# alone says (a bound no showing lowers): a rival who chants a real envido (27 or more, one
# hand in four) in half its hands chants it with less at least half the time.
# Within the weak part, the weak chants moved in beyond the worlds' share (and a stranger's
# rate) are made with any hand: those worlds count as dealt, not as the belief weighs a chant
# (which holds a weak chant to be a near miss, a 24 or a 26: against the envido caller, whose
# real envidos come with anything, refusing one was told 12% and won 26% on seed
# 41). A rival of whom nothing was learned, nor chanting more often than its hands allow, is
# reckoned as before.
SHOWN_WEIGHT = 4.0
CHANT_PRIOR = 2.0  # hands without the chant added to a rival's, before its rate is read


class Shown(NamedTuple):
    """What the rival model learned of one rival's envido chants of one kind."""

    weak: float = 0.0  # of the showings learned (beyond the prior), how many came weak
    shown: float = 0.0  # the showings learned (exact and partial, earlier matches' kept)
    chanted: int = 0  # hands of this match it made the chant in
    hands: int = 0  # hands of the match before this one
    stranger: float = 0.0  # how often a stranger's chant of this kind is weak (its prior)
    rate: float = 0.0  # how often the rival model holds its chants of this kind weak


@cache
def _holding(floor: int) -> float:
    """How often a hand dealt at random holds an envido of `floor` or more."""
    values = sorted(envido_value(hand) for hand in itertools.combinations(DECK, 3))
    return 1 - bisect_left(values, floor) / len(values)


def least_weak(kind: ActionKind, shown: Shown) -> float:
    """The least share of a rival's chants of `kind` that can have come with less than the
    chant's floor, from how often it chants alone: a hand holds the floor only so often."""
    if not shown.chanted:
        return 0.0
    rate = shown.chanted / (shown.hands + CHANT_PRIOR)
    return max(0.0, 1 - _holding(ENVIDO_FLOOR[kind]) / rate)


def envido_tells(
    obs: Observation, priors: Mapping[int, personas.Belief] | None = None
) -> dict[int, dict[ActionKind, Shown]]:
    """For each rival seat of the asking seat, for each envido chant kind: what the rival
    model (`bot.ai.tells`, as difícil keeps it: `personas.belief_of`, from what `priors`
    remembered of the seat) learned of what its chants of that kind came with, and in how many
    of the match's earlier hands it made the chant. The one place the hint reads a rival's
    envido tells."""
    assert obs.seat is not None
    side = side_of(obs.seat)
    out: dict[int, dict[ActionKind, Shown]] = {}
    hands = len(obs.past)
    chanted: dict[tuple[int, ActionKind], int] = {}
    for past in obs.past:
        for seat, kind in {(a.seat, a.kind) for a in past.history if a.kind in ENVIDO_CHANTS}:
            chanted[seat, kind] = chanted.get((seat, kind), 0) + 1
    for seat in range(obs.config.players):
        if side_of(seat) == side:
            continue
        tells = personas.belief_of(obs, seat, (priors or {}).get(seat)).tells
        for kind in ENVIDO_CHANTS:
            rate = CHANT_RATE[kind]
            yes, no = tells.extra(rate)
            weak, shown = max(yes, 0.0), max(yes, 0.0) + max(no, 0.0)
            out.setdefault(seat, {})[kind] = Shown(weak, shown, chanted.get((seat, kind), 0),
                                                   hands, TELLS_PRIOR[rate], tells.rate(rate))
    return out


def rival_envidos(
    obs: Observation, priors: Mapping[int, personas.Belief] | None = None
) -> dict[int, tuple[ActionKind, Shown]]:
    """The rival seats that chanted an envido this hand (their last chant of it), and what
    the rival model learned of their chants of that kind."""
    assert obs.seat is not None
    side = side_of(obs.seat)
    last = {a.seat: a.kind for a in obs.history
            if a.kind in ENVIDO_CHANTS and side_of(a.seat) != side}  # fmt: skip
    if not last:
        return {}
    tells = envido_tells(obs, priors)
    return {seat: (kind, tells[seat][kind]) for seat, kind in last.items()}


def _weak(world: MatchState, chanted: Mapping[int, tuple[ActionKind, Shown]]) -> tuple[bool, ...]:
    """Whether each chanter of `chanted` holds less than its chant's floor in `world`."""
    h = world.hand
    assert h is not None
    return tuple(envido_value(h.dealt[s]) < ENVIDO_FLOOR[k] for s, (k, _) in chanted.items())


def _as_shown(
    drawn: Sequence[tuple[float, bool, tuple[bool, ...]]],
    tells: Sequence[tuple[ActionKind, Shown]],
) -> float:
    """The envido's share with each chanter's weak part of the worlds moved to what its chants
    were shown to come with, and that part's chants beyond a stranger's spread over the weak
    worlds as dealt (one pass a chanter, as raking does)."""
    weights = [w for w, _, _ in drawn]
    for i, (kind, seen) in enumerate(tells):
        flags = [f[i] for _, _, f in drawn]
        part = sum(w for w, weak in zip(weights, flags, strict=True) if weak)
        total = sum(weights)
        if total <= 0 or part <= 0 or part >= total:
            continue  # (every world on one side: nothing to move)
        share = part / total
        least = least_weak(kind, seen)
        base = max(share, least)
        target = max((seen.weak + SHOWN_WEIGHT * base) / (seen.shown + SHOWN_WEIGHT), least,
                     seen.rate)
        if target == share:
            continue
        # (the weak chants beyond what the worlds and a stranger make: with any hand)
        a = max(0.0, target - max(share, seen.stranger)) / target
        dealt = sum(flags)
        weights = [target * ((1 - a) * w / part + a / dealt) if weak
                   else (1 - target) * w / (total - part)
                   for w, weak in zip(weights, flags, strict=True)]  # fmt: skip
    total = sum(weights)
    return sum(w for w, (_, win, _) in zip(weights, drawn, strict=True) if win) / total


# -- calibration -------------------------------------------------------------------------------
# (raw share, measured chance) by topic, from `python bench/ai.py --calibration`: a stated
# chance is the measured one at its raw share (linear between the points). Identity until
# measured otherwise. The hand's chance is reckoned against the rival instead (RECKONING).
CALIBRATION: dict[Topic, tuple[tuple[float, float], ...]] = {
    # Not the identity because the worlds overrate a middling envido against a rival who
    # chanted (a real rival's chant says more than the model's) and underrate a poor one. How
    # the points were fitted, and how far off they still are: docs/performance.md.
    Topic.ENVIDO: (
        (0.0, 0.0), (0.045, 0.094), (0.143, 0.171), (0.251, 0.241), (0.350, 0.309),
        (0.444, 0.403), (0.548, 0.479), (0.649, 0.603), (0.751, 0.736), (0.851, 0.820),
        (0.968, 0.962), (1.0, 1.0),
    ),
}  # fmt: skip


# -- the chance against the rival at the table -------------------------------------------------
# logit(chance) = w · reads(...), a logistic model by what the chance is of (a hand played on;
# the one a refusal turns down; the envido), fitted with `python bench/ai.py --fit ROWS
# --fit-on RIVALS` on some rivals and checked on others (docs/computer-players.md). What it
# reads: the worlds' share; the score so far (`search.edge_of`: a side that outplays its rivals
# shows it in the points); how likely the rivals play like the sound player (the persona
# belief); and how these rivals actually play, as the table counted it this match (how often
# they want a truco, chant one, go to the mazo; want and chant an envido) and as the belief
# reads their habits (for the envido: the envido it takes them to want, and to open with);
# and, for a refusal, where in the hand it is told (`Moment`). Why: the worlds' rivals play
# as well as difícil imagines them, so a rival who folds what it should want (a tight player),
# or chants with nothing, gives away hands the worlds do not, while one who wants everything
# does not; and a chant of a rival who chants everything says less of its envido than the
# worlds take it to.
RATES = ("sound", "wanted", "chanted", "mazos", "envido_wanted", "envido_chanted", "wants",
         "chants", "runs", "rivals", "wants_envido", "opens_poor", "opens_good")  # fmt: skip
# The first hand's belief (a stranger's) of the further habits (`MORE_HABITS`)
FIRST_MORE = tuple(_habit(personas.uniform(), group, step) for group, step in MORE_HABITS)
# What the rates are against, before any hand (the normal player's, `bot.ai.rivals`; the
# belief's first-hand habits): a rate is read as its distance from these
BASE = (personas.SOUND_PRIOR, rivals.NORMAL_TRUCO_WANTED, rivals.NORMAL_TRUCO_CHANTS,
        rivals.NORMAL_MAZOS, rivals.NORMAL_ENVIDO_WANTED, rivals.NORMAL_ENVIDO_CHANTS, 0.5, 0.22,
        0.38, 1, *FIRST_MORE[5:8])  # fmt: skip
PRIOR = rivals.PRIOR  # observations the base rate is worth, before the table's counts


def rates_of(known: Known) -> tuple[float, ...]:
    """What the reckoning reads of the rivals (in the order of RATES)."""
    tw, tr, tc, ew, er, ec, mz = known.counts
    n = known.seat_hands
    _, b_tw, b_tc, b_mz, b_ew, b_ec, *_ = BASE

    def shrunk(count: int, total: int, base: float) -> float:
        return (count + PRIOR * base) / (total + PRIOR)

    more = known.more or FIRST_MORE
    return (known.sound, shrunk(tw, tw + tr, b_tw), shrunk(tc, n, b_tc), shrunk(mz, n, b_mz),
            shrunk(ew, ew + er, b_ew), shrunk(ec, n, b_ec), known.wants, known.chants,
            known.runs, known.rivals, *more[5:8])  # fmt: skip


def reads(
    topic: str, raw: float, rates: Sequence[float], edge: float, moment: Moment = Moment()
) -> tuple[float, ...]:
    """The model's inputs for a raw share (`topic`: envido, hand or refusal)."""
    d = [r - b for r, b in zip(rates, BASE, strict=True)]
    sound, wanted, chanted, mazos, e_wanted, e_chanted, *_ = d
    if topic == "envido":  # (the belief: how sound they are, the envido they want and open)
        x = _logit(calibrated(Topic.ENVIDO, raw))
        wants_envido, opens_poor, opens_good = d[-3:]
        return (1.0, x, e_wanted, e_chanted, e_chanted * x, _logit(edge), sound, sound * x,
                wants_envido, opens_poor, opens_good, opens_poor * x,
                math.exp(-x * x))  # fmt: skip
    x = _logit(raw)
    read = (1.0, x, _logit(edge), sound, sound * x, wanted, wanted * x, chanted, chanted * x,
            mazos)  # fmt: skip
    if topic == "hand":  # (the moment did not help the hand's chance on deals not fitted on)
        return read
    # a refusal: a truco refused (or a mazo), its level, the round, and partners
    return (*read, float(moment.act == K.QUIERO.value), moment.level, moment.rounds,
            float(rates[RATES.index("rivals")] > 1))  # fmt: skip


# The hand: `python bench/ai.py --fit rows9 --fit-on club,caller,runner,stranger1,stranger3,
# sandbagger,dificil,normal~prudente,normal~cantor` (seed 9, 10 matches a rival); the envido:
# the same rivals' rows of seed 11 (12 matches a rival), `--fit rows11 --fit-topics envido`.
# Checked on the other rivals and on seeds 11 and 12 (docs/computer-players.md). A refusal:
# the fifteen styles of the gauntlet (sharp make included) on seed 51 (20-21 matches a
# style, 1,367 hints), `--fit s51 --fit-topics refusal`; checked on seeds 31 (all of them)
# and 61 (the sharp make). Fitted on club players alone it lifted a refusal against anyone
# not the sound player: against sharp, the envido bluffer and the envido caller (who want
# trucos and seldom bluff one) 18% told won 3%. Its last weight (partners) is the earlier
# fit's: the styles play 1v1.
RECKONING: dict[str, tuple[float, ...]] = {
    "hand": (0.015, 0.795, 0.359, -0.507, -0.186, -1.455, 0.409, -0.056, -0.014, 0.177),
    "refusal": (-0.254, 0.624, 0.111, -0.534, -0.281, -0.570, 0.759, 0.213, 0.162, 0.103,
                -0.114, -0.318, -0.327, -0.467),
    "envido": (0.611, 1.091, -0.065, -0.258, -0.096, -0.645, 0.529, -0.462, 0.337, -0.266,
               0.278, -0.231, -0.315),
}  # fmt: skip
KNOWN_HANDS = 4  # hands of the rivals shown before the chance is told as one number
KNOWN_SETTLED = 0.25  # or a belief that far from a stranger's (remembered, or learned fast)
# What a stranger may turn out to be: for each rival the model was fitted on, how far (in
# logit) the chance told in its first hands (before KNOWN_HANDS, the belief not yet settled)
# was from what happened, give or take a standard error (`--fit` fits one shift a rival on
# those hints, seed 11). The range told at the first hands is the chance shifted by the least
# and the most favourable of them.
STRANGERS: tuple[tuple[float, float], ...] = (
    (-0.027, 0.551),  # club
    (-0.812, -0.165),  # caller
    (-0.627, -0.019),  # runner
    (-0.139, 0.420),  # stranger1
    (-0.238, 0.311),  # stranger3
    (0.198, 0.754),  # sandbagger
    (-0.944, -0.532),  # dificil
    (-0.855, -0.400),  # normal~prudente
    (-0.918, -0.507),  # normal~cantor
)
LEAST = min(low for low, _ in STRANGERS)  # the least favourable shift, and the most
MOST = max(high for _, high in STRANGERS)


def _logit(p: float) -> float:
    p = min(max(p, 0.005), 0.995)
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-min(max(x, -30.0), 30.0)))


def reckoned(
    topic: str, raw: float, rates: Sequence[float], edge: float, moment: Moment = Moment()
) -> float:
    """The model's logit of the chance."""
    inputs = reads(topic, raw, rates, edge, moment)
    return sum(w * v for w, v in zip(RECKONING[topic], inputs, strict=True))


def stated(
    topic: str, raw: float, known: Known, edge: float = 0.6, moment: Moment = Moment()
) -> tuple[float, float | None, float | None]:
    """The chance told for a raw share (`topic`: envido, hand, or refusal: the hand a refusal
    turns down), against rivals of whom the match has shown `known`, with the score's `edge`,
    at `moment` of the hand; and, where the rivals are not known yet, the range the chance may
    be in (else None, None). The envido is always one number."""
    if topic == "envido":  # (its map alone: the reckoning told too much at the top and fit
        # worse on the gauntlet's seventeen opponents, docs/computer-players.md; how a rival's
        # chants read is in the worlds' weights, `envido_tells`)
        return calibrated(Topic.ENVIDO, raw), None, None
    x = reckoned(topic, raw, rates_of(known), edge, moment)
    chance = _sigmoid(x)
    if known.hands >= KNOWN_HANDS or known.settled >= KNOWN_SETTLED:
        return chance, None, None
    # (not narrowed toward the chance as hands are shown: in the first hands the chance is a
    # blend of kinds of rivals, and what happens is near one end, not between)
    return chance, _sigmoid(x + LEAST), _sigmoid(x + MOST)


def calibrated(topic: Topic, raw: float) -> float:
    points = CALIBRATION.get(topic, ((0.0, 0.0), (1.0, 1.0)))
    xs = [x for x, _ in points]
    i = min(max(bisect_right(xs, raw) - 1, 0), len(points) - 2)
    (x0, y0), (x1, y1) = points[i], points[i + 1]
    y = y0 if x1 == x0 else y0 + (y1 - y0) * (raw - x0) / (x1 - x0)
    return min(max(y, 0.0), 1.0)


def envido_chance(obs: Observation, seed: int | str, worlds: int = WORLDS) -> float | None:
    """How often the seat's side holds the best envido, as a hint about the envido tells it
    (its worlds, the rivals' chants read, its map), with no clock: the same observation and
    seed, the same number (the review's envido odds). None: no world could be drawn."""
    probe = obs.actions[0]
    rng = random.Random(f"hint:{seed}")
    raw, _, known, _ = _share(obs, Topic.ENVIDO, probe, (), rng, math.inf, worlds)
    return None if raw is None else stated(Topic.ENVIDO.value, raw, known)[0]
