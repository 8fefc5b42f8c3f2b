"""Rule players: random (for benchmarks), fácil and normal. Each reads one `Observation` and
returns one of its legal actions; nothing else goes in.

fácil plays its best card or its worst, chants only with a strong hand and answers by
simple thresholds. normal plays sound truco: it reckons its chance to win the hand round by
round (R8, pardas included), bids envido and flor by their odds against what the rival's chant
suggests, weighs every choice by what it does to the chance of winning the match (so a falta
envido that decides the match is treated as such), and bluffs at a measured rate.

Its bets assume a rival who answers like a stranger (wants 65% of trucos, believes a chant as
normal means it). Given a model of the rival (`bot.ai.rivals.Rival`, difícil's), it takes that
rival's own rates instead: how often it wants, how good the hand it wants with is, how much its
chants mean, and bluffs as often as that pays (often against a rival who folds, hardly against
one who wants everything). With no evidence the model is the stranger, and so is the play.
"""

from __future__ import annotations

import random
from collections.abc import Collection

from bot.ai.estimate import (
    ANY_HAND,
    ENVIDO_FLOOR,
    Odds,
    _combine,
    below_floor,
    current_round,
    envido_chance,
    equity,
    flor_beats,
    hand_chance,
    partner_envido,
    unseen,
)
from bot.ai.rivals import NORMAL_ENVIDO_WANTED, NORMAL_TRUCO_WANTED, Rival
from bot.ai.tells import CHANT_RATE, PRIOR, Rate
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, Action, ActionKind
from bot.game.cards import Card, envido_value, flor_value
from bot.game.observation import Observation
from bot.game.scoring import (
    envido_not_wanted_value,
    envido_wanted_value,
    falta,
    truco_not_wanted_value,
    truco_wanted_value,
)
from bot.game.state import Pending, side_of

K = ActionKind

BLUFF_ENVIDO = 0.07  # normal chants envido with a poor envido this often, when it may
BLUFF_TRUCO = 0.10  # and truco with a poor hand, after the first round
HOLD_TRUCO = 0.3  # with a sure hand in round 1, it waits (to be chanted at) this often
FOLDS_RAISES = 0.35  # a rival who wants fewer of the raises of its envido is raised as a bluff
RAISE_FLOOR = 28  # the envido a rival wants a raise of its envido with
HONEST_ENVIDO = 27  # the envido an honest player chants with, at least
HONEST_RAISE = 31  # and raises one with


def play_random(obs: Observation, rng: random.Random) -> Action:
    return rng.choice(obs.actions)


def _kinds(obs: Observation) -> dict[ActionKind, Action]:
    return {a.kind: a for a in obs.actions if a.kind is not K.PLAY}


def _plays(obs: Observation) -> list[Action]:
    return sorted(
        (a for a in obs.actions if a.kind is K.PLAY),
        key=lambda a: a.card.strength if a.card else 0,
    )


def _envido_chain(obs: Observation) -> list[ActionKind]:
    return [kind for _, kind in obs.calls if kind in ENVIDO_CHANTS]


# -- fácil -------------------------------------------------------------------------------------
def play_facil(obs: Observation, rng: random.Random) -> Action:
    acts = obs.actions
    if len(acts) == 1:
        return acts[0]
    kinds = _kinds(obs)
    plays = _plays(obs)
    if obs.pending is Pending.FLOR:
        value = flor_value(obs.dealt)
        for kind in (K.FLOR, K.QUIERO):
            if kind in kinds and value >= 28:
                return kinds[kind]
        for kind in (K.CON_FLOR_ME_ACHICO, K.NO_QUIERO, K.QUIERO, K.FLOR):
            if kind in kinds:
                return kinds[kind]
    envido = envido_value(obs.dealt)
    if obs.pending is Pending.ENVIDO:
        return kinds[K.QUIERO] if envido >= 27 else kinds[K.NO_QUIERO]
    best = max((c.strength for c in obs.cards), default=0)
    if obs.pending is Pending.TRUCO:
        won_first = bool(obs.results) and obs.results[0] == side_of(obs.seat or 0)
        return kinds[K.QUIERO] if best >= 10 or won_first else kinds[K.NO_QUIERO]
    if K.ENVIDO in kinds and envido >= 28:
        return kinds[K.ENVIDO]
    strong = sum(1 for c in obs.cards if c.strength >= 11)
    if K.TRUCO in kinds and (strong >= 2 or (obs.results and best >= 12)):
        return kinds[K.TRUCO]
    on_table = current_round(obs)
    if not on_table:
        return plays[-1]  # its best card first
    top = max(c.strength for _, c in on_table)
    winners = [a for a in plays if a.card is not None and a.card.strength > top]
    return winners[0] if winners else plays[0]


# -- normal ------------------------------------------------------------------------------------
class _Normal:
    """One decision of the normal player."""

    def __init__(
        self,
        obs: Observation,
        rng: random.Random,
        signs: Collection[str],
        rival: Rival | None = None,
        edge: float = 0.5,
    ) -> None:
        assert obs.seat is not None
        self.rival = rival
        self.edge = edge
        self.obs = obs
        self.rng = rng
        self.signs = signs
        self.seat = obs.seat
        self.side = side_of(obs.seat)
        self.target = obs.config.target
        self.me = obs.scores[self.side]
        self.them = obs.scores[1 - self.side]
        self.kinds = _kinds(obs)
        self.plays = _plays(obs)
        self._hand: float | None = None
        self._odds: Odds | None = None

    @property
    def odds(self) -> Odds:
        if self._odds is None:
            self._odds = Odds(unseen(self.obs))
        return self._odds

    def eq(self, mine: int = 0, theirs: int = 0) -> float:
        return equity(self.me + mine, self.them + theirs, self.target, self.edge)

    def bet(self, p: float, points: int) -> float:
        """The match chance after a bet of `points` won with chance `p`."""
        return p * self.eq(points) + (1 - p) * self.eq(0, points)

    @property
    def hand(self) -> float:
        if self._hand is None:
            bonus = 0.25 if self.signs and set(self.signs) - {"no", "ev"} else 0.0
            self._hand = hand_chance(self.obs, bonus, self.odds)
        return self._hand

    def decide(self) -> Action:
        obs = self.obs
        if len(obs.actions) == 1:
            return obs.actions[0]
        if obs.pending is Pending.FLOR:
            return self.flor_answer()
        if obs.pending is Pending.ENVIDO:
            return self.envido_answer()
        chant = self.envido_start()
        if chant is not None:
            return chant
        if obs.pending is Pending.TRUCO:
            return self.truco_answer()
        truco = self.truco_start()
        if truco is not None:
            return truco
        return self.card()

    # -- flor ----------------------------------------------------------------------------------
    def flor_answer(self) -> Action:
        kinds = self.kinds
        p = flor_beats(flor_value(self.obs.dealt))
        if K.CONTRAFLOR_AL_RESTO in kinds and p >= 0.85:
            points = falta(self.obs.scores, self.target) + 6
            if self.bet(p, points) > self.bet(p, 6):
                return kinds[K.CONTRAFLOR_AL_RESTO]
        if K.CONTRAFLOR in kinds and p >= 0.7:
            return kinds[K.CONTRAFLOR]
        if K.FLOR in kinds and p >= 0.2:
            return kinds[K.FLOR]
        if K.QUIERO in kinds:
            chain = [k for _, k in self.obs.calls if k in (K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO)]
            points = 6
            if chain and chain[-1] is K.CONTRAFLOR_AL_RESTO:
                points += falta(self.obs.scores, self.target)
            refuse = 4 if K.CON_FLOR_ME_ACHICO in kinds else (6 if K.CONTRAFLOR in chain else 4)
            if self.bet(p - 0.1, points) >= self.eq(0, refuse):
                return kinds[K.QUIERO]
        for kind in (K.CON_FLOR_ME_ACHICO, K.NO_QUIERO, K.FLOR, K.QUIERO):
            if kind in kinds:
                return kinds[kind]
        return self.obs.actions[0]

    # -- envido --------------------------------------------------------------------------------
    def envido_answer(self) -> Action:
        kinds = self.kinds
        chain = _envido_chain(self.obs)
        mine = envido_value(self.obs.dealt)
        good = partner_envido(self.signs)
        floor = ENVIDO_FLOOR.get(chain[-1], 25)
        # how often this rival's chant of this kind came with less than its floor, as shown
        # and a plain envido more often yet from one who chants envidos more often than
        # normal: those beyond normal's rate are made with what an honest player would not
        # chant (a real envido's and a falta's own showings say what those come with)
        rate = CHANT_RATE.get(chain[-1])
        bluffs = None
        if self.rival is not None and rate is not None:
            bluffs = self.rival.tells.rate(rate)
            ours = any(side_of(s) == self.side for s, k in self.obs.calls if k in ENVIDO_CHANTS)
            if ours:  # a raise of our envido: those beyond a stranger's rate, with anything
                excess = self.rival.tells.raises_excess()
                weak = below_floor(floor) / below_floor(HONEST_RAISE)
                bluffs = excess * min(weak, 1.0) + (1 - excess) * bluffs
            elif chain[-1] is K.ENVIDO:
                excess = self.rival.envido_excess
                weak = below_floor(floor) / below_floor(HONEST_ENVIDO)
                bluffs = excess * weak + (1 - excess) * bluffs
            elif chain == [K.REAL_ENVIDO]:  # opened more often than its floor's hands allow
                excess = self.rival.tells.opens_excess()
                bluffs = excess + (1 - excess) * bluffs
        p = envido_chance(self.obs, mine, floor, good, bluffs)
        if self.rival is not None and rate is None and self.rival.envido_meant < 1:
            meant = self.rival.envido_meant
            p = meant * p + (1 - meant) * envido_chance(self.obs, mine, 0, good)
        falta_points = self.obs.config.envido_falta(self.obs.scores, self.obs.duel is not None)
        wanted = envido_wanted_value(chain, falta_points)
        refused = envido_not_wanted_value(chain)
        # a tie (a refusal that loses the match, a want reckoned as lost too) is wanted:
        # the reckoning is rough, and only the want keeps a chance
        options: list[tuple[float, Action]] = [
            (self.bet(p, wanted), kinds[K.QUIERO]),
            (self.eq(0, refused), kinds[K.NO_QUIERO]),
        ]
        # how often this rival wants a raise of its envido (a stranger: half the time); one
        # taken to give most of them up is raised with any envido (not to a falta: the
        # match). A raise it wants, it wants with a good envido.
        a = 0.5
        if self.rival is not None and bluffs is not None:
            a = self.rival.tells.raise_wanted(chain[-1], bluffs)
        # (the normal level, reading no rival, reckons as it always did: p - 0.1)
        called = 1.0
        if self.rival is not None:
            called = envido_chance(self.obs, mine, RAISE_FLOOR, good, 0.0)
        for kind in (K.ENVIDO, K.REAL_ENVIDO, K.FALTA_ENVIDO):
            bluff = a < FOLDS_RAISES and kind is not K.FALTA_ENVIDO
            if kind in kinds and (p >= 0.6 or bluff):
                raised = [*chain, kind]
                won = envido_wanted_value(raised, falta_points)
                accepted = self.bet(max(0.0, min(p - 0.1, called)), won)
                value = (1 - a) * self.eq(envido_not_wanted_value(raised)) + a * accepted
                options.append((value - 0.005, kinds[kind]))
        return max(options, key=lambda o: o[0])[1]

    def envido_start(self) -> Action | None:
        kinds = self.kinds
        if K.ENVIDO not in kinds:
            return None
        mine = envido_value(self.obs.dealt)
        good = partner_envido(self.signs)
        p = envido_chance(self.obs, mine, 0, good)
        best: tuple[float, Action | None] = (self.eq(), None)
        for kind, value in self.envido_chants().items():
            if value > best[0] + 0.01:
                best = (value, kinds[kind])
        bluff = BLUFF_ENVIDO
        if self.rival is not None:  # bluffs pay against a rival who refuses, not a caller
            bluff *= min(3.0, (1 - self.rival.envido_wanted) / (1 - NORMAL_ENVIDO_WANTED)) ** 2
        if best[1] is None and p < 0.35 and self.rng.random() < bluff:
            return kinds[K.ENVIDO]
        return best[1]

    def envido_chants(self) -> dict[ActionKind, float]:
        """The match chance after each envido chant open to this seat (against `eq()` not
        chanting): refused, wanted, or (by a rival seen to raise our envidos more often
        than a stranger does) raised."""
        kinds = self.kinds
        mine = envido_value(self.obs.dealt)
        good = partner_envido(self.signs)
        p = envido_chance(self.obs, mine, 0, good)
        falta_points = self.obs.config.envido_falta(self.obs.scores, self.obs.duel is not None)
        accept = {K.ENVIDO: 0.55, K.REAL_ENVIDO: 0.45, K.FALTA_ENVIDO: 0.35}
        values: dict[ActionKind, float] = {}
        for kind in ENVIDO_CHANTS:
            if kind not in kinds:
                continue
            floor = ENVIDO_FLOOR[kind]
            p_called = envido_chance(self.obs, mine, floor, good)
            a = accept[kind]
            raised = 0.0
            # as often as this rival wants, with what it wants; but a falta stakes the match,
            # and what it is wanted with is not what plain envidos are: a rival who wants
            # every plain envido may want a falta only with a good one (issue 74's caller)
            if self.rival is not None and kind is not K.FALTA_ENVIDO:
                a = min(1.0, a * self.rival.envido_wanted / NORMAL_ENVIDO_WANTED)
                # its wants shown weak, against a stranger's (whose are ANY_HAND any hand)
                weak = self.rival.tells.rate(Rate.ENVIDO_CALLED_WEAK)
                weak *= ANY_HAND * below_floor(floor) / PRIOR[Rate.ENVIDO_CALLED_WEAK]
                p_called = envido_chance(self.obs, mine, floor, good, min(weak, 1.0))
                picky = min(1.0, self.rival.envido_picky)
                p_called = picky * p_called + (1 - picky) * p
                raised = min(a, self.rival.tells.raises_beyond())
            # a rival whom a refusal would cost the match wants it, whatever it holds
            a = 1.0 if self.eq(1) >= 1.0 else a
            value = (1 - a) * self.eq(1) + (a - raised) * self.bet(
                p_called, envido_wanted_value([kind], falta_points)
            )
            if raised:
                value += raised * self.raised_over(kind, mine, good, falta_points)
            values[kind] = value
        return values

    def raised_over(
        self, kind: ActionKind, mine: int, good: bool | None, falta_points: int
    ) -> float:
        """The match chance once a rival raises our envido chant `kind` (to a real envido, or
        a falta over a real envido), answered at its best: given up, or wanted with what its
        raises beyond a stranger's (with anything) and the rest (a good envido) come with."""
        assert self.rival is not None
        over = K.REAL_ENVIDO if kind is K.ENVIDO else K.FALTA_ENVIDO
        chain = [kind, over]
        excess = self.rival.tells.raises_excess()
        honest = envido_chance(self.obs, mine, ENVIDO_FLOOR[over], good, 0.0)
        p = excess * envido_chance(self.obs, mine, 0, good) + (1 - excess) * honest
        wanted = self.bet(p, envido_wanted_value(chain, falta_points))
        return max(wanted, self.eq(0, envido_not_wanted_value(chain)))

    # -- truco ---------------------------------------------------------------------------------
    def truco_answer(self) -> Action:
        kinds = self.kinds
        level = TRUCO_CHANTS.index(self.obs.pending_chant) + 1 if self.obs.pending_chant else 1
        w = self.hand
        chant = self.obs.pending_chant or K.TRUCO
        meant = self.rival.means(chant) if self.rival is not None else 1.0
        w_called = max(0.0, w - (0.2 if not self.obs.results else 0.1) * meant)
        options: list[tuple[float, Action]] = [  # a tie is wanted, as for an envido
            (self.bet(w_called, truco_wanted_value(level)), kinds[K.QUIERO]),
            (self.eq(0, truco_not_wanted_value(level)), kinds[K.NO_QUIERO]),
        ]
        if level < 3 and TRUCO_CHANTS[level] in kinds and w_called >= 0.7:
            higher = self.bet(w_called - 0.05, truco_wanted_value(level + 1))
            value = 0.4 * self.eq(truco_not_wanted_value(level + 1)) + 0.6 * higher
            options.append((value, kinds[TRUCO_CHANTS[level]]))
        return max(options, key=lambda o: o[0])[1]

    def truco_start(self) -> Action | None:
        chant = next((self.kinds[k] for k in TRUCO_CHANTS if k in self.kinds), None)
        if chant is None:
            return None
        level = TRUCO_CHANTS.index(chant.kind)  # the level wanted now
        w = self.hand
        if w >= 0.97 and not self.obs.results and self.rng.random() < HOLD_TRUCO:
            return None
        now = self.bet(w, truco_wanted_value(level))
        a, picky, bluff = 0.65, 1.0, BLUFF_TRUCO
        if self.rival is not None:  # as often as this rival wants, with what it wants
            a = min(1.0, a * self.rival.truco_wanted / NORMAL_TRUCO_WANTED)
            weak = self.rival.tells.bluffs(Rate.TRUCO_CALLED_WEAK)  # what it wants with
            picky = min(1.5, self.rival.truco_picky * weak)
            bluff *= min(3.0, (1 - a) / 0.35) ** 2
        accepted = self.bet(max(0.0, w - 0.2 * picky), truco_wanted_value(level + 1))
        refused = self.eq(truco_not_wanted_value(level + 1))
        # a rival whom a refusal would cost the match wants it, whatever it holds
        value = accepted if refused >= 1.0 else (1 - a) * refused + a * accepted
        if value > now + 0.005:
            return chant
        if w < 0.3 and self.obs.results and self.rng.random() < bluff:
            return chant
        return None

    # -- cards ---------------------------------------------------------------------------------
    def card(self) -> Action:
        plays = self.plays
        if not plays:  # only calls are left (the mazo): none is better than the first
            return next((a for a in self.obs.actions if a.kind is not K.MAZO),
                        self.obs.actions[0])  # fmt: skip
        if len(plays) == 1:
            return plays[0]
        on_table = current_round(self.obs)
        if not on_table:
            return self.lead(plays)
        return self.follow(plays, on_table)

    def lead(self, plays: list[Action]) -> Action:
        results = self.obs.results
        if not results:
            if len(plays) == 3:
                strong = [a for a in plays if a.card and self.odds.beat(a.card.strength) > 0.8]
                return plays[0] if len(strong) >= 2 else plays[1]
            return plays[0]
        if results[0] == self.side and None not in results:
            return plays[0]  # one more round will do: keep the best for last
        return plays[-1]  # a parda, or a round lost: this round decides

    def follow(self, plays: list[Action], on_table: tuple[tuple[int, Card], ...]) -> Action:
        obs = self.obs
        odds = self.odds
        # the seats that play this round: every seat, or a pica-pica duel's two
        players = 2 if obs.duel_seats is not None else obs.config.players
        after = players - len(on_table) - 1
        rivals_after = (
            after  # (in a duel the one after is the rival)
            if obs.duel_seats is not None
            else sum(
                1 for i in range(1, after + 1) if side_of((self.seat + i) % players) != self.side
            )
        )
        rest_probs: dict[Action, tuple[float, ...]] = {}
        rivals = players // 2
        for a in plays:
            others = sorted(
                (p.card for p in plays if p is not a and p.card), key=lambda c: -c.strength
            )
            rest_probs[a] = tuple(odds.beat(c.strength, rivals) for c in others)
        top_theirs = max((c.strength for s, c in on_table if side_of(s) != self.side), default=0)
        top_ours = max((c.strength for s, c in on_table if side_of(s) == self.side), default=0)
        best: tuple[float, int, Action] | None = None
        for a in plays:
            assert a.card is not None
            ours = max(top_ours, a.card.strength)
            if ours > top_theirs:
                p_win, p_parda = odds.beat(ours, rivals_after), 0.0
            elif ours == top_theirs:
                p_win, p_parda = 0.0, 1.0 if rivals_after == 0 else 0.5
            else:
                p_win, p_parda = 0.0, 0.0
            results = obs.results
            mano_side = side_of(obs.mano)
            chance = (
                p_win * _combine((*results, self.side), rest_probs[a], self.side, mano_side)
                + p_parda * _combine((*results, None), rest_probs[a], self.side, mano_side)
                + (1 - p_win - p_parda)
                * _combine((*results, 1 - self.side), rest_probs[a], self.side, mano_side)
            )
            key = (round(chance, 3), -a.card.strength, a)
            if best is None or key[:2] > best[:2]:
                best = key
        assert best is not None
        return best[2]


def play_normal(
    obs: Observation,
    rng: random.Random,
    signs: Collection[str] = (),
    rival: Rival | None = None,
    edge: float = 0.5,
) -> Action:
    """normal's move; with `rival` (a model of the side it plays against, `bot.ai.rivals`)
    it bets as that rival answers and believes that rival's chants as much as they mean.
    `edge`: the chance it gives a hand to go its side's way (0.5: even players), which sets
    what a score is worth (a favourite stakes the match on one envido less readily)."""
    return _Normal(obs, rng, signs, rival, edge).decide()


def envido_chant_gains(
    obs: Observation, signs: Collection[str], rival: Rival, edge: float
) -> dict[ActionKind, float]:
    """Each envido chant open to this seat, by how much it adds to the match chance against
    `rival` (the baseline's reckoning: refused, wanted, raised as this rival does)."""
    normal = _Normal(obs, random.Random(0), signs, rival, edge)
    if K.ENVIDO not in normal.kinds:
        return {}
    still = normal.eq()
    return {kind: value - still for kind, value in normal.envido_chants().items()}
