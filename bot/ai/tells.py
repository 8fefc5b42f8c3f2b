"""What a rival's chants come with, and what it wants ours with: rates learned from every hand
the table saw, across matches too.

A rival who chants envido with a poor one half the time is called with less; one who wants
every envido is not bluffed. For each kind of chant (a plain envido, a real envido, a falta
envido, a truco, a retruco or vale cuatro) `Tells` keeps how often it came with a **weak**
holding: an envido below the chant's floor (`ENVIDO_FLOOR`: what an honest chanter holds at
least), a truco holding no card of a 3 or better. And of its answers to ours: how often it
wants an envido and a truco, and how often a want of its came with a weak holding.

What a hand shows is read from its public record (`bot.game.past.PastHand`): the values said
aloud and the cards shown at its end give a chant's holding exactly; the cards played give part
of it (an envido of 33 needs the 7 and 6 played; a truco chanted before an ancho was played was
no bluff), and the rest is what the unseen cards make likely. Each rate is a Beta belief that
starts at a prior worth `WEIGHT` hands (a handful of hands moves it) and is updated hand by
hand; a partial showing updates it by assumed density filtering (the exact posterior of a Beta
given a two-way mixture, projected back onto a Beta by its mean and variance), so a hand that
shows nothing leaves it as it was. The priors are the normal player's own rates, so a rival met
for the first time is played as before this model existed.

Nothing here reads a hidden card: only the public record, as any seat and a watcher see it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache

from bot.ai.estimate import ANY_HAND, ENVIDO_FLOOR, below_floor
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, Action, ActionKind
from bot.game.cards import DECK, Card, envido_value
from bot.game.past import PastHand
from bot.game.state import Pending

K = ActionKind

STRONG = 10  # a card of this strength or more (a 3, or better) makes a truco no bluff
WEIGHT = 4.0  # hands a prior is worth: a handful of hands' showings move a rate
KEEP = 0.8  # of what was learned of a person in one match, what the next one starts from
MOST = 40.0  # the most hands a remembered rate stands on (a person may change)


class Rate(IntEnum):
    """The rates kept of a rival (the `Tells` counts, in this order)."""

    ENVIDO = 0  # its plain envidos with an envido below ENVIDO_FLOOR
    REAL_ENVIDO = 1
    FALTA_ENVIDO = 2
    TRUCO = 3  # its trucos holding no card of STRONG or more
    RAISE = 4  # its retrucos and vale cuatros, likewise
    ENVIDO_WANTED = 5  # of the envidos it answered, those it wanted (or raised)
    ENVIDO_CALLED_WEAK = 6  # of those wanted, with an envido below the chant's floor
    TRUCO_WANTED = 7
    TRUCO_CALLED_WEAK = 8  # of the trucos it wanted, holding no card of STRONG or more
    RAISED_WANTED = 9  # of our raises of its envido (not to a falta), those it wanted
    ENVIDO_RAISES = 10  # of our envidos it answered (but a falta), those it raised
    REAL_ENVIDO_OPENS = 11  # of the hands it could open an envido first, those with a real one


CHANT_RATE: dict[ActionKind, Rate] = {
    K.ENVIDO: Rate.ENVIDO,
    K.REAL_ENVIDO: Rate.REAL_ENVIDO,
    K.FALTA_ENVIDO: Rate.FALTA_ENVIDO,
    K.TRUCO: Rate.TRUCO,
    K.RETRUCO: Rate.RAISE,
    K.VALE_CUATRO: Rate.RAISE,
}

# The prior of each rate (its mean): a stranger's. An envido chant's weak share is what the
# normal player reckoned a stranger's at before this model (ANY_HAND of its chants with any
# hand, `bot.ai.estimate.envido_chance`), and so is a want's; the wants are those
# `bot.ai.rivals` shrinks toward; a truco's weak shares are the normal player's against
# itself (`python bench/ai.py --tells normal:normal`). So a rival not seen yet is played as
# before this model.
PRIOR: dict[Rate, float] = {
    Rate.ENVIDO: ANY_HAND * below_floor(ENVIDO_FLOOR[K.ENVIDO]),
    Rate.REAL_ENVIDO: ANY_HAND * below_floor(ENVIDO_FLOOR[K.REAL_ENVIDO]),
    Rate.FALTA_ENVIDO: ANY_HAND * below_floor(ENVIDO_FLOOR[K.FALTA_ENVIDO]),
    Rate.TRUCO: 0.30,
    Rate.RAISE: 0.55,
    Rate.ENVIDO_WANTED: 0.17,
    Rate.ENVIDO_CALLED_WEAK: ANY_HAND * below_floor(ENVIDO_FLOOR[K.ENVIDO]),
    Rate.TRUCO_WANTED: 0.70,
    Rate.TRUCO_CALLED_WEAK: 0.65,
    Rate.RAISED_WANTED: 0.5,  # what the normal player assumed of every raise it made
    Rate.ENVIDO_RAISES: 0.05,
    # (below what an honest opener's 27 allows, HONEST_OPENS: a stranger is taken for honest)
    Rate.REAL_ENVIDO_OPENS: 0.15,
}
# How often a hand holds the 27 an honest real envido says: a rival who opens real envidos
# more often than this must open some with less, whether or not the table ever sees them
HONEST_OPENS = 1 - below_floor(ENVIDO_FLOOR[K.REAL_ENVIDO])

Counts = tuple[float, ...]  # per rate, (yes, no): a Beta's two parameters, the prior included


def _prior_counts() -> Counts:
    return tuple(x for r in Rate for x in (WEIGHT * PRIOR[r], WEIGHT * (1 - PRIOR[r])))


PRIOR_COUNTS = _prior_counts()


@dataclass(frozen=True, slots=True)
class Tells:
    """A Beta belief of each `Rate` of one rival (its parameters, the prior included)."""

    counts: Counts = PRIOR_COUNTS

    def rate(self, r: Rate) -> float:
        """The rate's mean."""
        yes, no = self.counts[2 * r], self.counts[2 * r + 1]
        return yes / (yes + no)

    def seen(self, r: Rate) -> float:
        """How many showings the rate stands on beyond its prior."""
        return self.counts[2 * r] + self.counts[2 * r + 1] - WEIGHT

    def extra(self, r: Rate) -> tuple[float, float]:
        """(yes, no) beyond the prior (what was learned; either may be below 0 after a
        partial showing's projection)."""
        return (
            self.counts[2 * r] - WEIGHT * PRIOR[r],
            self.counts[2 * r + 1] - WEIGHT * (1 - PRIOR[r]),
        )

    def raise_wanted(self, chant: ActionKind, bluffs: float | None = None) -> float:
        """How often it wants our raise of its envido chant `chant`: what its raises showed,
        from a prior read off how often that chant is a bluff (`bluffs`, by default its rate:
        an honest chanter wants a raise about as often as a stranger's chant is honest; a
        bluff is given up)."""
        honest = 1 - (self.rate(CHANT_RATE[chant]) if bluffs is None else bluffs)
        prior = PRIOR[Rate.RAISED_WANTED] * honest / (1 - PRIOR[CHANT_RATE[chant]])
        yes, no = self.extra(Rate.RAISED_WANTED)
        return min(max((yes + WEIGHT * prior) / (yes + no + WEIGHT), 0.0), 1.0)

    def raises_excess(self) -> float:
        """Of its raises of our envidos, the share beyond a stranger's rate of raising: raises
        an honest player would not have made (0 for one who raises no more often)."""
        yes, no = self.counts[2 * Rate.ENVIDO_RAISES], self.counts[2 * Rate.ENVIDO_RAISES + 1]
        mean, total = yes / (yes + no), yes + no
        # (its rate taken one standard deviation low: a few raises more than a stranger's
        # are luck as often as a habit)
        rate = mean - math.sqrt(mean * (1 - mean) / (total + 1))
        base = PRIOR[Rate.ENVIDO_RAISES]
        return max(0.0, 1 - base / rate) if rate > base else 0.0

    def raises_beyond(self) -> float:
        """How much more often than a stranger it raises our envidos (of those it answers,
        but a falta): 0 for a stranger, so its chants are reckoned as before."""
        base = PRIOR[Rate.ENVIDO_RAISES]
        return max(0.0, self.rate(Rate.ENVIDO_RAISES) - base) / (1 - base)

    def opens_excess(self) -> float:
        """Of its real envidos opened, the share beyond what an honest opener holds the hands
        for (HONEST_OPENS of its chances): chants below the floor, seen or not (a caller's
        refused real envidos are seldom shown, so its showings alone hardly move its rate)."""
        rate = self.rate(Rate.REAL_ENVIDO_OPENS)
        return max(0.0, 1 - HONEST_OPENS / rate) if rate > HONEST_OPENS else 0.0

    def bluffs(self, r: Rate) -> float:
        """How much less a chant (or a want) of this kind says of its holding than the
        normal player's does: 1 as the normal player's, toward 0.1 for one that says
        nothing, above 1 for one that says more (a rival that never bluffs it)."""
        prior = PRIOR[r]
        return min(max((1 - self.rate(r)) / (1 - prior), 0.1), 1.5)

    def saw(self, r: Rate, weak: float, base: float) -> Tells:
        """After one showing of `r`: its holding weak with chance `weak` as the table could
        tell, where `base` is how often a holding is weak before anything is seen (so a
        showing that tells nothing, `weak == base`, moves nothing)."""
        if 0.0 < weak < 1.0 and math.isclose(weak, base):
            return self
        a, b = self.counts[2 * r], self.counts[2 * r + 1]
        if weak <= 0.0 or weak >= 1.0:
            a, b = (a + 1, b) if weak >= 1.0 else (a, b + 1)
        else:
            # The holding is weak with odds (rate/(1-rate)) * (weak/base) / ((1-weak)/(1-base)):
            # the posterior of the rate is a two-way mixture of Betas, matched by its moments
            yes, no = weak / base, (1 - weak) / (1 - base)
            n = a + b
            w1 = yes * a / (yes * a + no * b)
            mean = (a + w1) / (n + 1)
            second = (w1 * (a + 1) * (a + 2) + (1 - w1) * a * (a + 1)) / ((n + 1) * (n + 2))
            var = max(second - mean * mean, 1e-12)
            size = min(max(mean * (1 - mean) / var - 1, n), n + 1)
            a, b = mean * size, (1 - mean) * size
        counts = list(self.counts)
        counts[2 * r], counts[2 * r + 1] = a, b
        return Tells(tuple(counts))

    def merged(self, others: Sequence[Tells]) -> Tells:
        """One belief for a side of several rivals (2v2): what each showed, pooled."""
        prior = PRIOR_COUNTS
        return Tells(
            tuple(
                p + sum(t.counts[i] - p for t in (self, *others))
                for i, p in enumerate(prior)
            )
        )  # fmt: skip

    def remembered(self, keep: float = KEEP) -> Tells:
        """Carried to another match: `keep` of what was learned, and at most MOST hands of
        it (a person may change; a few wrong reads must not fix them for good)."""
        counts = list(PRIOR_COUNTS)
        for r in Rate:
            a, b = self.extra(r)
            total = a + b
            shrink = keep * (min(1.0, MOST / total) if total > 0 else 1.0)
            counts[2 * r] += shrink * a
            counts[2 * r + 1] += shrink * b
        return Tells(tuple(counts))

    def to_json(self) -> list[float]:
        return [round(x, 3) for x in self.counts]

    @staticmethod
    def from_json(data: object) -> Tells | None:
        """Stored counts, or None if they are not this model's. Counts of fewer rates (a
        model that kept fewer: rates are only ever added at the end) read the rest as a
        stranger's."""
        if not isinstance(data, list) or len(data) % 2 or not 0 < len(data) <= 2 * len(Rate):
            return None
        try:
            counts = tuple(float(x) for x in data)
        except (TypeError, ValueError, OverflowError):
            return None
        if any(not math.isfinite(x) or x <= 0 or x > 10_000 for x in counts):
            return None
        return Tells(counts + PRIOR_COUNTS[len(counts) :])


# -- what a hand showed -----------------------------------------------------------------------
@cache
def _envido_values() -> tuple[int, ...]:
    return tuple(envido_value(h) for h in itertools.combinations(DECK, 3))


def _envido_weak(
    known: Sequence[Card],
    pool: Sequence[Card],
    floor: int,
    exact: int | None,
    below: tuple[int, bool] | None,
) -> float | None:
    """The chance a seat's envido was below `floor`, as the table can tell: exact when said
    aloud or all three cards were seen; else over the completions of the cards seen from the
    unseen ones (a "son buenas" bounding it); None when nothing was seen."""
    if exact is not None:
        return 1.0 if exact < floor else 0.0
    if len(known) >= 3:
        return 1.0 if envido_value(known[:3]) < floor else 0.0

    def fits(value: int) -> bool:
        return below is None or value < below[0] or (value == below[0] and below[1])

    if not known:
        if below is None:
            return None
        kept = [v for v in _envido_values() if fits(v)]
        return sum(v < floor for v in kept) / len(kept) if kept else None
    weak = total = 0
    for rest in itertools.combinations(pool, 3 - len(known)):
        value = envido_value((*known, *rest))
        if fits(value):
            total += 1
            weak += value < floor
    return weak / total if total else None


def _truco_weak(held: int, seen: Sequence[Card], pool: Sequence[Card]) -> float:
    """The chance a seat's `held` cards at a truco had none of STRONG or more, as the table
    can tell: `seen` of them were shown, the rest are among the unseen `pool`."""
    if any(c.strength >= STRONG for c in seen):
        return 0.0
    missing = held - len(seen)
    if missing <= 0:
        return 1.0
    low = sum(c.strength < STRONG for c in pool)
    return math.comb(low, missing) / math.comb(len(pool), missing) if len(pool) >= missing else 1.0


def _truco_base(held: int) -> float:
    low = sum(c.strength < STRONG for c in DECK)
    return math.comb(low, held) / math.comb(len(DECK), held)


def learned(
    tells: Tells,
    past: PastHand,
    seat: int,
    pendings: Sequence[tuple[Action, Pending | None, ActionKind | None]],
) -> Tells:
    """`tells` after one finished hand of `seat`: its chants and its answers to the other
    side's, with what the table saw of its holding. `pendings`: each action of the hand with
    the chant it answered (the family waiting, and its last chant), from a replay."""
    known = {s: past.known(s) for s in range(past.players)}
    shown = {c for cards in known.values() for c in cards}
    pool = [c for c in DECK if c not in shown]
    mine = known[seat]
    said = dict(past.announced)
    flor = any(a.seat == seat and a.kind is K.FLOR for a in past.history)
    below = next(((v, t) for s, v, t in past.son_buenas if s == seat), None)
    exact = said.get(seat) if not flor else None
    played = 0  # cards `seat` has played so far
    chanted = False  # whether `seat` chanted an envido in this hand yet
    opened = False  # whether anyone chanted an envido or a flor before `seat`'s first action
    first = True
    for action, pending, chant in pendings:
        if action.seat != seat:
            opened = opened or action.kind in ENVIDO_CHANTS or action.kind is K.FLOR
            continue
        kind = action.kind
        if first and not opened and not flor:  # its chance to open an envido
            tells = tells.saw(Rate.REAL_ENVIDO_OPENS, float(kind is K.REAL_ENVIDO), 0.5)
        first = False
        if kind is K.PLAY:
            played += 1
            continue
        family = ENVIDO_CHANTS if pending is Pending.ENVIDO else TRUCO_CHANTS
        wanted = kind is K.QUIERO or kind in family
        # (an envido chanted while a truco waits is no answer to it: the envido goes first)
        answered = chant is not None and (wanted or kind in (K.NO_QUIERO, K.MAZO))
        if answered and chant is not None and pending is Pending.ENVIDO and not flor:
            # a raise of its own envido is answered from what it chanted with
            # (a falta is wanted by what it stakes, not by what was chanted: not counted)
            if not chanted or chant is not K.FALTA_ENVIDO:
                tells = tells.saw(Rate.RAISED_WANTED if chanted else Rate.ENVIDO_WANTED,
                                  float(wanted), 0.5)  # fmt: skip
            if not chanted and chant is not K.FALTA_ENVIDO:
                tells = tells.saw(Rate.ENVIDO_RAISES, float(kind in ENVIDO_CHANTS), 0.5)
            weak = _envido_weak(mine, pool, ENVIDO_FLOOR[chant], exact, below)
            if wanted and not chanted and weak is not None:
                floor = ENVIDO_FLOOR[chant]
                tells = tells.saw(Rate.ENVIDO_CALLED_WEAK, weak, below_floor(floor))
        elif answered and pending is Pending.TRUCO:
            tells = tells.saw(Rate.TRUCO_WANTED, float(wanted), 0.5)
            if wanted:
                weak = _truco_weak(3 - played, mine[played:], pool)
                tells = tells.saw(Rate.TRUCO_CALLED_WEAK, weak, _truco_base(3 - played))
        if kind in ENVIDO_CHANTS and not flor:
            # a raise of the other side's envido is an answer (counted above, with what it
            # was wanted with): a rival who raises ours with anything may open honestly, and
            # its openings are what a chant's rate answers for
            raising = pending is Pending.ENVIDO and not chanted
            chanted = True
            floor = ENVIDO_FLOOR[kind]
            weak = _envido_weak(mine, pool, floor, exact, below)
            if weak is not None and not raising:
                tells = tells.saw(CHANT_RATE[kind], weak, below_floor(floor))
        elif kind in TRUCO_CHANTS:
            weak = _truco_weak(3 - played, mine[played:], pool)
            tells = tells.saw(CHANT_RATE[kind], weak, _truco_base(3 - played))
    return tells
