"""Scripted rivals with one plain habit each, for tests of how difícil reads its rivals, and a
match played against one for as many hands as a test needs."""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.ai.rules import play_normal
from bot.game import (
    Action,
    MatchConfig,
    MatchState,
    Observation,
    envido_value,
    new_match,
    observe,
    random_deal,
)
from bot.game.actions import TRUCO_CHANTS, ActionKind
from bot.game.state import Pending, Phase

K = ActionKind
ONE = MatchConfig(players=2, flor=False)
Player = Callable[[Observation, random.Random], Action]


def _kinds(obs: Observation) -> dict[ActionKind, Action]:
    return {a.kind: a for a in obs.actions if a.kind is not K.PLAY}


def _lowest(obs: Observation) -> Action:
    plays = [a for a in obs.actions if a.kind is K.PLAY]
    if not plays:
        return next(a for a in obs.actions if a.kind is not K.MAZO)
    return min(plays, key=lambda a: a.card.strength if a.card else 0)


def caller(obs: Observation, rng: random.Random) -> Action:
    """Wants every chant; never chants; plays its lowest card."""
    kinds = _kinds(obs)
    if obs.pending in (Pending.TRUCO, Pending.ENVIDO):
        return kinds[K.QUIERO]
    return _lowest(obs)


def raiser(obs: Observation, rng: random.Random) -> Action:
    """Raises every envido it may to a real envido (wants it where it may not), whatever it
    holds; wants every truco; never chants; plays its lowest card."""
    kinds = _kinds(obs)
    if obs.pending is Pending.ENVIDO and K.REAL_ENVIDO in kinds:
        return kinds[K.REAL_ENVIDO]
    if obs.pending in (Pending.TRUCO, Pending.ENVIDO):
        return kinds[K.QUIERO]
    return _lowest(obs)


def folder(obs: Observation, rng: random.Random) -> Action:
    """Refuses every chant; never chants; plays its lowest card."""
    kinds = _kinds(obs)
    if obs.pending in (Pending.TRUCO, Pending.ENVIDO):
        return kinds[K.NO_QUIERO]
    return _lowest(obs)


def bluffer(obs: Observation, rng: random.Random) -> Action:
    """Opens envido and truco whenever it may, whatever it holds; refuses what is chanted."""
    kinds = _kinds(obs)
    if obs.pending in (Pending.TRUCO, Pending.ENVIDO):
        return kinds[K.NO_QUIERO]
    for kind in (K.ENVIDO, *TRUCO_CHANTS):
        if kind in kinds:
            return kinds[kind]
    return _lowest(obs)


def real_opener(obs: Observation, rng: random.Random) -> Action:
    """Opens a real envido on every hand it may, whatever it holds (more often than an honest
    player can: one hand in four holds the 27 a real envido says); wants every chant; goes to
    the mazo once the envido is settled, so that what it held is seldom seen."""
    kinds = _kinds(obs)
    if obs.pending in (Pending.TRUCO, Pending.ENVIDO):
        return kinds[K.QUIERO]
    if K.REAL_ENVIDO in kinds:
        return kinds[K.REAL_ENVIDO]
    if K.MAZO in kinds and obs.calls:
        return kinds[K.MAZO]
    return _lowest(obs)


def real_honest(obs: Observation, rng: random.Random) -> Action:
    """Opens a real envido only with 27 or more; otherwise as `real_opener`."""
    kinds = _kinds(obs)
    if obs.pending is None and K.REAL_ENVIDO in kinds and envido_value(obs.dealt) < 27:
        return _lowest(obs)
    return real_opener(obs, rng)


def tight(obs: Observation, rng: random.Random) -> Action:
    """Chants truco only with two cards of a 3 or better, wants one only then; never bluffs,
    never chants envido, refuses every envido."""
    kinds = _kinds(obs)
    strong = sum(1 for c in obs.cards if c.strength >= 10) >= 2 or (
        bool(obs.results) and max((c.strength for c in obs.cards), default=0) >= 12
    )
    if obs.pending is Pending.ENVIDO:
        return kinds[K.NO_QUIERO]
    if obs.pending is Pending.TRUCO:
        return kinds[K.QUIERO] if strong else kinds[K.NO_QUIERO]
    chant = next((kinds[k] for k in TRUCO_CHANTS if k in kinds), None)
    if chant is not None and strong:
        return chant
    return _lowest(obs)


def runner(obs: Observation, rng: random.Random) -> Action:
    """Goes to the mazo before its first card unless it holds a 3 or better; else normal."""
    kinds = _kinds(obs)
    if (
        obs.pending is None
        and K.MAZO in kinds
        and len(obs.cards) == 3
        and max(c.strength for c in obs.cards) < 10
    ):
        return kinds[K.MAZO]
    return play_normal(obs, rng)


def played_against(rival: Player, hands: int, seed: int = 1) -> MatchState:
    """Seat 0 (normal) against `rival` at seat 1 for `hands` hands of one match (the score
    set back to 0–0 at every deal so that it lasts), waiting for the next deal."""
    rng = random.Random(seed)
    state = new_match(ONE)
    while True:
        if state.is_over:  # a falta envido won it: open it again, the record kept
            state.phase, state.winner = Phase.DEAL, None
        if state.needs_deal:
            state.scores = [0, 0]
            if state.hand_number == hands:
                return state
            state.apply(random_deal(rng, 2))
            continue
        seat = state.legal_actions()[0].seat
        obs = observe(state, seat)
        state.apply(play_normal(obs, rng) if seat == 0 else rival(obs, rng))


def hands_against(rival: Player, hands: int, seed: int = 1) -> Observation:
    """Seat 0's observation at the start of the hand after `played_against`."""
    state = played_against(rival, hands, seed)
    state.apply(random_deal(random.Random(seed), 2))
    return observe(state, 0)


def _envido_at(chants: Callable[[int], bool]) -> Player:
    def player(obs: Observation, rng: random.Random) -> Action:
        kinds = _kinds(obs)
        if obs.pending is Pending.ENVIDO:
            return kinds[K.NO_QUIERO]
        if obs.pending is Pending.TRUCO:
            return kinds[K.QUIERO]
        if K.ENVIDO in kinds and chants(envido_value(obs.dealt)):
            return kinds[K.ENVIDO]
        return _lowest(obs)

    return player


# Two rivals who chant a plain envido about as often (two hands in five), with opposite
# holdings: the table's counts cannot tell them apart, only what their envidos came with.
# Both refuse every envido, want every truco (so every hand is played out and shows all its
# cards), never chant truco, and play their lowest card.
envido_liar = _envido_at(lambda value: value <= 7)  # a bluff every time
envido_honest = _envido_at(lambda value: value >= 24)


def _truco_at(chants: Callable[[int], bool]) -> Player:
    def player(obs: Observation, rng: random.Random) -> Action:
        kinds = _kinds(obs)
        if obs.pending is Pending.ENVIDO:
            return kinds[K.NO_QUIERO]
        if obs.pending is Pending.TRUCO:
            return kinds[K.QUIERO]
        strong = sum(c.strength >= 10 for c in obs.cards)  # a 3 or better
        if K.TRUCO in kinds and len(obs.cards) == 3 and chants(strong):
            return kinds[K.TRUCO]
        return _lowest(obs)

    return player


# Two rivals who chant truco at their first card about as often (a hand in four), with
# opposite holdings: one with no card of a 3 or better, one with two or more. Both want every
# truco (every hand is played out and shows its cards), refuse every envido, never chant one.
truco_liar = _truco_at(lambda strong: strong == 0)
truco_honest = _truco_at(lambda strong: strong >= 2)
