"""difícil's picture of a rival: what kind of player they are, learned from every hand of the
match the table saw.

People at a truco table differ in a few habits: the envido they open with and how often they
open with less, the envido they call big (a real envido, a raise), the envido they want, the
hand they chant truco with and how often they bluff it, the hand they raise with, the hand they
want a truco with, whether they run to the mazo, which card they lead. They also differ in what
they look at to judge a hand for truco: their chance to win it (the rounds already played and the
card on the table count), or the cards they still hold. A **persona** is one setting of all
that, each habit a threshold on what the player holds (softened: people are not exact, and now
and then anyone does anything). Beside the personas stands the **sound player** (our normal
level: odds and the score rather than habits), for rivals who play like that.

The habits fall in five independent groups (chanting envido, answering it, chanting truco,
answering it, the cards), each with a grid of candidate settings. difícil keeps, for each rival,
a belief (`Belief`): how likely it is the sound player, and a weight for each candidate of each
group; even at the first hand, then, after each hand, the posterior given everything that rival
did in it. The rival's hidden cards are not known: the hand's public record
(`bot.game.past.PastHand`) is replayed over deals consistent with what was shown (cards played,
values said, cards shown at the end), and each candidate is scored by how likely it made the
rival's every move (its chants, its answers, and its silences: not chanting envido with 31 says
something too). The groups are kept independent between hands (assumed density filtering: the
exact update of a factored belief, projected back onto factored beliefs), so the grids stay
small and learning a hand costs a few milliseconds.

The search (`bot.ai.search`) imagines each world's rival as drawn from that belief, weighted by
how well it explains this hand's moves, and plays the rival out as that persona (or as the sound
player). This replaces "every rival plays like our normal player", which taught the search to
exploit normal and no one else. Nothing here reads a hidden card: only an `Observation`.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from functools import cache, lru_cache

import orjson

from bot.ai.estimate import Odds, current_round, hand_chance, unseen
from bot.ai.rules import play_normal
from bot.ai.tells import Tells, learned
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, Action, ActionKind, Deal
from bot.game.cards import DECK, Card, envido_value, flor_value
from bot.game.errors import IllegalActionError
from bot.game.observation import Observation, observe
from bot.game.past import PastHand
from bot.game.state import HandState, MatchConfig, MatchState, Pending, side_of

K = ActionKind

ENVIDO_SOFT = 1.0  # envido points: how sharp a threshold on the envido is
TRUCO_SOFT = 0.03  # hand strength (0-1): how sharp a threshold on the hand is
MAZO_SOFT = 0.04
TREMBLE = 0.03  # any yes-or-no goes the other way at least this often
CARD_TREMBLE = 0.1  # and a card other than its habit's is played this often
TOP = 14  # the strength of the best card (the 1 of espadas)
ROUND_WORTH = 0.2  # to one who judges by its cards, what a round won (or lost) adds (takes)
FALTA_SHARE = 0.05  # of its envido chants, a falta envido (when it may choose another)
NEVER_ENVIDO = 40.0  # an envido no hand reaches: never
NEVER_HAND = 2.0  # a hand strength no hand reaches: never
ALWAYS = -99.0  # a threshold every hand reaches: always (wants everything; a mazo: never)
SOUND_TREMBLE = 0.1  # the sound player's moves other than its own, together
SOUND_PRIOR = 0.5  # the chance, before any hand, that a rival plays like the sound player
SOUND_BOUNDS = (0.02, 0.98)  # never quite certain: a rival may change
PAST_WORLDS = 12  # deals of a past hand's hidden cards each update averages over
PAST_TRIES = 40  # draws before giving up on a past hand (it then teaches nothing)
KEEP = 0.8  # of what was learned of a person in one match, what the next one starts from


class Group(IntEnum):
    ENVIDO_CHANT = 0
    ENVIDO_ANSWER = 1
    TRUCO_CHANT = 2
    TRUCO_ANSWER = 3
    CARDS = 4


# The candidate settings, axis by axis (`_yes` reads them).
SIGHTS = (0.0, 0.5, 1.0)  # judges a hand for truco by its chance to win it (0), its cards (1)
ENVIDO_OPENS = (21.0, 23.0, 25.0, 27.0, 29.0, 31.0, NEVER_ENVIDO)  # opens envido at
BLUFFS = (0.0, 0.08, 0.25, 0.5)  # and chants with less this often (envido and truco)
ENVIDO_BIGS = (28.0, 31.0, NEVER_ENVIDO)  # calls real envido, and raises, at
ENVIDO_WANTS = (ALWAYS, 21.0, 24.0, 26.0, 28.0, 30.0, 32.0, NEVER_ENVIDO)  # wants one at
TRUCO_OPENS = (0.45, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, NEVER_HAND)  # chants at
TRUCO_RAISES = (0.7, 0.85, NEVER_HAND)  # raises a truco at
TRUCO_WANTS = (ALWAYS, 0.15, 0.25, 0.35, 0.45, 0.5, 0.55, 0.6, 0.7, 0.85, NEVER_HAND)  # wants
MAZOS = (ALWAYS, 0.2, 0.3, 0.4)  # goes to the mazo before its first card below
LEADS = (0.0, 1.0, 2.0)  # leads in round 1 its lowest, middle or best card
AXES: tuple[tuple[tuple[float, ...], ...], ...] = (
    (ENVIDO_OPENS, BLUFFS, ENVIDO_BIGS),
    (ENVIDO_WANTS,),
    (SIGHTS, TRUCO_OPENS, BLUFFS, TRUCO_RAISES),
    (SIGHTS, TRUCO_WANTS),
    (MAZOS, LEADS),
)
GRIDS: tuple[tuple[tuple[float, ...], ...], ...] = tuple(
    tuple(itertools.product(*axes)) for axes in AXES
)
SIGHTED = (Group.TRUCO_CHANT, Group.TRUCO_ANSWER)  # groups whose first axis is SIGHTS

Weights = tuple[tuple[float, ...], ...]  # per group, a weight per candidate (summing to 1)


@dataclass(frozen=True, slots=True)
class Belief:
    """What difícil believes of one rival: how likely it plays like the sound player (our
    normal level: odds and the score, not habits), and otherwise which persona it is; and
    what its chants and wants came with (`bot.ai.tells`)."""

    sound: float
    groups: Weights
    tells: Tells = field(default_factory=Tells)


def uniform() -> Belief:
    return Belief(SOUND_PRIOR, tuple(tuple(1.0 / len(grid) for _ in grid) for grid in GRIDS))


@dataclass(frozen=True, slots=True)
class Persona:
    """One rival, as a candidate of each group (indices into GRIDS)."""

    picks: tuple[int, ...]

    def param(self, group: Group) -> tuple[float, ...]:
        return GRIDS[group][self.picks[group]]

    @staticmethod
    def draw(weights: Weights, rng: random.Random) -> Persona:
        return Persona(tuple(_pick(w, rng) for w in weights))


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
# A stage is a yes-or-no of one group with what it reads (the envido; or the hand's strength,
# as its chance to win `x` and as the cards it holds `v`; the level of the chant). For LEAD,
# `x` is the index of the card led and `level` how many it could choose from.
EO, EK, EA_RAISE, EA_WANT, TO, TA_RAISE, TA_WANT, MZ, LEAD = range(9)
STAGE_GROUP = {
    EO: Group.ENVIDO_CHANT,
    EK: Group.ENVIDO_CHANT,
    EA_RAISE: Group.ENVIDO_CHANT,
    EA_WANT: Group.ENVIDO_ANSWER,
    TO: Group.TRUCO_CHANT,
    TA_RAISE: Group.TRUCO_CHANT,
    TA_WANT: Group.TRUCO_ANSWER,
    MZ: Group.CARDS,
    LEAD: Group.CARDS,
}


@dataclass(frozen=True, slots=True)
class Step:
    """One stage a decision went through, and whether it said yes."""

    stage: int
    x: float
    level: int
    yes: bool
    v: float = 0.0


def _yes(stage: int, param: Sequence[float], x: float, level: int) -> float:
    """The chance of a yes at `stage` for a candidate of its group (`param` without its
    sight: `x` is already the strength it reads)."""
    if stage == EO:
        opens, bluff, _ = param
        return _clip(bluff + (1 - bluff) * _sigmoid((x - opens) / ENVIDO_SOFT))
    if stage in (EK, EA_RAISE):
        return _clip(_sigmoid((x - param[2]) / ENVIDO_SOFT))
    if stage == EA_WANT:  # each raise in the chain asks for a point and a half more
        return _clip(_sigmoid((x - param[0] - 1.5 * (level - 1)) / ENVIDO_SOFT))
    if stage == TO:  # a retruco and a vale cuatro ask for more
        opens, bluff, _ = param
        return _clip(bluff + (1 - bluff) * _sigmoid((x - opens - 0.08 * (level - 1)) / TRUCO_SOFT))
    if stage == TA_RAISE:  # bluffed as often as a truco is
        _, bluff, raises = param
        return _clip(bluff + (1 - bluff) * _sigmoid((x - raises - 0.05 * (level - 1)) / TRUCO_SOFT))
    if stage == TA_WANT:
        return _clip(_sigmoid((x - param[0] - 0.05 * (level - 1)) / TRUCO_SOFT))
    if stage == MZ:
        return _clip(_sigmoid((param[0] - x) / MAZO_SOFT))
    raise ValueError(stage)  # pragma: no cover


def _lead_chance(style: float, index: int, count: int) -> float:
    """The chance a lead of style 0/1/2 (lowest, middle, best) plays card `index` (by
    strength, lowest first) of `count`."""
    wanted = 0 if style == 0 else count - 1 if style == 2 else count // 2
    if count == 1:
        return 1.0
    return 1 - CARD_TREMBLE if index == wanted else CARD_TREMBLE / (count - 1)


def _strength(sight: float, x: float, v: float) -> float:
    return round((1 - sight) * x + sight * v, 2)


def _chance(persona: Persona, step: Step) -> float:
    """The chance `persona` gives `step`'s yes."""
    group = STAGE_GROUP[step.stage]
    param = persona.param(group)
    if step.stage == LEAD:
        return _lead_chance(param[1], int(step.x), step.level)
    x = step.x
    if group in SIGHTED:
        x, param = _strength(param[0], step.x, step.v), param[1:]
    return _yes(step.stage, param, x, step.level)


def column(step: Step) -> tuple[float, ...]:
    """The chance each candidate of the step's group gives it."""
    group = STAGE_GROUP[step.stage]
    if group not in SIGHTED:
        return _column(step.stage, step.x, step.level, step.yes)
    out: tuple[float, ...] = ()
    for sight in SIGHTS:  # the first axis: one block of the grid per sight
        out += _column(step.stage, _strength(sight, step.x, step.v), step.level, step.yes)
    return out


@cache
def _column(stage: int, x: float, level: int, yes: bool) -> tuple[float, ...]:
    """The chance each candidate of the stage's group (without its sight) gives one step."""
    group = STAGE_GROUP[stage]
    if stage == LEAD:
        return tuple(_lead_chance(param[1], int(x), level) for param in GRIDS[group])
    axes = AXES[group][1:] if group in SIGHTED else AXES[group]
    chances = (_yes(stage, param, x, level) for param in itertools.product(*axes))
    return tuple(p if yes else 1 - p for p in chances)


class Reading:
    """What a seat holds, as a persona reads it: its envido; its chance to win the hand, and
    the strength of the cards it still holds (each 0-1)."""

    __slots__ = ("_odds", "_v", "_w", "envido", "obs")

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.envido = envido_value(obs.dealt) if obs.dealt else 0
        self._w: float | None = None
        self._v: float | None = None
        self._odds: Odds | None = None

    @property
    def odds(self) -> Odds:
        if self._odds is None:
            self._odds = Odds(unseen(self.obs))
        return self._odds

    @property
    def w(self) -> float:
        if self._w is None:  # to the hundredth: what a persona tells apart
            self._w = round(hand_chance(self.obs, 0.0, self.odds), 2)
        return self._w

    @property
    def v(self) -> float:
        """How good its cards look to one who judges by what it holds: the rank of its two
        best in the order of the cards (the 1 of espadas 1, a 4 one fourteenth), on average
        (nothing held: 0), a round won or lost counting a fifth either way."""
        if self._v is None:
            best = sorted((c.strength for c in self.obs.cards), reverse=True)[:2]
            held = sum(best) / len(best) / TOP if best else 0.0
            side = side_of(self.obs.seat or 0)
            rounds = sum(0 if r is None else 1 if r == side else -1 for r in self.obs.results)
            self._v = round(min(max(held + ROUND_WORTH * rounds, 0.0), 1.0), 2)
        return self._v


def _kinds(obs: Observation) -> dict[ActionKind, Action]:
    return {a.kind: a for a in obs.actions if a.kind is not K.PLAY}


def _sorted_plays(obs: Observation) -> list[Action]:
    return sorted((a for a in obs.actions if a.kind is K.PLAY),
                  key=lambda a: a.card.strength if a.card else 0)  # fmt: skip


def _truco_level(kind: ActionKind) -> int:
    return TRUCO_CHANTS.index(kind) + 1


def _envido_open(kinds: dict[ActionKind, Action]) -> bool:
    return K.ENVIDO in kinds or K.REAL_ENVIDO in kinds or K.FALTA_ENVIDO in kinds


def _envido_steps(
    e: float, kinds: dict[ActionKind, Action], action: Action
) -> tuple[list[Step], float]:
    """Which envido chant it chose, once it chose to chant: a falta now and then, else a real
    envido when it calls its envido big (EK), else an envido."""
    plain = [k for k in (K.ENVIDO, K.REAL_ENVIDO) if k in kinds]
    falta = FALTA_SHARE if plain and K.FALTA_ENVIDO in kinds else (0.0 if plain else 1.0)
    if action.kind is K.FALTA_ENVIDO:
        return [], falta
    if len(plain) == 2:
        return [Step(EK, e, 1, action.kind is K.REAL_ENVIDO)], 1 - falta
    return [], 1 - falta


def _envido_chant(
    persona: Persona, e: float, kinds: dict[ActionKind, Action], rng: random.Random
) -> Action:
    plain = [k for k in (K.ENVIDO, K.REAL_ENVIDO) if k in kinds]
    falta = FALTA_SHARE if plain and K.FALTA_ENVIDO in kinds else (0.0 if plain else 1.0)
    if rng.random() < falta:
        return kinds[K.FALTA_ENVIDO]
    if len(plain) == 2:
        big = rng.random() < _yes(EK, persona.param(Group.ENVIDO_CHANT), e, 1)
        return kinds[K.REAL_ENVIDO] if big else kinds[K.ENVIDO]
    return kinds[plain[0]]


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


def _before_first_card(obs: Observation) -> bool:
    """Before its first card of the hand (when a mazo says it does not like its cards)."""
    return not obs.results and len(obs.cards) == 3


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


@dataclass(frozen=True, slots=True)
class Seen:
    """What one move of a rival says: the yes-or-no's of its habits it went through
    (`steps`), the chance a persona gives the rest of it (`other`: which card it played
    when not leading round 1, a falta envido, a move off every habit), and the chance the
    sound player would have made it (`sound`)."""

    steps: tuple[Step, ...]
    other: float
    sound: float


def seen(obs: Observation, action: Action, reading: Reading | None = None) -> Seen | None:
    """What `action` at `obs` says of the player, or None when it says nothing (a forced
    move, a flor: both kinds of player play those alike)."""
    if len(obs.actions) <= 1:
        return None
    kinds = _kinds(obs)
    if K.FLOR in kinds or obs.pending is Pending.FLOR:
        return None
    found, other = _steps(obs, action, reading or Reading(obs), kinds)
    expected = play_normal(obs, random.Random(0))  # without its bluffs: they are rare
    sound = 1 - SOUND_TREMBLE if expected == action else SOUND_TREMBLE / (len(obs.actions) - 1)
    return Seen(tuple(found), other, sound)


def _steps(
    obs: Observation, action: Action, r: Reading, kinds: dict[ActionKind, Action]
) -> tuple[list[Step], float]:
    """The stages a persona goes through to take `action`, and its chance of the rest."""
    kind = action.kind
    out: list[Step] = []
    e = float(r.envido)
    if obs.pending is Pending.ENVIDO:
        chain = [k for _, k in obs.calls if k in ENVIDO_CHANTS]
        if any(k in kinds for k in ENVIDO_CHANTS):
            out.append(Step(EA_RAISE, e, len(chain), kind in ENVIDO_CHANTS))
            if kind in ENVIDO_CHANTS:
                more, other = _envido_steps(e, kinds, action)
                return out + more, other
        if kind in (K.QUIERO, K.NO_QUIERO):
            out.append(Step(EA_WANT, e, len(chain), kind is K.QUIERO))
            return out, 1.0
        return out, TREMBLE
    if obs.pending is Pending.TRUCO:
        if _envido_open(kinds):
            out.append(Step(EO, e, 1, kind in ENVIDO_CHANTS))
            if kind in ENVIDO_CHANTS:
                more, other = _envido_steps(e, kinds, action)
                return out + more, other
        level = _truco_level(obs.pending_chant or K.TRUCO)
        if any(k in kinds for k in TRUCO_CHANTS):
            out.append(Step(TA_RAISE, r.w, level, kind in TRUCO_CHANTS, r.v))
            if kind in TRUCO_CHANTS:
                return out, 1.0
        if kind in (K.QUIERO, K.NO_QUIERO):
            out.append(Step(TA_WANT, r.w, level, kind is K.QUIERO, r.v))
            return out, 1.0
        return out, TREMBLE
    if obs.pending is not None:
        return out, 1.0
    # its turn: envido, truco, the mazo, a card, in that order
    if _envido_open(kinds):
        out.append(Step(EO, e, 1, kind in ENVIDO_CHANTS))
        if kind in ENVIDO_CHANTS:
            more, other = _envido_steps(e, kinds, action)
            return out + more, other
    chant = next((k for k in TRUCO_CHANTS if k in kinds), None)
    if chant is not None:
        out.append(Step(TO, r.w, _truco_level(chant), kind is chant, r.v))
        if kind is chant:
            return out, 1.0
    if K.MAZO in kinds and _before_first_card(obs):
        out.append(Step(MZ, r.w, 1, kind is K.MAZO))
        if kind is K.MAZO:
            return out, 1.0
    plays = _sorted_plays(obs)
    if kind is not K.PLAY or not plays:
        return out, TREMBLE
    if _leads_round_one(obs) and len(plays) > 1:
        out.append(Step(LEAD, float(plays.index(action)), len(plays), True))
        return out, 1.0
    if len(plays) == 1:
        return out, 1.0
    usual = _card(obs)
    return out, (1 - CARD_TREMBLE if action == usual else 0.0) + CARD_TREMBLE / len(plays)


def chances(group: Group, found: Sequence[Step]) -> list[float]:
    """For each candidate of `group`: the chance it gives every step of `found` of this group
    (1.0 for candidates of a group no step reads)."""
    out = [1.0] * len(GRIDS[group])
    for step in found:
        if STAGE_GROUP[step.stage] is group:
            out = [a * b for a, b in zip(out, column(step), strict=True)]
    return out


def factors(found: Sequence[Step]) -> list[list[float] | None]:
    """Per group, the chance each candidate gives the steps (None: no step of that group)."""
    groups = {STAGE_GROUP[s.stage] for s in found}
    return [chances(g, found) if g in groups else None for g in Group]


@lru_cache(maxsize=4096)
def _factors_kept(found: tuple[Step, ...]) -> tuple[tuple[float, ...] | None, ...]:
    """`factors`, kept: a world replays the rival moves of the worlds before it (`seen` is
    kept too, so the same steps come back as the same tuple)."""
    return tuple(None if f is None else tuple(f) for f in factors(found))


def act(persona: Persona, obs: Observation, rng: random.Random) -> Action:
    """What `persona` does at `obs` (its seat's legal actions), in a playout."""
    acts = obs.actions
    if len(acts) == 1:
        return acts[0]
    kinds = _kinds(obs)
    if K.FLOR in kinds or obs.pending is Pending.FLOR:
        return _flor(obs, kinds)
    r = Reading(obs)
    e = float(r.envido)

    def yes(stage: int, level: int = 1, strength: bool = False) -> bool:
        step = Step(stage, r.w if strength else e, level, True, r.v if strength else 0.0)
        return rng.random() < _chance(persona, step)

    if obs.pending is Pending.ENVIDO:
        chain = [k for _, k in obs.calls if k in ENVIDO_CHANTS]
        if any(k in kinds for k in ENVIDO_CHANTS) and yes(EA_RAISE, len(chain)):
            return _envido_chant(persona, e, kinds, rng)
        return kinds[K.QUIERO] if yes(EA_WANT, len(chain)) else kinds[K.NO_QUIERO]
    if obs.pending is Pending.TRUCO:
        if _envido_open(kinds) and yes(EO):
            return _envido_chant(persona, e, kinds, rng)
        level = _truco_level(obs.pending_chant or K.TRUCO)
        raise_to = next((kinds[k] for k in TRUCO_CHANTS if k in kinds), None)
        if raise_to is not None and yes(TA_RAISE, level, strength=True):
            return raise_to
        return kinds[K.QUIERO] if yes(TA_WANT, level, strength=True) else kinds[K.NO_QUIERO]
    if obs.pending is not None:
        return acts[0]
    if _envido_open(kinds) and yes(EO):
        return _envido_chant(persona, e, kinds, rng)
    chant = next((k for k in TRUCO_CHANTS if k in kinds), None)
    if chant is not None and yes(TO, _truco_level(chant), strength=True):
        return kinds[chant]
    if K.MAZO in kinds and _before_first_card(obs):
        step = Step(MZ, r.w, 1, True)
        if rng.random() < _chance(persona, step):
            return kinds[K.MAZO]
    plays = _sorted_plays(obs)
    if not plays:
        return next((a for a in acts if a.kind is not K.MAZO), acts[0])
    if _leads_round_one(obs) and len(plays) > 1:
        style = persona.param(Group.CARDS)[1]
        weights = [_lead_chance(style, i, len(plays)) for i in range(len(plays))]
        return plays[_pick(weights, rng)]
    if len(plays) > 1 and rng.random() < CARD_TREMBLE:
        return rng.choice(plays)
    return _card(obs)


# -- learning a rival from the hands played --------------------------------------------------
def update(belief: Belief, worlds: Sequence[Sequence[Seen]]) -> Belief:
    """The belief after one hand, given what the rival's moves said in each of several worlds
    (deals of its hidden cards consistent with the hand, equally likely a priori): the chance
    it is the sound player, and the exact posterior of each group of habits, the other groups
    averaged over their belief (assumed density filtering)."""
    if not worlds:
        return belief
    groups = belief.groups
    per_world = [factors([s for m in moves for s in m.steps]) for moves in worlds]
    others = [math.prod(m.other for m in moves) for moves in worlds]
    sounds = [math.prod(m.sound for m in moves) for moves in worlds]
    # how well each world is explained by each group's belief
    fits: list[list[float]] = []
    for fs in per_world:
        fits.append([1.0 if f is None else sum(q * x for q, x in zip(groups[g], f, strict=True))
                     for g, f in enumerate(fs)])  # fmt: skip
    as_persona = sum(o * math.prod(row) for o, row in zip(others, fits, strict=True))
    as_sound = sum(sounds)
    mixed = belief.sound * as_sound + (1 - belief.sound) * as_persona
    sound = belief.sound * as_sound / mixed if mixed > 0 else belief.sound
    out = []
    for g, prior in enumerate(groups):
        if all(fs[g] is None for fs in per_world):
            out.append(prior)
            continue
        post = [0.0] * len(prior)
        for fs, row, o in zip(per_world, fits, others, strict=True):
            rest = o * math.prod(row[:g] + row[g + 1 :])
            f = fs[g]
            for k in range(len(prior)):
                post[k] += rest * (f[k] if f is not None else 1.0)
        weighted = [q * p for q, p in zip(prior, post, strict=True)]
        total = sum(weighted)
        out.append(tuple(w / total for w in weighted) if total > 0 else prior)
    low, high = SOUND_BOUNDS
    return Belief(min(max(sound, low), high), tuple(out), belief.tells)


def draw_given(
    belief: Belief, moves: Sequence[Seen], rng: random.Random
) -> tuple[float, Persona | None]:
    """How well a world explains a rival's moves this hand (the chance of them, the belief
    averaged over), and the rival drawn from the belief given them: a persona, or None for
    the sound player."""
    fit = math.prod(m.other for m in moves)
    picks = []
    for g, f in enumerate(_factors_kept(tuple(s for m in moves for s in m.steps))):
        weights = belief.groups[g]
        if f is not None:
            weights = tuple(q * x for q, x in zip(weights, f, strict=True))
            fit *= sum(weights)
        picks.append(_pick(weights, rng))
    sound = belief.sound * math.prod(m.sound for m in moves)
    total = sound + (1 - belief.sound) * fit
    if rng.random() * total < sound:
        return total, None
    return total, Persona(tuple(picks))


def replay_past(
    past: PastHand, config: MatchConfig, hands: Sequence[tuple[Card, ...]]
) -> MatchState | None:
    """A state at the start of `past` dealt `hands`, or None if the deal does not fit it."""
    state = MatchState(config)
    state.scores = list(past.start_scores)
    state.hand_number = past.number - 1
    state.dealer = (past.dealer - 1) % past.players if past.number > 1 else past.dealer
    try:
        state.deal_as(Deal(tuple(hands)), past.duel)  # (a pica-pica duel as that duel)
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


Pendings = list[tuple[Action, Pending | None, ActionKind | None]]


def past_moves(
    past: PastHand,
    config: MatchConfig,
    seat: int,
    rng: random.Random,
    pendings: Pendings | None = None,
) -> list[list[Seen]]:
    """For each consistent deal of `past`: what each move of `seat` said in it; and into
    `pendings`, from the first deal that replays, each action with the chant it answered
    (the family waiting and its last chant: the same in every deal)."""
    found = []
    for hands in _past_worlds(past, config, rng):
        state = replay_past(past, config, hands)
        if state is None:
            continue
        taken: list[Seen] | None = []
        steps: Pendings = []
        for action in past.history:
            if action.seat == seat and taken is not None:
                got = seen(observe(state, seat), action)
                if got is not None:
                    taken.append(got)
            if not state.is_legal(action):
                taken = None
                break
            h = state.hand
            assert h is not None
            waiting = h.pending()
            steps.append((action, waiting, _waiting_chant(h, waiting)))
            state.apply(action)
        if taken is None:
            continue
        h = state.hand
        if h is not None and (tuple(h.announced) != past.announced
                              or tuple(h.son_buenas) != past.son_buenas):  # fmt: skip
            continue
        found.append(taken)
        if pendings is not None and not pendings:
            pendings.extend(steps)
    return found


def _waiting_chant(h: HandState, waiting: Pending | None) -> ActionKind | None:
    if waiting is Pending.ENVIDO:
        return h.envido_chain[-1]
    if waiting is Pending.TRUCO:
        return TRUCO_CHANTS[h.truco_pending - 1]
    return None


_CACHE: OrderedDict[tuple[object, ...], Belief] = OrderedDict()
CACHE_SIZE = 4096


def belief_of(obs: Observation, seat: int, prior: Belief | None = None) -> Belief:
    """difícil's belief about `seat` after the hands before this one (a pure function of the
    public record, from `prior`: what it remembered of that person from earlier matches, or
    nothing; remembered per process so each hand is learned once)."""
    return learn(obs.config, seat, obs.past, prior)


def learn(
    config: MatchConfig, seat: int, past: tuple[PastHand, ...], prior: Belief | None = None
) -> Belief:
    """The belief about `seat` after the public record `past`, starting from `prior`."""
    if not past:
        return prior or uniform()
    key = (config, seat, past, prior)
    found = _CACHE.get(key)
    if found is not None:
        _CACHE.move_to_end(key)
        return found
    before = learn(config, seat, past[:-1], prior)
    last = past[-1]
    rng = random.Random(f"{seat}:{last.number}:{len(last.history)}")
    pendings: Pendings = []
    belief = update(before, past_moves(last, config, seat, rng, pendings))
    belief = replace(belief, tells=learned(before.tells, last, seat, pendings))
    _CACHE[key] = belief
    if len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    return belief


def remembered(belief: Belief, keep: float = KEEP) -> Belief:
    """A belief carried to another match: mostly kept, partly forgotten (a person may change;
    and a few wrong reads must not fix them for good): `keep` of it, the rest the first
    hand's belief."""
    fresh = uniform()
    groups = tuple(
        tuple(keep * q + (1 - keep) * u for q, u in zip(old, new, strict=True))
        for old, new in zip(belief.groups, fresh.groups, strict=True)
    )
    return Belief(
        keep * belief.sound + (1 - keep) * fresh.sound, groups, belief.tells.remembered(keep)
    )


def to_json(belief: Belief) -> dict[str, object]:
    """A belief as stored (rounded: a few bytes a weight, the same belief to the play)."""
    return {
        "sound": round(belief.sound, 4),
        "groups": [[round(q, 4) for q in group] for group in belief.groups],
        "tells": belief.tells.to_json(),
    }


def from_json(data: object) -> Belief | None:
    """A stored belief, or None if it is not one of this grid (a newer or older model). A
    belief stored before the tells were kept has the tells of a stranger."""
    if not isinstance(data, dict):
        return None
    try:
        sound = float(data["sound"])
        groups = tuple(tuple(float(q) for q in group) for group in data["groups"])
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    if len(groups) != len(GRIDS) or any(
        len(g) != len(grid) or any(not 0 <= q <= 1 for q in g) or not 0.99 < sum(g) < 1.01
        for g, grid in zip(groups, GRIDS, strict=True)
    ):
        return None
    if not 0 <= sound <= 1:
        return None
    told = Tells.from_json(data["tells"]) if "tells" in data else Tells()
    if told is None:
        return None
    return Belief(sound, tuple(tuple(q / sum(g) for q in g) for g in groups), told)


def from_text(text: object) -> Belief | None:
    """A belief as stored (its JSON text), or None if the text is not one: cut short, another
    shape, another model's grid. Never raises: a bad row reads as nothing remembered."""
    if not isinstance(text, str | bytes):
        return None
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:  # (a ValueError: not JSON at all)
        return None
    return from_json(data)


def mean(belief: Belief, group: Group) -> tuple[float, float]:
    """The belief's average setting of a group (for reports and tests)."""
    grid = GRIDS[group]
    a = sum(q * p[0] for q, p in zip(belief.groups[group], grid, strict=True))
    b = sum(q * p[1] for q, p in zip(belief.groups[group], grid, strict=True))
    return a, b
