"""difícil's picture of a rival: what kind of player they are, learned from every hand of the
match the table saw.

People at a truco table differ in a few habits: the envido they open with and how often they
open with less, the envido they want, the hand they chant truco with and how often they bluff
it, the hand they want a truco with, when they raise, whether they run to the mazo, which card
they lead. A **persona** is one setting of those habits, each a threshold on what the player
holds (softened: people are not exact, and now and then anyone does anything).

The habits fall in five independent groups (opening envido, answering one, opening truco,
answering one, the cards), each with a small grid of candidate settings. difícil keeps, for each
rival, a belief over each grid (`Belief`): uniform at the first hand, then, after each hand, the
posterior given everything that rival did in it. The rival's hidden cards are not known: the
hand's public record (`bot.game.past.PastHand`) is replayed over deals consistent with what was
shown (cards played, values said, cards shown at the end), and each candidate is scored by how
likely it made the rival's every move (its chants, its answers, and its silences: not chanting
envido with 31 says something too). The groups are kept independent between hands (assumed
density filtering: the exact update of a factored belief, projected back onto factored beliefs)
so the five grids stay small and the update costs a few milliseconds a hand.

The search (`bot.ai.search`) imagines each world's rival as a persona drawn from that belief,
weighted by how well it explains this hand's moves, and plays the rival out as that persona.
This replaces "every rival plays like our normal player", which taught the search to exploit
normal and no one else. Nothing here reads a hidden card: only an `Observation`.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from bot.ai.estimate import Odds, current_round, hand_chance, unseen
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, Action, ActionKind, Deal
from bot.game.cards import DECK, Card, envido_value, flor_value
from bot.game.errors import IllegalActionError
from bot.game.observation import Observation, observe
from bot.game.past import PastHand
from bot.game.state import MatchConfig, MatchState, Pending, side_of

K = ActionKind

ENVIDO_SOFT = 1.0  # envido points: how sharp a threshold on the envido is
TRUCO_SOFT = 0.06  # hand chance: how sharp a threshold on the hand is
MAZO_SOFT = 0.04
TREMBLE = 0.03  # any yes-or-no goes the other way at least this often
CARD_TREMBLE = 0.1  # and a card other than its habit's is played this often
NEVER_ENVIDO = 40.0  # an envido no hand reaches: never
NEVER_HAND = 2.0  # a hand chance no hand reaches: never
ALWAYS = -99.0  # a threshold every hand reaches: always (wants everything; a mazo: never)
PAST_WORLDS = 12  # deals of a past hand's hidden cards each update averages over
PAST_TRIES = 40  # draws before giving up on a past hand (it then teaches nothing)


class Group(IntEnum):
    ENVIDO_OPEN = 0
    ENVIDO_ANSWER = 1
    TRUCO_OPEN = 2
    TRUCO_ANSWER = 3
    CARDS = 4


# The candidate settings of each group: (first, second) pairs, as `_yes` reads them.
ENVIDO_OPENS = (21.0, 23.0, 25.0, 27.0, 29.0, 31.0, NEVER_ENVIDO)  # envido opened at
BLUFFS = (0.0, 0.08, 0.25, 0.5)  # and chanted with less this often (envido and truco)
ENVIDO_WANTS = (ALWAYS, 21.0, 24.0, 26.0, 28.0, 30.0, 32.0)  # envido wanted at
ENVIDO_RAISES = (28.0, 31.0, NEVER_ENVIDO)  # and raised at
TRUCO_OPENS = (0.45, 0.55, 0.65, 0.75, 0.85, 0.95, NEVER_HAND)  # truco chanted at (hand chance)
TRUCO_WANTS = (ALWAYS, 0.15, 0.25, 0.35, 0.45, 0.55, 0.7)  # truco wanted at
TRUCO_RAISES = (0.7, 0.85, NEVER_HAND)  # and raised at
MAZOS = (ALWAYS, 0.2, 0.3, 0.4)  # to the mazo before its first card below (hand chance)
LEADS = (0.0, 1.0, 2.0)  # leads in round 1 its lowest, middle or best card
GRIDS: tuple[tuple[tuple[float, float], ...], ...] = tuple(
    tuple(itertools.product(a, b))
    for a, b in (
        (ENVIDO_OPENS, BLUFFS),
        (ENVIDO_WANTS, ENVIDO_RAISES),
        (TRUCO_OPENS, BLUFFS),
        (TRUCO_WANTS, TRUCO_RAISES),
        (MAZOS, LEADS),
    )
)

Belief = tuple[tuple[float, ...], ...]  # per group, a weight per candidate (summing to 1)


def uniform() -> Belief:
    return tuple(tuple(1.0 / len(grid) for _ in grid) for grid in GRIDS)


@dataclass(frozen=True, slots=True)
class Persona:
    """One rival, as a candidate of each group (indices into GRIDS)."""

    picks: tuple[int, int, int, int, int]

    def param(self, group: Group) -> tuple[float, float]:
        return GRIDS[group][self.picks[group]]

    @staticmethod
    def draw(belief: Belief, rng: random.Random) -> Persona:
        picks = tuple(_pick(weights, rng) for weights in belief)
        return Persona(picks)  # type: ignore[arg-type]


def _pick(weights: Sequence[float], rng: random.Random) -> int:
    x = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        x -= w
        if x < 0:
            return i
    return len(weights) - 1


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1 / (1 + math.exp(-x))


def _clip(p: float) -> float:
    return min(max(p, TREMBLE), 1 - TREMBLE)


# -- the stages of a decision ------------------------------------------------------------------
# A stage is a yes-or-no of one group, with what it reads (the envido, the hand chance, the
# level of the chant): `_yes(stage, param, x, level)` is its chance of a yes for one candidate.
EO, EA_RAISE, EA_WANT, TO, TA_RAISE, TA_WANT, MZ, LEAD = range(8)
STAGE_GROUP = {
    EO: Group.ENVIDO_OPEN,
    EA_RAISE: Group.ENVIDO_ANSWER,
    EA_WANT: Group.ENVIDO_ANSWER,
    TO: Group.TRUCO_OPEN,
    TA_RAISE: Group.TRUCO_ANSWER,
    TA_WANT: Group.TRUCO_ANSWER,
    MZ: Group.CARDS,
    LEAD: Group.CARDS,
}


def _yes(stage: int, param: tuple[float, float], x: float, level: int) -> float:
    a, b = param
    if stage == EO:
        return _clip(b + (1 - b) * _sigmoid((x - a) / ENVIDO_SOFT))
    if stage == EA_RAISE:
        return _clip(_sigmoid((x - b) / ENVIDO_SOFT))
    if stage == EA_WANT:  # each raise in the chain asks for a point and a half more
        return _clip(_sigmoid((x - a - 1.5 * (level - 1)) / ENVIDO_SOFT))
    if stage == TO:  # a retruco and a vale cuatro ask for more
        return _clip(b + (1 - b) * _sigmoid((x - a - 0.08 * (level - 1)) / TRUCO_SOFT))
    if stage == TA_RAISE:
        return _clip(_sigmoid((x - b - 0.05 * (level - 1)) / TRUCO_SOFT))
    if stage == TA_WANT:
        return _clip(_sigmoid((x - a - 0.05 * (level - 1)) / TRUCO_SOFT))
    if stage == MZ:
        return _clip(_sigmoid((a - x) / MAZO_SOFT))
    raise ValueError(stage)  # pragma: no cover


def _lead_chance(style: float, index: int, count: int) -> float:
    """The chance a lead of style 0/1/2 (lowest, middle, best) plays card `index` (by
    strength, lowest first) of `count`."""
    wanted = 0 if style == 0 else count - 1 if style == 2 else count // 2
    if count == 1:
        return 1.0
    return 1 - CARD_TREMBLE if index == wanted else CARD_TREMBLE / (count - 1)


@dataclass(frozen=True, slots=True)
class Step:
    """One stage a decision went through: (stage, what it read, level, yes or no); for LEAD,
    `x` is the index of the card played and `level` how many it could choose from."""

    stage: int
    x: float
    level: int
    yes: bool


class Reading:
    """What a seat holds, as a persona reads it: its envido and its chance to win the hand."""

    __slots__ = ("_w", "envido", "obs")

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.envido = envido_value(obs.dealt) if obs.dealt else 0
        self._w: float | None = None

    @property
    def w(self) -> float:
        if self._w is None:
            self._w = hand_chance(self.obs, 0.0, Odds(unseen(self.obs)))
        return self._w


def _kinds(obs: Observation) -> dict[ActionKind, Action]:
    return {a.kind: a for a in obs.actions if a.kind is not K.PLAY}


def _sorted_plays(obs: Observation) -> list[Action]:
    return sorted((a for a in obs.actions if a.kind is K.PLAY),
                  key=lambda a: a.card.strength if a.card else 0)  # fmt: skip


def _truco_level(kind: ActionKind) -> int:
    return TRUCO_CHANTS.index(kind) + 1


def _envido_open(kinds: dict[ActionKind, Action], obs: Observation) -> bool:
    return K.ENVIDO in kinds or K.REAL_ENVIDO in kinds or K.FALTA_ENVIDO in kinds


def _envido_kind(envido: int, kinds: dict[ActionKind, Action]) -> list[tuple[Action, float]]:
    """Which envido chant a persona opens or raises with: mostly envido, real envido with a
    big one, a falta now and then."""
    real = 0.1 + 0.5 * _sigmoid((envido - 31) / ENVIDO_SOFT)
    share = {K.ENVIDO: 1 - real - 0.05, K.REAL_ENVIDO: real, K.FALTA_ENVIDO: 0.05}
    there = [(kinds[k], share[k]) for k in ENVIDO_CHANTS if k in kinds]
    total = sum(p for _, p in there)
    return [(a, p / total) for a, p in there]


def _card(obs: Observation) -> Action:
    """The card a persona plays when it does not lead round 1: the lowest that wins the
    round (the lowest if none does, or if its partner already has it); its best when it
    leads a later round."""
    plays = _sorted_plays(obs)
    on_table = current_round(obs)
    if not on_table:
        return plays[-1]
    side = side_of(obs.seat or 0)
    theirs = max((c.strength for s, c in on_table if side_of(s) != side), default=0)
    ours = max((c.strength for s, c in on_table if side_of(s) == side), default=0)
    if ours > theirs:
        return plays[0]
    return next((a for a in plays if a.card is not None and a.card.strength > theirs), plays[0])


def _leads_round_one(obs: Observation) -> bool:
    return not obs.results and not current_round(obs) and len(obs.cards) == 3


def _flor(obs: Observation, kinds: dict[ActionKind, Action]) -> Action:
    """Flor by a plain rule (no habit is read from it): declare it, raise a big one, want
    a good one."""
    value = flor_value(obs.dealt) if len(obs.dealt) == 3 else 0
    if obs.pending is Pending.FLOR:
        if K.CONTRAFLOR in kinds and value >= 33:
            return kinds[K.CONTRAFLOR]
        if K.QUIERO in kinds and value >= 31:
            return kinds[K.QUIERO]
        for kind in (K.FLOR, K.CON_FLOR_ME_ACHICO, K.NO_QUIERO, K.QUIERO):
            if kind in kinds:
                return kinds[kind]
    return kinds[K.FLOR]


def steps(obs: Observation, action: Action, reading: Reading) -> list[Step] | None:
    """The stages a persona goes through to take `action` at `obs`: a list of yes-or-no's (and
    the card it led), or None when the action says nothing of its habits (a flor, a forced
    move, a move no persona makes but by chance)."""
    acts = obs.actions
    if len(acts) <= 1:
        return None
    kinds = _kinds(obs)
    kind = action.kind
    if K.FLOR in kinds or obs.pending is Pending.FLOR:
        return None  # flor by a plain rule
    out: list[Step] = []
    if obs.pending is Pending.ENVIDO:
        chain = [k for _, k in obs.calls if k in ENVIDO_CHANTS]
        raises = [k for k in ENVIDO_CHANTS if k in kinds]
        e = float(reading.envido)
        if raises:
            out.append(Step(EA_RAISE, e, len(chain), kind in ENVIDO_CHANTS))
            if kind in ENVIDO_CHANTS:
                return out
        if kind in (K.QUIERO, K.NO_QUIERO):
            out.append(Step(EA_WANT, e, len(chain), kind is K.QUIERO))
            return out
        return None
    if obs.pending is Pending.TRUCO:
        if _envido_open(kinds, obs):
            out.append(Step(EO, float(reading.envido), 1, kind in ENVIDO_CHANTS))
            if kind in ENVIDO_CHANTS:
                return out
        level = _truco_level(obs.pending_chant or K.TRUCO)
        w = reading.w
        if any(k in kinds for k in TRUCO_CHANTS):
            out.append(Step(TA_RAISE, w, level, kind in TRUCO_CHANTS))
            if kind in TRUCO_CHANTS:
                return out
        if kind in (K.QUIERO, K.NO_QUIERO):
            out.append(Step(TA_WANT, w, level, kind is K.QUIERO))
            return out
        return None
    if obs.pending is not None:
        return None
    # its turn: envido, truco, the mazo, a card, in that order
    if _envido_open(kinds, obs):
        out.append(Step(EO, float(reading.envido), 1, kind in ENVIDO_CHANTS))
        if kind in ENVIDO_CHANTS:
            return out
    chant = next((k for k in TRUCO_CHANTS if k in kinds), None)
    if chant is not None:
        out.append(Step(TO, reading.w, _truco_level(chant), kind is chant))
        if kind is chant:
            return out
    if K.MAZO in kinds and _leads_or_follows_first(obs):
        out.append(Step(MZ, reading.w, 1, kind is K.MAZO))
        if kind is K.MAZO:
            return out
    if kind is not K.PLAY or action.card is None:
        return None
    plays = _sorted_plays(obs)
    if _leads_round_one(obs) and len(plays) > 1:
        index = plays.index(action)
        out.append(Step(LEAD, float(index), len(plays), True))
    return out


def _leads_or_follows_first(obs: Observation) -> bool:
    """Before its first card of the hand (when a mazo says it does not like its cards)."""
    return not obs.results and len(obs.cards) == 3


def chances(group: Group, found: Sequence[Step]) -> list[float]:
    """For each candidate of `group`: the chance it gives every step of `found` of this group
    (1.0 for candidates of a group no step reads)."""
    grid = GRIDS[group]
    out = [1.0] * len(grid)
    for step in found:
        if STAGE_GROUP[step.stage] is not group:
            continue
        for i, param in enumerate(grid):
            if step.stage == LEAD:
                out[i] *= _lead_chance(param[1], int(step.x), step.level)
            else:
                p = _yes(step.stage, param, step.x, step.level)
                out[i] *= p if step.yes else 1 - p
    return out


def factors(found: Sequence[Step]) -> list[list[float] | None]:
    """Per group, the chance each candidate gives the steps (None: no step of that group)."""
    groups = {STAGE_GROUP[s.stage] for s in found}
    return [chances(g, found) if g in groups else None for g in Group]


def act(persona: Persona, obs: Observation, rng: random.Random) -> Action:
    """What `persona` does at `obs` (its seat's legal actions), in a playout."""
    acts = obs.actions
    if len(acts) == 1:
        return acts[0]
    kinds = _kinds(obs)
    if K.FLOR in kinds or obs.pending is Pending.FLOR:
        return _flor(obs, kinds)
    reading = Reading(obs)

    def yes(stage: int, x: float, level: int) -> bool:
        return rng.random() < _yes(stage, persona.param(STAGE_GROUP[stage]), x, level)

    if obs.pending is Pending.ENVIDO:
        chain = [k for _, k in obs.calls if k in ENVIDO_CHANTS]
        e = float(reading.envido)
        if any(k in kinds for k in ENVIDO_CHANTS) and yes(EA_RAISE, e, len(chain)):
            return _choose(_envido_kind(reading.envido, kinds), rng)
        return kinds[K.QUIERO] if yes(EA_WANT, e, len(chain)) else kinds[K.NO_QUIERO]
    if obs.pending is Pending.TRUCO:
        if _envido_open(kinds, obs) and yes(EO, float(reading.envido), 1):
            return _choose(_envido_kind(reading.envido, kinds), rng)
        level = _truco_level(obs.pending_chant or K.TRUCO)
        raise_to = next((kinds[k] for k in TRUCO_CHANTS if k in kinds), None)
        if raise_to is not None and yes(TA_RAISE, reading.w, level):
            return raise_to
        return kinds[K.QUIERO] if yes(TA_WANT, reading.w, level) else kinds[K.NO_QUIERO]
    if obs.pending is not None:
        return acts[0]
    if _envido_open(kinds, obs) and yes(EO, float(reading.envido), 1):
        return _choose(_envido_kind(reading.envido, kinds), rng)
    chant = next((k for k in TRUCO_CHANTS if k in kinds), None)
    if chant is not None and yes(TO, reading.w, _truco_level(chant)):
        return kinds[chant]
    if K.MAZO in kinds and _leads_or_follows_first(obs) and yes(MZ, reading.w, 1):
        return kinds[K.MAZO]
    plays = _sorted_plays(obs)
    if not plays:
        return next((a for a in acts if a.kind is not K.MAZO), acts[0])
    if _leads_round_one(obs) and len(plays) > 1:
        style = persona.param(Group.CARDS)[1]
        weights = [_lead_chance(style, i, len(plays)) for i in range(len(plays))]
        return plays[_pick(weights, rng)]
    if rng.random() < CARD_TREMBLE:
        return rng.choice(plays)
    return _card(obs)


def _choose(options: Sequence[tuple[Action, float]], rng: random.Random) -> Action:
    return options[_pick([p for _, p in options], rng)][0]


# -- learning a rival from the hands played --------------------------------------------------
def update(belief: Belief, found: Sequence[Sequence[Step]]) -> Belief:
    """The belief after one hand, given the steps the rival took in each of several worlds
    (deals of its hidden cards consistent with the hand, equally likely a priori): the exact
    posterior of each group, the other groups averaged over their belief (ADF)."""
    if not found:
        return belief
    per_world = [factors(steps_) for steps_ in found]
    # how well each world is explained by each group's belief, and by all of them
    fits: list[list[float]] = []
    for fs in per_world:
        row = []
        for g, f in enumerate(fs):
            row.append(1.0 if f is None else sum(q * x for q, x in zip(belief[g], f, strict=True)))
        fits.append(row)
    out = []
    for g, prior in enumerate(belief):
        if all(fs[g] is None for fs in per_world):
            out.append(prior)
            continue
        post = [0.0] * len(prior)
        for fs, row in zip(per_world, fits, strict=True):
            rest = math.prod(row[:g] + row[g + 1 :])
            f = fs[g]
            for k in range(len(prior)):
                post[k] += rest * (f[k] if f is not None else 1.0)
        weighted = [q * p for q, p in zip(prior, post, strict=True)]
        total = sum(weighted)
        out.append(tuple(w / total for w in weighted) if total > 0 else prior)
    return tuple(out)


def draw_given(
    belief: Belief, found: Sequence[Step], rng: random.Random
) -> tuple[float, Persona]:
    """How well a world explains a rival's steps this hand (the chance of them, the belief
    averaged over), and a persona drawn from the belief given them."""
    fit = 1.0
    picks = []
    for g, f in enumerate(factors(found)):
        weights = belief[g] if f is None else [q * x for q, x in zip(belief[g], f, strict=True)]
        if f is not None:
            fit *= sum(weights)
        picks.append(_pick(weights, rng))
    return fit, Persona(tuple(picks))  # type: ignore[arg-type]


def replay_past(
    past: PastHand, config: MatchConfig, hands: Sequence[tuple[Card, ...]]
) -> MatchState | None:
    """A state at the start of `past` dealt `hands`, or None if the deal does not fit it."""
    state = MatchState(config)
    state.scores = list(past.start_scores)
    state.hand_number = past.number - 1
    state.dealer = (past.dealer - 1) % past.players if past.number > 1 else past.dealer
    try:
        state.apply(Deal(tuple(hands)))
    except IllegalActionError:
        return None
    return state


def _past_worlds(
    past: PastHand, config: MatchConfig, rng: random.Random
) -> list[tuple[tuple[Card, ...], ...]]:
    """Deals of `past` consistent with everything the table saw of it."""
    players = past.players
    known = [past.known(s) for s in range(players)]
    seen = {c for cards in known for c in cards}
    pool = [c for c in DECK if c not in seen]
    announced = dict(past.announced)
    flor = {a.seat for a in past.history if a.kind is K.FLOR}
    below = {s: (v, t) for s, v, t in past.son_buenas}
    options: dict[int, list[tuple[Card, ...]]] = {}
    for seat in range(players):
        missing = 3 - len(known[seat])
        if missing and (seat in announced or seat in below or seat in flor):
            keep = []
            for hidden in itertools.combinations(pool, missing):
                dealt = (*known[seat], *hidden)
                is_flor = dealt[0].suit == dealt[1].suit == dealt[2].suit
                if seat in flor and not is_flor:
                    continue
                worth = flor_value(dealt) if seat in flor else envido_value(dealt)
                if seat in announced and worth != announced[seat]:
                    continue
                if seat in below:
                    value, ties = below[seat]
                    if not (worth < value or (worth == value and ties)):
                        continue
                keep.append(hidden)
            options[seat] = keep
    worlds: list[tuple[tuple[Card, ...], ...]] = []
    for _ in range(PAST_TRIES):
        if len(worlds) >= PAST_WORLDS:
            break
        used: set[Card] = set()
        hands: list[tuple[Card, ...]] = [()] * players
        clash = False
        for seat, opts in options.items():
            if not opts:
                return []
            hidden = rng.choice(opts)
            if used.intersection(hidden):
                clash = True
                break
            used.update(hidden)
            hands[seat] = (*known[seat], *hidden)
        if clash:
            continue
        rest = [c for c in pool if c not in used]
        rng.shuffle(rest)
        for seat in range(players):
            if seat not in options:
                missing = 3 - len(known[seat])
                hands[seat] = (*known[seat], *rest[:missing])
                rest = rest[missing:]
        worlds.append(tuple(hands))
    return worlds


def past_steps(
    past: PastHand, config: MatchConfig, seat: int, rng: random.Random
) -> list[list[Step]]:
    """For each consistent deal of `past`: the steps `seat` took in it."""
    found = []
    for hands in _past_worlds(past, config, rng):
        state = replay_past(past, config, hands)
        if state is None:
            continue
        taken: list[Step] | None = []
        for action in past.history:
            if action.seat == seat and taken is not None:
                obs = observe(state, seat)
                got = steps(obs, action, Reading(obs))
                if got:
                    taken.extend(got)
            if not state.is_legal(action):
                taken = None
                break
            state.apply(action)
        if taken is None:
            continue
        h = state.hand
        if h is not None and (tuple(h.announced) != past.announced
                              or tuple(h.son_buenas) != past.son_buenas):  # fmt: skip
            continue
        found.append(taken)
    return found


_CACHE: OrderedDict[tuple[object, ...], Belief] = OrderedDict()
CACHE_SIZE = 4096


def belief_of(obs: Observation, seat: int) -> Belief:
    """difícil's belief about `seat` after the hands before this one (a pure function of the
    public record; remembered per process so each hand is learned once)."""
    return _belief(obs.config, seat, obs.past)


def _belief(config: MatchConfig, seat: int, past: tuple[PastHand, ...]) -> Belief:
    if not past:
        return uniform()
    key = (config, seat, past)
    found = _CACHE.get(key)
    if found is not None:
        _CACHE.move_to_end(key)
        return found
    before = _belief(config, seat, past[:-1])
    last = past[-1]
    rng = random.Random(f"{seat}:{last.number}:{len(last.history)}")
    belief = update(before, past_steps(last, config, seat, rng))
    _CACHE[key] = belief
    if len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return belief


def mean(belief: Belief, group: Group) -> tuple[float, float]:
    """The belief's average setting of a group (for reports and tests)."""
    grid = GRIDS[group]
    a = sum(q * p[0] for q, p in zip(belief[group], grid, strict=True))
    b = sum(q * p[1] for q, p in zip(belief[group], grid, strict=True))
    return a, b
