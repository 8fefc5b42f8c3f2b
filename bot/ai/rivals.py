"""difícil's model of a rival, fitted during the match to what the rival has done.

A rival is taken to play like the normal player, bent by the habits the table has seen of them
(`Observation.habits`: their chants, answers, mazos and shown bluffs, counted over the match):
one who wants every truco is played out wanting them, one who chants truco twice as often as
normal is played out bluffing, one who refuses everything folds. Each habit is a frequency
shrunk toward the normal player's own (measured in normal-against-normal play with
`bench/ai.py`), so a rival met for the first hand is the normal player with a little noise, and
the model follows the rival as the evidence grows. The same habits say how much a chant of
theirs tells about their cards: a bluffer's truco says little, a tight player's says a lot.

This replaces "every rival plays normal" in the playouts: what difícil learned was to exploit
normal, which against a caller or a bluffer is the wrong thing to learn.

What the rival's chants came with when shown (`bot.ai.tells`: how often its envido, real
envido, falta, truco and raises were weak, and what it wants ours with) rides along
(`Rival.tells`): the normal player answers a chant by it (a frequent envido bluffer is called
with less) and bets by it (a rival who wants with anything is not bluffed), and difícil's worlds
weigh a chant by it. What was remembered of a person from earlier matches counts toward the
wants here too (`memory`: the match's own are the table's counts).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

from bot.ai.tells import CHANT_RATE, Rate, Tells
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, Action, ActionKind
from bot.game.cards import Card
from bot.game.habits import Habits
from bot.game.state import Pending

K = ActionKind

# The normal player's habits against itself: the prior every rival's habits are shrunk toward,
# so that a rival not seen yet is played as normal. They stay the values difícil's gauntlet
# was measured with (a new prior would need the gauntlet measured again), not normal's play of
# today: how they were measured, and today's figures, in docs/performance.md.
NORMAL_TRUCO_WANTED = 0.70  # of the trucos it answers
NORMAL_ENVIDO_WANTED = 0.17  # of the envidos it answers
NORMAL_TRUCO_CHANTS = 0.44  # a hand
NORMAL_ENVIDO_CHANTS = 0.31  # a hand
NORMAL_MAZOS = 0.01  # a hand
PRIOR = 6.0  # how many observations the normal player's habits are worth
TRUCO_CHANCES = 2.5  # decisions a hand where a truco could be chanted, about
WEAK = 15  # a hand whose two best cards sum to less than this is poor (for a mazo)


def _rate(count: float, total: float, prior: float) -> float:
    return (count + PRIOR * prior) / (total + PRIOR)


def _bend(rate: float, base: float) -> tuple[float, float]:
    """(more, less): how often the rival does a thing the normal player would not, and does
    not do it when the normal player would, so that its rate comes out at `rate`."""
    if rate >= base:
        return (rate - base) / (1 - base) if base < 1 else 0.0, 0.0
    return 0.0, (base - rate) / base if base > 0 else 0.0


@dataclass(frozen=True, slots=True)
class Rival:
    """How one rival strays from the normal player (chances per decision)."""

    call_truco: float = 0.0  # wants a truco normal would refuse
    fold_truco: float = 0.0  # refuses a truco normal would want
    call_envido: float = 0.0
    fold_envido: float = 0.0
    bluff_truco: float = 0.0  # chants truco where normal would not
    quiet_truco: float = 0.0  # does not chant the truco normal would
    bluff_envido: float = 0.0
    quiet_envido: float = 0.0
    mazo: float = 0.0  # goes to the mazo with a poor hand before its first card
    truco_says: float = 1.0  # how much its truco and its quiero tell of its cards (0–1)
    envido_says: float = 1.0
    tells: Tells = field(default_factory=Tells)  # what its chants and wants came with

    @staticmethod
    def read(
        h: Habits, hands: int, tells: Tells | None = None, memory: Tells | None = None
    ) -> Rival:
        """The model of a rival with habits `h` over `hands` hands played, whose chants came
        with `tells` (this match's hands and earlier matches'), and of whom `memory` was
        remembered from earlier matches."""
        tw, tr = memory.extra(Rate.TRUCO_WANTED) if memory is not None else (0.0, 0.0)
        ew, er = memory.extra(Rate.ENVIDO_WANTED) if memory is not None else (0.0, 0.0)
        call_t, fold_t = _bend(
            _rate(h.truco_wanted + tw, h.truco_wanted + h.truco_refused + tw + tr,
                  NORMAL_TRUCO_WANTED),
            NORMAL_TRUCO_WANTED,
        )  # fmt: skip
        call_e, fold_e = _bend(
            _rate(h.envido_wanted + ew, h.envido_wanted + h.envido_refused + ew + er,
                  NORMAL_ENVIDO_WANTED),
            NORMAL_ENVIDO_WANTED,
        )  # fmt: skip
        truco_rate = _rate(h.truco_chants, hands, NORMAL_TRUCO_CHANTS)
        envido_rate = _rate(h.envido_chants, hands, NORMAL_ENVIDO_CHANTS)
        more_t, less_t = _bend(min(truco_rate / TRUCO_CHANCES, 1.0),
                               NORMAL_TRUCO_CHANTS / TRUCO_CHANCES)  # fmt: skip
        more_e, less_e = _bend(min(envido_rate, 1.0), NORMAL_ENVIDO_CHANTS)
        mazo_rate = _rate(h.mazos, hands, NORMAL_MAZOS)
        return Rival(
            call_truco=call_t,
            fold_truco=fold_t,
            call_envido=call_e,
            fold_envido=fold_e,
            bluff_truco=more_t,
            quiet_truco=less_t,
            bluff_envido=more_e,
            quiet_envido=less_e,
            mazo=min(1.0, 2 * max(0.0, mazo_rate - NORMAL_MAZOS)),
            # a chant made more often than normal makes it is less often meant
            truco_says=max(0.1, 1 - more_t * TRUCO_CHANCES) * (1 - call_t),
            envido_says=max(0.1, 1 - more_e) * (1 - call_e),
            tells=tells or Tells(),
        )

    @property
    def truco_wanted(self) -> float:
        """How often it wants a truco (normal: NORMAL_TRUCO_WANTED)."""
        base = NORMAL_TRUCO_WANTED
        return base + self.call_truco * (1 - base) - self.fold_truco * base

    @property
    def envido_wanted(self) -> float:
        base = NORMAL_ENVIDO_WANTED
        return base + self.call_envido * (1 - base) - self.fold_envido * base

    @property
    def truco_meant(self) -> float:
        """How much its truco chant tells of its cards, against the normal player's (1)."""
        return max(0.1, 1 - self.bluff_truco * TRUCO_CHANCES)

    def means(self, kind: ActionKind) -> float:
        """How much its chant `kind` (a truco or a raise of one) tells of its cards, against
        the normal player's (1): by how often it chants it, and how often it was shown weak."""
        return self.truco_meant * self.tells.bluffs(CHANT_RATE[kind])

    def says(self, action: Action, answering: Pending | None) -> float:
        """How much a chant or an answer of this rival tells of its cards (0–1): flattened
        for one who chants or wants more often than normal, and for one whose chants (or
        wants) of that kind were shown weak more often than normal's."""
        kind = action.kind
        envido = kind in ENVIDO_CHANTS or answering is Pending.ENVIDO
        said = self.envido_says if envido else self.truco_says
        if kind in CHANT_RATE:
            said *= self.tells.bluffs(CHANT_RATE[kind])
        elif kind is K.QUIERO:
            said *= self.tells.bluffs(Rate.ENVIDO_CALLED_WEAK if envido else Rate.TRUCO_CALLED_WEAK)
        return min(said, 1.0)

    @property
    def envido_meant(self) -> float:
        return max(0.1, 1 - self.bluff_envido)

    @property
    def envido_excess(self) -> float:
        """Of its envido chants, the share beyond the normal player's rate: chants an honest
        player would not have made (0 for one who chants no more often than normal)."""
        base = NORMAL_ENVIDO_CHANTS
        rate = base + self.bluff_envido * (1 - base)
        return max(0.0, 1 - base / rate)

    @property
    def truco_picky(self) -> float:
        """How much better than a random hand the hand it wants a truco with is, against the
        normal player's (1): a caller's quiero says nothing, a folder's says more."""
        return (1 - self.call_truco) * (1 + self.fold_truco)

    @property
    def envido_picky(self) -> float:
        return (1 - self.call_envido) * (1 + self.fold_envido)

    @staticmethod
    def merge(rivals: Sequence[Rival]) -> Rival:
        """One model for a side of several rivals (2v2): the average of theirs, and what
        their chants showed, pooled."""
        if len(rivals) == 1:
            return rivals[0]
        names = [f.name for f in fields(Rival) if f.name != "tells"]
        return Rival(
            **{n: sum(getattr(r, n) for r in rivals) / len(rivals) for n in names},
            tells=rivals[0].tells.merged([r.tells for r in rivals[1:]]),
        )

    def stray(
        self,
        chosen: Action,
        options: Sequence[Action],
        pending: Pending | None,
        cards: Sequence[Card],
        rng: random.Random,
    ) -> Action:
        """The rival's move where the normal player would play `chosen`."""
        kinds = {a.kind: a for a in options if a.kind is not K.PLAY}
        kind = chosen.kind
        if pending is Pending.TRUCO or pending is Pending.ENVIDO:
            call, fold = (
                (self.call_truco, self.fold_truco)
                if pending is Pending.TRUCO
                else (self.call_envido, self.fold_envido)
            )
            if kind is K.NO_QUIERO:
                if call and K.QUIERO in kinds and rng.random() < call:
                    return kinds[K.QUIERO]
            elif fold and K.NO_QUIERO in kinds and rng.random() < fold:
                return kinds[K.NO_QUIERO]
            return chosen
        if pending is not None:
            return chosen
        plays = [a for a in options if a.kind is K.PLAY]
        if kind in ENVIDO_CHANTS:
            if self.quiet_envido and plays and rng.random() < self.quiet_envido:
                return _lowest(plays)
            return chosen
        if K.ENVIDO in kinds and self.bluff_envido and rng.random() < self.bluff_envido:
            return kinds[K.ENVIDO]
        if kind in TRUCO_CHANTS:
            if self.quiet_truco and plays and rng.random() < self.quiet_truco:
                return _lowest(plays)
            return chosen
        if kind is K.PLAY:
            if (
                self.mazo
                and len(cards) == 3
                and K.MAZO in kinds
                and _top_two(cards) < WEAK
                and rng.random() < self.mazo
            ):
                return kinds[K.MAZO]
            chant = next((kinds[k] for k in TRUCO_CHANTS if k in kinds), None)
            if chant is not None and self.bluff_truco and rng.random() < self.bluff_truco:
                return chant
        return chosen


def _lowest(plays: Sequence[Action]) -> Action:
    return min(plays, key=lambda a: a.card.strength if a.card else 0)


def _top_two(cards: Sequence[Card]) -> int:
    best = sorted((c.strength for c in cards), reverse=True)
    return sum(best[:2])
