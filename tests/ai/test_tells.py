"""What difícil learns of what a rival's chants come with (bot/ai/tells.py): a few hands of
shown-down bluffs move a rate, the prior holds while little is shown, and a person's rates
are remembered through the store (how difícil answers by them: tests/ai/test_dificil.py)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from bot.ai import personas
from bot.ai.tells import PRIOR, Rate, Tells
from bot.game import MatchState, new_match, observe, random_deal
from bot.game.actions import ActionKind
from bot.storage.connect import open_database
from bot.storage.rivals import RivalStore
from tests.ai.scripted import ONE, envido_honest, envido_liar, played_against
from tests.engine.helpers import deal_of, do

K = ActionKind


def envido_rate(state: MatchState, seat: int = 1, rate: Rate = Rate.ENVIDO) -> float:
    """The rate learned of `seat` from every hand finished (the table records a hand once
    the next one is dealt)."""
    dealt = state.copy()
    if dealt.needs_deal:
        dealt.apply(random_deal(random.Random(0), 2))
    return personas.learn(ONE, seat, observe(dealt, None).past).tells.rate(rate)


def hand(state: MatchState, hands: str, *codes: str) -> None:
    """Deal `hands` and play `codes`; then whatever is left, each seat its first legal
    card (a hand ends played out)."""
    state.scores = [0, 0]
    state.apply(deal_of(hands))
    do(state, *codes)
    number = state.hand_number
    while not state.needs_deal and state.hand_number == number and not state.is_over:
        acts = state.legal_actions()
        state.apply(next((a for a in acts if a.kind is K.PLAY), acts[0]))


def test_a_few_hands_of_shown_down_bluffs_move_the_rate() -> None:
    """Seat 1 chants envido holding 5 (a 4, a 5 and a 3 of three suits), three hands running,
    is called and plays its three cards: its envido rate goes from the prior to most of its
    envidos."""
    state = new_match(ONE)
    assert envido_rate(state) == pytest.approx(PRIOR[Rate.ENVIDO])
    rates = []
    for number in range(1, 4):
        # seat 0 is mano on odd hands: it plays a card first, then seat 1 chants
        first = ("0:p:7c",) if number % 2 == 1 else ()
        then = () if first else ("0:p:7c",)
        rounds = ("1:p:4o", "0:p:6c", "0:p:1e", "1:p:5e")  # each wins a round: all are seen
        hand(state, "7c 6c 1e | 4o 5e 3b", *first, "1:e", "0:q", "1:p:3b", *then, *rounds)
        rates.append(envido_rate(state))
    assert rates[0] > PRIOR[Rate.ENVIDO] + 0.1
    assert rates[0] < rates[1] < rates[2]
    assert rates[2] > 0.4  # three hands: more than the prior's four hands' worth
    # nothing it did was an envido of another kind: those rates did not move
    assert envido_rate(state, rate=Rate.REAL_ENVIDO) == pytest.approx(PRIOR[Rate.REAL_ENVIDO])


def test_the_prior_holds_while_little_is_shown() -> None:
    """A hand that shows nothing of an envido leaves its rate as it was; one honest envido
    moves it a little; a partial showing moves it less than a full one."""
    fresh = Tells()
    assert fresh.saw(Rate.ENVIDO, 0.3, 0.3) == fresh  # a showing that tells nothing
    once = fresh.saw(Rate.ENVIDO, 0.0, 0.57)
    assert PRIOR[Rate.ENVIDO] - 0.05 < once.rate(Rate.ENVIDO) < PRIOR[Rate.ENVIDO]
    exact = fresh.saw(Rate.ENVIDO, 1.0, 0.57).rate(Rate.ENVIDO)
    partial = fresh.saw(Rate.ENVIDO, 0.9, 0.57).rate(Rate.ENVIDO)
    assert PRIOR[Rate.ENVIDO] < partial < exact
    # in play: seat 1 chants envido, it is refused and seat 1 goes to the mazo before a card
    state = played_against(envido_liar, 0)
    state.apply(deal_of("7c 6c 1e | 4o 5e 6b"))
    do(state, "0:p:1e", "1:e", "0:nq", "1:m")
    assert envido_rate(state) == pytest.approx(PRIOR[Rate.ENVIDO])


def test_the_rates_tell_a_bluffer_from_an_honest_chanter_the_counts_cannot() -> None:
    liar, honest = played_against(envido_liar, 24), played_against(envido_honest, 24)
    chants = [observe(s, 0).habits[1].envido_chants for s in (liar, honest)]
    assert abs(chants[0] - chants[1]) <= 4  # about as often: the counts look alike
    assert envido_rate(liar) > 0.6 > PRIOR[Rate.ENVIDO] / 1.5 > envido_rate(honest)


@pytest.mark.postgresql
async def test_a_persons_rates_go_through_the_store_and_come_back(db_target: Path | str) -> None:
    """What a match taught of a person's envidos is stored with the rest of what difícil
    remembers, and comes back as it went (rounded), still telling a bluffer from an honest
    chanter; a row stored before the rates were kept reads as a stranger's."""
    learned = {
        1: personas.learn(ONE, 1, observe(played_against(envido_liar, 12), None).past),
        2: personas.learn(ONE, 1, observe(played_against(envido_honest, 12), None).past),
    }
    carried = {user: personas.remembered(b) for user, b in learned.items()}
    db = await open_database(db_target)
    try:
        store = RivalStore(db)
        rows = {user: personas.to_json(b) for user, b in carried.items()}
        await store.save(-100, {u: orjson.dumps(r).decode() for u, r in rows.items()}, at=1.0)
        back = {u: personas.from_text(t) for u, t in (await store.load(-100, [1, 2])).items()}
    finally:
        await db.close()
    for user, belief in carried.items():
        got = back[user]
        assert got is not None
        for r in Rate:
            assert got.tells.rate(r) == pytest.approx(belief.tells.rate(r), abs=1e-3)
    liar, honest = (back[u] for u in (1, 2))
    assert liar is not None and honest is not None
    assert liar.tells.rate(Rate.ENVIDO) > 0.4 > PRIOR[Rate.ENVIDO] > honest.tells.rate(Rate.ENVIDO)
    # carried to the next match: partly forgotten, toward the prior
    assert PRIOR[Rate.ENVIDO] < liar.tells.rate(Rate.ENVIDO) < learned[1].tells.rate(Rate.ENVIDO)
    # a row of before: a belief without rates reads with a stranger's
    old = {k: v for k, v in rows[1].items() if k != "tells"}
    before = personas.from_json(old)
    assert before is not None and before == replace(liar, tells=Tells())
    assert personas.from_json({**rows[1], "tells": [1.0, "x"]}) is None


def test_a_raise_of_our_envido_is_not_read_as_what_its_own_chants_come_with() -> None:
    """Seat 1 raises seat 0's envido to a real envido holding 5, three hands running, and
    says its 5 (a 4, a 5 and a 3 of three suits): it raises ours with anything (issue 74's
    caller raises most envidos it is chanted), which says how it answers, not what a real
    envido it opens comes with. Its real envido rate stays at the prior (else its honest
    openings would be taken for bluffs and called); how often it raises moves."""
    state = new_match(ONE)
    for number in range(1, 4):
        # seat 0 is mano on odd hands; on even hands seat 1 plays a card first
        first = () if number % 2 == 1 else ("1:p:3b",)
        hand(state, "7c 6c 1e | 4o 5e 3b", *first, "0:e", "1:re", "0:q")
    assert envido_rate(state, rate=Rate.REAL_ENVIDO) == pytest.approx(PRIOR[Rate.REAL_ENVIDO])
    assert envido_rate(state, rate=Rate.ENVIDO_RAISES) > PRIOR[Rate.ENVIDO_RAISES] + 0.2
