"""What difícil remembers of a person from one match to the next (bot/ai/personas.py): learned
from the public record only, carried partly forgotten, stored in a few bytes, and read back
only when it is a belief of this model."""

from __future__ import annotations

import json
import random

from bot.ai import Level, decide, personas
from bot.ai.personas import Group
from bot.ai.search import Sampler
from bot.game import new_match, observe, random_deal
from tests.ai.scripted import ONE, caller, folder, played_against
from tests.ai.test_personas import mass


def test_a_match_starts_warm_from_what_was_remembered() -> None:
    """Against a rival who wants every truco, the next match's first hand already believes
    it; a stranger's first hand believes nothing."""
    before = played_against(caller, 15)
    learned = personas.learn(ONE, 1, observe(before, None).past)
    carried = personas.remembered(learned)
    fresh = new_match(ONE)
    fresh.apply(random_deal(random.Random(4), 2))
    obs = observe(fresh, 0)
    assert obs.past == ()
    cold = personas.belief_of(obs, 1)
    warm = personas.belief_of(obs, 1, carried)
    assert cold == personas.uniform() and warm == carried
    calls = lambda want, **_: want <= 0.15  # noqa: E731  (wants trucos with almost nothing)
    assert mass(warm, Group.TRUCO_ANSWER, calls) > 0.6 > 0.3 > mass(cold, Group.TRUCO_ANSWER, calls)
    # and the search's worlds start from it: the sampler's belief of seat 1 is the warm one
    sampler = Sampler(obs, (), random.Random(1), priors={1: carried})
    assert sampler.beliefs[1] == carried


def test_memory_is_learned_from_what_everyone_at_the_table_saw() -> None:
    """The record a memory is learned from is the public one: the same from the rival's own
    seat, from difícil's and from a watcher's; so no hidden card can reach it."""
    state = played_against(folder, 12, seed=3)
    public = observe(state, None).past
    assert public == observe(state, 0).past == observe(state, 1).past
    assert personas.learn(ONE, 1, public) == personas.learn(ONE, 1, observe(state, 0).past)


def test_a_remembered_belief_is_partly_forgotten_and_stays_a_belief() -> None:
    learned = personas.learn(ONE, 1, observe(played_against(caller, 15), None).past)
    carried = personas.remembered(learned)
    uniform = personas.uniform()
    for group, (old, new, flat) in enumerate(
        zip(learned.groups, carried.groups, uniform.groups, strict=True)
    ):
        assert abs(sum(new) - 1) < 1e-9, group
        for q, r, u in zip(old, new, flat, strict=True):  # between what it learned and nothing
            assert min(q, u) - 1e-12 <= r <= max(q, u) + 1e-12
    # carried twice with nothing learned between: it fades toward the first hand's belief
    twice = personas.remembered(carried)
    assert sum(abs(a - b) for a, b in zip(twice.groups[0], uniform.groups[0], strict=True)) < sum(
        abs(a - b) for a, b in zip(carried.groups[0], uniform.groups[0], strict=True)
    )


def test_a_stored_belief_round_trips_and_anything_else_is_refused() -> None:
    learned = personas.remembered(
        personas.learn(ONE, 1, observe(played_against(caller, 10), None).past)
    )
    stored = json.dumps(personas.to_json(learned))
    assert len(stored) < 6_000  # about 4 kB a person (some 700 weights, four digits each)
    back = personas.from_json(json.loads(stored))
    assert back is not None
    assert abs(back.sound - learned.sound) < 1e-3
    for a, b in zip(back.groups, learned.groups, strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-3
    good = personas.to_json(learned)
    groups = good["groups"]
    assert isinstance(groups, list)
    for bad in (
        None, [], "x", {"sound": 0.5}, {"groups": groups},
        {**good, "sound": 2.0}, {**good, "sound": "a"},
        {**good, "groups": groups[:-1]},  # another model's groups
        {**good, "groups": [g[:-1] for g in groups]},
        {**good, "groups": [[-0.5, 1.5, *g[2:]] for g in groups]},
    ):  # fmt: skip
        assert personas.from_json(bad) is None


def test_difícil_with_a_memory_decides_from_the_observation_and_the_memory_alone() -> None:
    """The same observation, seed and memory: the same move (a memory is an input like the
    observation, not a peek)."""
    learned = personas.remembered(
        personas.learn(ONE, 1, observe(played_against(caller, 12), None).past)
    )
    state = new_match(ONE)
    state.apply(random_deal(random.Random(9), 2))
    seat = state.acting_seats()[0]
    obs = observe(state, seat)
    priors = {1 - seat: learned}
    moves = {decide(obs, Level.DIFICIL, 5, priors=priors, budget=float("inf")) for _ in range(3)}
    assert len(moves) == 1 and next(iter(moves)) in obs.actions


def test_a_stored_text_that_is_no_belief_reads_as_nothing() -> None:
    """Whatever a `rivals` row holds (cut short, another shape, numbers out of range or too
    big for a float), reading it never raises: it is no belief, and the player starts from
    nothing; a belief's own text reads back as it."""
    past = observe(played_against(caller, 8), None).past
    belief = personas.remembered(personas.learn(ONE, 1, past))
    text = json.dumps(personas.to_json(belief))
    assert personas.from_text(text) is not None
    for bad in (
        "", "{", text[:-3], "null", "[1, 2]", '"x"', "1e999", '{"sound": 1e999, "groups": []}',
        '{"sound": 0.5, "groups": 7}', '{"sound": 0.5, "groups": [1, 2]}',
        '{"sound": 0.5, "groups": {"a": [1]}}', '{"sound": "nan", "groups": [[1.0]]}',
        '{"sound": 0.5, "groups": [[' + "9" * 400 + "]]}", b"\xff\xfe".decode("latin-1"),
    ):  # fmt: skip
        assert personas.from_text(bad) is None, bad
