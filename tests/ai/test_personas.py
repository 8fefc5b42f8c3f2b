"""difícil's picture of a rival (bot/ai/personas.py): learned from the public record of the
hands played, it follows what the rival did, and a persona plays legal truco."""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.ai import personas
from bot.ai.personas import GRIDS, Group, Persona
from bot.game import MatchConfig, MatchState, new_match, observe, random_deal
from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, ActionKind
from tests.ai.scripted import ONE, bluffer, caller, folder, hands_against, runner

K = ActionKind


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
