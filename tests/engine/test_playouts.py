"""Random legal matches checked step by step against the engine's invariants."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

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
from bot.game.past import PastHand

# (players, flor, target, house rule, matches): 2,400 random matches in all, every step of each
# checked (on a slow 2-core machine the 4,600 this ran before took three of the suite's twelve
# minutes; the deals differ with the configuration, so the six cover many more together).
CONFIGS = [
    (MatchConfig(players=p, flor=f, target=t, mazo_penalty=h), n)
    for p, f, t, h, n in [
        (2, True, 30, True, 300),
        (2, False, 30, True, 300),
        (4, True, 30, True, 300),
        (4, False, 30, False, 300),
        (2, True, 15, False, 200),
        (4, True, 15, True, 200),
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


class FinishedHandsOnce:
    """A finished hand's record (`PastHand`) is frozen, so its stored form, that form through
    JSON and the record read back from it are made once per hand, not again at every step
    (`MatchState.to_dict` writes every finished hand of the match, `from_dict` reads them all):
    a record that survives the round trip once survives it at every later step. The rest of
    the state (the live hand, the scores, the habits, the last deals) is still written, sent
    through JSON and read whole at every step."""

    def __init__(self) -> None:
        # Each keyed by the id of what it was made from, which it keeps alive.
        self.written: dict[int, tuple[PastHand, list[Any]]] = {}
        self.sent: dict[int, tuple[list[Any], list[Any]]] = {}
        self.read: dict[int, tuple[Sequence[Any], PastHand]] = {}

    def write(self, past: PastHand) -> list[Any]:
        found = self.written.get(id(past))
        if found is None or found[0] is not past:
            found = self.written[id(past)] = (past, self.to_list(past))
        return found[1]

    def send(self, entry: list[Any]) -> list[Any]:
        found = self.sent.get(id(entry))
        if found is None or found[0] is not entry:
            found = self.sent[id(entry)] = (entry, json.loads(json.dumps(entry)))
        return found[1]

    def load(self, data: Sequence[Any]) -> PastHand:
        found = self.read.get(id(data))
        if found is None or found[0] is not data:
            found = self.read[id(data)] = (data, self.from_list(data))
        return found[1]

    def round_trip(self, stored: dict[str, Any]) -> MatchState:
        """The state a stored form (through JSON, as the database keeps it) loads as."""
        data = json.loads(json.dumps({k: v for k, v in stored.items() if k != "past"}))
        data["past"] = [self.send(entry) for entry in stored["past"]]
        return MatchState.from_dict(data)

    @contextmanager
    def engaged(self) -> Iterator[FinishedHandsOnce]:
        self.to_list, self.from_list = PastHand.to_list, PastHand.from_list
        PastHand.to_list = lambda past: self.write(past)  # type: ignore[method-assign]
        PastHand.from_list = staticmethod(self.load)  # type: ignore[method-assign,assignment]
        try:
            yield self
        finally:
            PastHand.to_list = self.to_list  # type: ignore[method-assign]
            PastHand.from_list = staticmethod(self.from_list)  # type: ignore[method-assign]


def play_checked(config: MatchConfig, seed: int, deep: bool) -> None:
    with FinishedHandsOnce().engaged() as once:
        _play_checked(config, seed, deep, once.round_trip)


def _play_checked(
    config: MatchConfig,
    seed: int,
    deep: bool,
    round_trip: Callable[[dict[str, Any]], MatchState],
) -> None:
    rng = random.Random(seed)
    state = new_match(config)
    log: list[AnyAction] = []
    snapshots = [state.to_dict()]
    seats = range(config.players)
    candidates = [a for a in ALL_ACTIONS if a.seat in seats]
    played: set[str] = set()
    steps = 0
    while not state.is_over:
        steps += 1
        assert steps < 2000, "the match must end"
        before = list(state.scores)
        if state.needs_deal:
            assert state.legal_actions() == []
            action: AnyAction = random_deal(rng, config.players)
        else:
            legal = state.legal_actions()
            assert legal, "a live hand always has something to do"
            assert len(set(legal)) == len(legal)
            assert all(a.seat in seats for a in legal)
            # Actions not listed are refused, and leave the state as it was.
            listed = {id(a) for a in legal}
            for other in rng.sample(candidates, 4):
                if id(other) not in listed:
                    try:
                        state.apply(other)
                    except IllegalActionError:
                        continue
                    raise AssertionError(f"{other} is not listed but applied")
            assert state.to_dict() == snapshots[-1]
            if deep:  # every listed action applies, each on its own copy
                for each in legal:
                    round_trip(snapshots[-1]).apply(each)
            # the public menu offers everything a seat may really do, bar flor holders' secrets
            public = set(state.public_actions())
            assert all(a in public for a in legal)
            action = choose(rng, legal, patient=seed % 2 == 0)
        # (the state's stored form is snapshots[-1]: nothing has changed it since it was made)
        copy = round_trip(snapshots[-1])
        assert copy.to_dict() == snapshots[-1]
        assert copy.legal_actions() == state.legal_actions()
        assert copy.recent_hands == state.recent_hands  # the hands a front end still tells
        events = state.apply(action)
        copy_events = copy.apply(parse_any(action.code))
        assert events == copy_events
        log.append(action)
        snapshots.append(state.to_dict())
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
    assert replayed.to_dict() == snapshots[0]
    for action, snapshot in zip(log, snapshots[1:], strict=True):
        replayed.apply(parse_any(action.code))
        assert replayed.to_dict() == snapshot


# Each configuration's matches in runs of 50 seeds, a test each: the same matches, but the test
# processes share them out (one test of 300 matches, alone at the end of a run, kept one core
# busy for a minute or two while the other waited).
RUN = 50
RUNS = [(c, range(start, min(start + RUN, n))) for c, n in CONFIGS for start in range(0, n, RUN)]


@pytest.mark.parametrize(
    ("config", "seeds"),
    RUNS,
    ids=[f"{c.players}p-{c.target}-flor{c.flor}-house{c.mazo_penalty}-{s.start}" for c, s in RUNS],
)
def test_random_playouts_keep_every_invariant(config: MatchConfig, seeds: range) -> None:
    for seed in seeds:
        play_checked(config, seed, deep=seed % 20 == 0)
