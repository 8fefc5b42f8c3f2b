"""Computer players: legal moves only, decisions from the observation alone, worlds that fit
what the seat saw, and play that beats weaker play (deterministic seeds, no clocks)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import pickle
import random
from collections.abc import Iterator
from typing import Any

import pytest

from bot.ai import LEVELS, Level, decide
from bot.ai.estimate import ENVIDO_FLOOR, envido_beats, equity, hand_chance
from bot.ai.rules import play_normal
from bot.ai.search import Sampler, play_dificil
from bot.ai.signs import SIGNS, all_consistent, consistent, signs_to_show
from bot.game import (
    DECK,
    Deal,
    IllegalActionError,
    MatchConfig,
    MatchState,
    Observation,
    cards,
    new_match,
    observe,
    random_deal,
    side_of,
)
from bot.game.actions import ActionKind, AnyAction

CONFIGS = [
    MatchConfig(players=2, flor=True),
    MatchConfig(players=2, flor=False, target=15),
    MatchConfig(players=4, flor=True),
    MatchConfig(players=4, flor=False, target=15),
]
INFINITE = math.inf


def configs(fast: int, of: list[MatchConfig] = CONFIGS) -> list[Any]:
    """`of` as a test's parameters: the fast tier (`-m "not slow"`) runs the one at `fast`, the
    whole suite every one."""
    return [
        pytest.param(
            c,
            id=f"{c.players}p-flor{int(c.flor)}",
            marks=[] if i == fast else [pytest.mark.slow("more configurations")],
        )
        for i, c in enumerate(of)
    ]


def dificil(obs: Observation, seed: int, signs: tuple[str, ...] = ()) -> object:
    """difícil with a fixed number of worlds and no clock: the same input, the same move."""
    return play_dificil(obs, random.Random(seed), signs, worlds=6, budget=INFINITE)


def states(
    config: MatchConfig, seed: int, count: int
) -> Iterator[tuple[MatchState, list[AnyAction]]]:
    """States met in matches played by mixed levels, with the action log that led there."""
    rng = random.Random(seed)
    levels = [Level.RANDOM, Level.FACIL, Level.NORMAL]
    found = 0
    while found < count:
        state = new_match(config)
        log: list[AnyAction] = []
        while not state.is_over and found < count:
            if state.needs_deal:
                deal = random_deal(rng, config.players)
                state.apply(deal)
                log.append(deal)
                continue
            seat = state.legal_actions()[0].seat
            if rng.random() < 0.3:
                yield state.copy(), list(log)
                found += 1
            action = decide(observe(state, seat), rng.choice(levels), rng.getrandbits(32))
            state.apply(action)
            log.append(action)


@pytest.mark.parametrize("config", configs(fast=2))
def test_every_level_only_chooses_among_its_legal_actions(config: MatchConfig) -> None:
    for index, (state, _) in enumerate(states(config, seed=11, count=120)):
        for seat in state.acting_seats():
            obs = observe(state, seat)
            for level in (Level.RANDOM, Level.FACIL, Level.NORMAL):
                assert decide(obs, level, index) in obs.actions
            if index % 4 == 0:
                assert dificil(obs, index) in obs.actions


@pytest.mark.parametrize("config", configs(fast=2, of=CONFIGS[:3]))
def test_whole_matches_between_levels_are_legal_to_the_end(config: MatchConfig) -> None:
    rng = random.Random(5)
    for match in range(3):
        state = new_match(config)
        levels = [Level.DIFICIL if match == 0 else Level.NORMAL, Level.FACIL]
        while not state.is_over:
            if state.needs_deal:
                state.apply(random_deal(rng, config.players))
                continue
            seat = state.legal_actions()[0].seat
            obs = observe(state, seat)
            level = levels[side_of(seat)]
            action = (
                dificil(obs, rng.getrandbits(32))
                if level is Level.DIFICIL
                else decide(obs, level, rng.getrandbits(32))
            )
            state.apply(action)  # raises if it was not legal
        assert state.winner in (0, 1)


def _hidden_swapped(
    config: MatchConfig, log: list[AnyAction], seat: int, rng: random.Random
) -> MatchState | None:
    """The same match with the other seats' unplayed cards of the current hand dealt anew
    (from every card `seat` has not seen), or None if the rules would not allow that deal."""
    last_deal = max(i for i, a in enumerate(log) if isinstance(a, Deal))
    deal = log[last_deal]
    assert isinstance(deal, Deal)
    played = {a.card for a in log[last_deal:] if not isinstance(a, Deal) and a.card is not None}
    mine = set(deal.hands[seat])
    pool = [c for c in DECK if c not in mine and c not in played]
    rng.shuffle(pool)
    hands = []
    for other, hand in enumerate(deal.hands):
        if other == seat:
            hands.append(hand)
            continue
        kept = tuple(c for c in hand if c in played)
        hands.append(kept + tuple(pool.pop() for _ in range(3 - len(kept))))
    try:
        state = MatchState(config)
        for action in [*log[:last_deal], Deal(tuple(hands)), *log[last_deal + 1 :]]:
            state.apply(action)
    except IllegalActionError:
        return None
    return state


@pytest.mark.parametrize("config", configs(fast=2))
def test_a_decision_never_depends_on_cards_the_seat_cannot_see(config: MatchConfig) -> None:
    """Deal the rivals' (and partner's) hidden cards anew, keep what the seat observes and
    the seed: no level ever decides differently."""
    rng = random.Random(3)
    checked = changed_cards = 0
    for index, (state, log) in enumerate(states(config, seed=17, count=60)):
        seat = state.acting_seats()[0]
        obs = observe(state, seat)
        for _ in range(4):
            other = _hidden_swapped(config, log, seat, rng)
            if other is None or observe(other, seat) != obs:
                continue  # that deal would have shown in what the seat sees
            assert other.hand is not None and state.hand is not None
            changed_cards += other.hand.dealt != state.hand.dealt
            for level in (Level.RANDOM, Level.FACIL, Level.NORMAL):
                assert decide(observe(other, seat), level, index) == decide(obs, level, index)
            if index % 3 == 0:
                assert dificil(observe(other, seat), index) == dificil(obs, index)
            checked += 1
    assert checked >= 60 and changed_cards >= 50  # the test did swap hidden cards


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.players}p-flor{int(c.flor)}")
def test_imagined_worlds_fit_everything_the_seat_saw(config: MatchConfig) -> None:
    """Every world difícil plays out looks, from its seat, exactly like the real table."""
    rng = random.Random(8)
    worlds = 0
    for state, _ in states(config, seed=23, count=50):
        seat = state.acting_seats()[0]
        obs = observe(state, seat)
        sampler = Sampler(obs, (), rng)
        for _ in range(3):
            found = sampler.world()
            if found is None:
                continue
            world, weight = found
            assert weight > 0
            seen = observe(world, seat)
            assert dataclasses.replace(seen, step=obs.step) == obs
            worlds += 1
    assert worlds >= 100


def test_announced_envido_is_respected_by_the_worlds() -> None:
    """After a wanted envido the values said are public: every world deals them exactly."""
    from bot.game import envido_value
    from bot.game.actions import Action

    config = MatchConfig(players=2, flor=False)
    state = new_match(config)
    state.apply(Deal((cards("4c 5c 12b"), cards("7e 6e 1o"))))  # 29, then 33 beats it
    for code in ("0:e", "1:q"):
        state.apply(Action.parse(code))
    obs = observe(state, 0)
    assert obs.announced == ((0, 29), (1, 33)) and obs.son_buenas == ()
    sampler = Sampler(obs, (), random.Random(1))
    for _ in range(30):
        found = sampler.world()
        assert found is not None
        world, _ = found
        assert world.hand is not None and envido_value(world.hand.dealt[1]) == 33


def test_son_buenas_bounds_the_worlds_and_shows_nothing_more() -> None:
    """R19: a "son buenas" over 5 says only that the value is at most 5."""
    from bot.game import envido_value
    from bot.game.actions import Action

    config = MatchConfig(players=2, flor=False)
    state = new_match(config)
    state.apply(Deal((cards("12c 5o 4b"), cards("1e 2o 3b"))))  # 5; the other 3: son buenas
    for code in ("0:e", "1:q"):
        state.apply(Action.parse(code))
    obs = observe(state, 0)
    assert obs.announced == ((0, 5),) and obs.son_buenas == ((1, 5, True),)
    assert all(seat != 1 for seat, _ in obs.announced)  # the 3 is never said
    sampler = Sampler(obs, (), random.Random(2))
    seen = set()
    for _ in range(40):
        found = sampler.world()
        assert found is not None
        world, _ = found
        assert world.hand is not None
        seen.add(envido_value(world.hand.dealt[1]))
    assert seen and max(seen) <= 5 and len(seen) > 1  # bounded, not pinned to the real 3


def test_a_partners_sena_shapes_the_worlds() -> None:
    config = MatchConfig(players=4, flor=False)
    state = new_match(config)
    state.apply(random_deal(random.Random(2), 4))
    obs = observe(state, 0)
    sampler = Sampler(obs, ("ae",), random.Random(4))
    for _ in range(20):
        found = sampler.world()
        assert found is not None
        world, _ = found
        assert world.hand is not None
        partner = world.hand.dealt[2]
        if any(c.code == "1e" for c in obs.dealt):
            break  # the seat holds it: no world can give it to the partner
        assert any(c.code == "1e" for c in partner)


def test_senas_say_what_is_true() -> None:
    hand = cards("1e 3c 4o")
    shown = signs_to_show(hand)
    assert shown == ["ae"]
    assert all(consistent(s, hand) for s in shown)
    assert signs_to_show(cards("7c 6c 4o")) == ["ev"]  # nothing strong, envido 33
    assert signs_to_show(cards("4e 5c 6o")) == ["no"]
    for sign in SIGNS:
        assert isinstance(consistent(sign, cards("2e 2c 7o")), bool)


def test_senas_together_are_each_of_them() -> None:
    """The worlds' filter of a partner's señas (`all_consistent`, reckoned once a hand) keeps
    the hands that fit each seña, over every hand of the deck."""
    rng = random.Random(3)
    for hand in itertools.combinations(DECK, 3):
        signs = rng.sample(SIGNS, rng.choice((1, 2)))
        assert all_consistent(signs, hand) == all(consistent(s, hand) for s in signs), signs


def test_the_value_of_a_score() -> None:
    assert equity(0, 0, 30) == pytest.approx(0.5, abs=0.01)
    assert equity(29, 0, 30) > 0.95 > 0.05 > equity(0, 29, 30)
    assert equity(20, 10, 30) > equity(15, 10, 30) > equity(10, 10, 30)
    assert equity(30, 29, 30) == 1.0 and equity(3, 15, 15) == 0.0


def test_an_envido_below_what_the_rival_must_hold_never_wins() -> None:
    """Against a rival who holds at least `floor`, a lower envido wins no comparison (nor ties
    one); the chance grows with the envido, whatever the floor."""
    for floor in (0, *ENVIDO_FLOOR.values()):
        chances = [envido_beats(value, floor) for value in range(34)]
        assert chances == sorted(chances)
        assert all(c == 0 for c in chances[:floor])
        assert chances[33] > 0.95


def test_normal_does_not_answer_a_truco_with_a_falta_envido_it_cannot_win() -> None:
    """Envido 7 facing a truco, 0–4 down: no envido is worth chanting with it (a bug once
    gave a 7 a third of the chances against a rival who wants a falta envido)."""
    config = MatchConfig(players=2, flor=False)
    state = new_match(config)
    state.scores = [4, 0]
    state.apply(Deal((cards("1e 7e 3c"), cards("7c 3e 10b"))))
    state.apply(next(a for a in state.legal_actions() if a.kind is ActionKind.TRUCO))
    obs = observe(state, 1)
    assert any(a.kind is ActionKind.FALTA_ENVIDO for a in obs.actions)
    chosen = {play_normal(obs, random.Random(seed)).kind for seed in range(50)}
    assert not chosen & {ActionKind.ENVIDO, ActionKind.REAL_ENVIDO, ActionKind.FALTA_ENVIDO}


def test_a_card_already_down_counts_for_its_round() -> None:
    """A seat whose card of this round is on the table reckons that round by that card (it
    once took its next card for it: the mano facing a truco after leading its 4 thought its
    1 of espadas would win round one)."""
    state = new_match(MatchConfig(players=2, flor=False))
    state.apply(Deal((cards("4c 1e 5o"), cards("7c 3e 10b"))))
    state.apply(next(a for a in state.legal_actions() if a.card == cards("4c")[0]))
    state.apply(next(a for a in state.legal_actions() if a.kind is ActionKind.TRUCO))
    # the 4 down: round one as good as lost, so the 5 must win round three (with the 1 of
    # espadas counted for round one, it reckoned 0.56)
    assert hand_chance(observe(state, 0)) < 0.3


def test_decisions_travel_to_a_process_pool_and_back() -> None:
    """Observations and actions survive pickling as the engine's own shared values."""
    state = new_match(MatchConfig())
    state.apply(random_deal(random.Random(1), 2))
    obs = observe(state, 0)
    copy = pickle.loads(pickle.dumps(obs))
    assert copy == obs and all(a is b for a, b in zip(copy.dealt, obs.dealt, strict=True))
    action = pickle.loads(pickle.dumps(decide(obs, Level.NORMAL, 1)))
    assert state.is_legal(action)


def mirrored_score(a: Level, b: Level, seeds: range) -> float:
    """A's share of wins over matches played twice with the same deals, seats swapped."""
    wins = 0
    for seed in seeds:
        for first in (a, b):
            levels = (first, b if first is a else a)
            state = new_match(MatchConfig(target=15))
            while not state.is_over:
                if state.needs_deal:
                    state.apply(random_deal(random.Random(f"{seed}:{state.hand_number}"), 2))
                    continue
                seat = state.legal_actions()[0].seat
                state.apply(decide(observe(state, seat), levels[seat], f"{seed}:{state.step}"))
            assert state.winner is not None
            wins += levels[state.winner] is a
    return wins / (2 * len(seeds))


def test_normal_beats_facil_and_facil_beats_random() -> None:
    """A small, fixed sample (bench/ai.py measures the real rates over thousands)."""
    assert mirrored_score(Level.FACIL, Level.RANDOM, range(40)) >= 0.8
    assert mirrored_score(Level.NORMAL, Level.FACIL, range(60)) > 0.5


def test_levels_offered_to_players() -> None:
    assert [level.value for level in LEVELS] == ["facil", "normal", "dificil"]
    with pytest.raises(ValueError):
        decide(observe(new_match(MatchConfig())), Level.NORMAL)
    state = new_match(MatchConfig())
    state.apply(random_deal(random.Random(1), 2))
    assert play_normal(observe(state, 0), random.Random(1)) in observe(state, 0).actions
