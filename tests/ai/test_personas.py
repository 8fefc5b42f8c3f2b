"""difícil's picture of a rival (bot/ai/personas.py): learned from the public record of the
hands played, it follows what the rival did, and a persona plays legal truco."""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.ai import personas
from bot.ai.personas import GRIDS, Group, Persona
from bot.ai.rules import play_normal
from bot.game import (
    Action,
    MatchConfig,
    MatchState,
    Observation,
    new_match,
    observe,
    random_deal,
)
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, ActionKind
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


def hands_against(rival: Player, hands: int, seed: int = 1) -> Observation:
    """Seat 0 (normal) against `rival` at seat 1 for `hands` hands of one match (the score
    set back to 0–0 at every deal so that it lasts): seat 0's observation at the start of the
    next hand."""
    rng = random.Random(seed)
    state = new_match(ONE)
    while True:
        if state.is_over:  # a falta envido won it: open it again, the record kept
            state.phase, state.winner = Phase.DEAL, None
        if state.needs_deal:
            state.scores = [0, 0]
            state.apply(random_deal(rng, 2))
            if state.hand_number > hands:
                return observe(state, 0)
            continue
        seat = state.legal_actions()[0].seat
        obs = observe(state, seat)
        state.apply(play_normal(obs, rng) if seat == 0 else rival(obs, rng))


def mass(belief: personas.Belief, group: Group, test: Callable[..., bool]) -> float:
    """How much of the belief is on the candidates of `group` that pass `test` (given the
    settings of each, by name: `want`, `bluff`, ...)."""
    names = {
        Group.ENVIDO_CHANT: ("opens", "bluff", "big"),
        Group.ENVIDO_ANSWER: ("want",),
        Group.TRUCO_CHANT: ("sight", "opens", "bluff", "raises"),
        Group.TRUCO_ANSWER: ("sight", "want"),
        Group.CARDS: ("below", "lead"),
    }[group]
    settings = [dict(zip(names, p, strict=True)) for p in GRIDS[group]]
    return sum(q for q, p in zip(belief.groups[group], settings, strict=True) if test(**p))


def test_at_the_first_hand_nothing_is_known() -> None:
    obs = observe(_dealt(), 0)
    assert obs.past == ()
    assert personas.belief_of(obs, 1) == personas.uniform()


def _dealt() -> MatchState:
    state = new_match(ONE)
    state.apply(random_deal(random.Random(0), 2))
    return state


def test_a_rival_who_wants_everything_is_seen_to() -> None:
    obs = hands_against(caller, 20)
    belief = personas.belief_of(obs, 1)
    assert mass(belief, Group.TRUCO_ANSWER, lambda want, **_: want <= 0.15) > 0.8
    assert mass(belief, Group.ENVIDO_ANSWER, lambda want: want < 0) > 0.8
    # and as one who never chants: truco is opened late and rarely bluffed
    assert mass(belief, Group.TRUCO_CHANT, lambda bluff, **_: bluff <= 0.08) > 0.8


def test_a_rival_who_refuses_everything_is_seen_to() -> None:
    obs = hands_against(folder, 20)
    belief = personas.belief_of(obs, 1)
    assert mass(belief, Group.TRUCO_ANSWER, lambda want, **_: want >= 0.45) > 0.8
    assert mass(belief, Group.ENVIDO_ANSWER, lambda want: want >= 30) > 0.8


def test_a_rival_who_chants_whatever_it_holds_is_seen_to_bluff() -> None:
    obs = hands_against(bluffer, 20)
    belief = personas.belief_of(obs, 1)
    assert mass(belief, Group.ENVIDO_CHANT, lambda bluff, **_: bluff >= 0.25) > 0.8
    assert mass(belief, Group.TRUCO_CHANT, lambda bluff, **_: bluff >= 0.25) > 0.8


def test_a_rival_who_runs_to_the_mazo_is_seen_to() -> None:
    runs = lambda below, lead: below > 0  # noqa: E731
    assert abs(mass(personas.uniform(), Group.CARDS, runs) - 0.75) < 1e-9
    after = personas.belief_of(hands_against(runner, 25), 1)
    assert mass(after, Group.CARDS, runs) > 0.95


def test_the_belief_is_the_same_however_it_was_reached() -> None:
    """Learned hand by hand or all at once, in any process: the same belief (it is a pure
    function of the record, remembered only to save time)."""
    obs = hands_against(caller, 12, seed=4)
    step_by_step = personas.belief_of(obs, 1)
    personas._CACHE.clear()
    assert personas.belief_of(obs, 1) == step_by_step


def test_a_persona_only_takes_legal_actions() -> None:
    rng = random.Random(2)
    for config in (ONE, MatchConfig(players=2, flor=True), MatchConfig(players=4, flor=True)):
        taken = set()
        for _ in range(30):
            state = new_match(config)
            who = {s: Persona.draw(personas.uniform().groups, rng) for s in range(config.players)}
            while not state.is_over:
                if state.needs_deal:
                    state.apply(random_deal(rng, config.players))
                    continue
                seat = state.legal_actions()[0].seat
                obs = observe(state, seat)
                action = personas.act(who[seat], obs, rng)
                assert action in obs.actions
                taken.add(action.kind)
                state.apply(action)
        # they chant, answer, raise and run like people do
        assert {K.PLAY, K.QUIERO, K.NO_QUIERO, K.MAZO} <= taken
        assert taken & set(ENVIDO_CHANTS) and taken & set(TRUCO_CHANTS)
