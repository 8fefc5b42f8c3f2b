"""Random legal matches checked step by step against the engine's invariants."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from bot import codec
from bot.game import (
    Action,
    ActionKind,
    AnyAction,
    IllegalActionError,
    MatchConfig,
    MatchState,
    new_match,
    random_deal,
)
from bot.game.actions import ALL_ACTIONS, parse_any
from bot.game.events import CardPlayed, HandDealt, MatchEnded
from bot.storage import snapshots
from bot.storage.snapshots import to_json

# (players, flor, target, house rule, matches): 800 random matches in all, every step of each
# checked. The engine's lines and branches they reach stop growing long before: 400 reach as many
# as 800; the 1,600 this ran before reached 2 lines and 5 branches more (three pardas, a flor
# said while a truco waits), which the rule tests reach anyway (docs/performance.md, "The test
# suite").
CONFIGS = [
    (MatchConfig(players=p, flor=f, target=t, house_rule=h), n)
    for p, f, t, h, n in [
        (2, True, 30, True, 150),
        (2, False, 30, True, 150),
        (4, True, 30, True, 150),
        (4, False, 30, False, 150),
        (2, True, 15, False, 100),
        (4, True, 15, True, 100),
    ]
]


def choose(rng: random.Random, legal: list[Action], patient: bool) -> Action:
    """Uniform, or 'patient': mostly cards, rarely the mazo, so hands run long."""
    if not patient:
        return rng.choice(legal)
    weights = [
        8.0 if a.kind is ActionKind.PLAY else 0.3 if a.kind is ActionKind.MAZO else 1.0
        for a in legal
    ]
    return rng.choices(legal, weights)[0]


def round_trip(stored: Any) -> MatchState:
    """The state a snapshot (through JSON text, as the database keeps it) loads as."""
    return snapshots.from_json(MatchState, codec.loads(codec.dumps(stored)))


def play_checked(config: MatchConfig, seed: int, deep: bool) -> None:
    _play_checked(config, seed, deep, round_trip)


def _play_checked(
    config: MatchConfig,
    seed: int,
    deep: bool,
    round_trip: Callable[[Any], MatchState],
) -> None:
    rng = random.Random(seed)
    state = new_match(config)
    log: list[AnyAction] = []
    stored = [to_json(state)]
    seats = range(config.players)
    candidates = [a for a in ALL_ACTIONS if a.seat in seats]
    played: set[str] = set()
    steps = 0
    while not state.is_over:
        steps += 1
        assert steps < 2000, "the match must end"
        before = list(state.scores)
        refused: list[AnyAction] = []
        if state.needs_deal:
            assert state.legal_actions() == []
            action: AnyAction = random_deal(rng, config.players)
        else:
            legal = state.legal_actions()
            assert legal, "a live hand always has something to do"
            assert len(set(legal)) == len(legal)
            assert all(a.seat in seats for a in legal)
            # Actions not listed are refused, and leave the state as it was (`copy` below, the
            # state loaded from its snapshot, is the one tried: its stored form is compared
            # with the snapshot anyway).
            listed = {id(a) for a in legal}
            refused = [other for other in rng.sample(candidates, 4) if id(other) not in listed]
            if deep:  # every listed action applies, each on its own copy
                for each in legal:
                    round_trip(stored[-1]).apply(each)
            # the public menu offers everything a seat may really do, bar flor holders' secrets
            public = set(state.public_actions())
            assert all(a in public for a in legal)
            action = choose(rng, legal, patient=seed % 2 == 0)
        # (the state's stored form is stored[-1]: nothing has changed it since it was made)
        copy = round_trip(stored[-1])
        for other in refused:
            try:
                copy.apply(other)
            except IllegalActionError:
                continue
            raise AssertionError(f"{other} is not listed but applied")
        assert to_json(copy) == stored[-1]
        assert copy.legal_actions() == state.legal_actions()
        assert copy.recent_hands == state.recent_hands  # the hands a front end still tells
        events = state.apply(action)
        copy_events = copy.apply(parse_any(action.code))
        assert events == copy_events
        log.append(action)
        stored.append(to_json(state))
        assert state.scores[0] >= before[0] and state.scores[1] >= before[1]
        for event in events:
            if isinstance(event, HandDealt):
                played.clear()
            if isinstance(event, CardPlayed):
                assert event.card.code not in played
                played.add(event.card.code)
        if state.is_over:
            assert isinstance(events[-1], MatchEnded)
    assert state.winner is not None
    assert state.scores[state.winner] >= config.target
    assert state.scores[1 - state.winner] < config.target
    # Replaying the log rebuilds the same state at every step.
    replayed = new_match(config)
    assert to_json(replayed) == stored[0]
    for action, snapshot in zip(log, stored[1:], strict=True):
        replayed.apply(parse_any(action.code))
        assert to_json(replayed) == snapshot


# Each configuration's matches in runs of 50 seeds, a test each: the same matches, but the test
# processes share them out (one test of 300 matches, alone at the end of a run, kept one core
# busy for a minute or two while the other waited).
# The fast tier (`-m "not slow"`) plays each configuration's first run; the whole suite all.
RUN = 50
RUNS = [
    pytest.param(
        c, range(start, min(start + RUN, n)),
        id=f"{c.players}p-{c.target}-flor{c.flor}-house{c.house_rule}-{start}",
        marks=[pytest.mark.slow("more random matches")] if start else [],
    )
    for c, n in CONFIGS
    for start in range(0, n, RUN)
]  # fmt: skip


@pytest.mark.parametrize(("config", "seeds"), RUNS)
def test_random_playouts_keep_every_invariant(config: MatchConfig, seeds: range) -> None:
    for seed in seeds:
        play_checked(config, seed, deep=seed % 20 == 0)
