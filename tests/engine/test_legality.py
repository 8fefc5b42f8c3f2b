"""What may be done is decided in one place (`MatchState._generate`): `legal_actions()`,
`public_actions()`, `verify()` and `why_not()` all come from it, and `_explain` only says why
something is refused. Over random states of both modes, con and sin flor, for every action the
button codec can express: `why_not(a)` is None exactly when `a` is legal; the explanations find
a fault in exactly the actions the generator leaves out (as the table sees it, too); and the
legal and public actions are exactly what an earlier, separately written generator gave (kept
here as an oracle, so a change to the rules shows up as a difference)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.callbacks import ActData, pack, unpack
from bot.game import Action, ActionKind, MatchConfig, MatchState, new_match, random_deal
from bot.game.actions import (
    ALL_ACTIONS,
    ENVIDO_CHANTS,
    TRUCO_CHANTS,
    call_action,
    play_action,
)
from bot.game.scoring import envido_raises
from bot.game.state import Phase, side_of

K = ActionKind


def oracle(state: MatchState, exclusive: bool) -> set[Action]:
    """The generator the engine had before legality was stated once (bot/game/state.py,
    `_generate`), verbatim but for names."""
    h = state.hand
    if state.phase is not Phase.PLAY or h is None:
        return set()
    out: list[Action] = []
    if exclusive:
        forced = h.undeclared_flor()
    elif state.config.flor and not h.flor_closed:
        forced = [s for s in range(h.players) if not h.flor_declared[s] and len(h.held[s]) == 3]
    else:
        forced = []
    if h.flor_pending:
        answering = 1 - h.flor_side
        last = h.flor_chain[-1]
        if last is K.FLOR:
            kinds: tuple[ActionKind, ...] = (
                K.FLOR, K.CON_FLOR_ME_ACHICO, K.CONTRAFLOR, K.CONTRAFLOR_AL_RESTO,
            )  # fmt: skip
        elif last is K.CONTRAFLOR:
            kinds = (K.QUIERO, K.CON_FLOR_ME_ACHICO, K.CONTRAFLOR_AL_RESTO)
        else:
            kinds = (K.QUIERO, K.NO_QUIERO)
        for seat in range(answering, h.players, 2):
            if h.flor_holders[seat] or not exclusive:
                out.extend(call_action(seat, kind) for kind in kinds)
        return set(out)
    if h.envido_pending:
        out.extend(call_action(seat, K.FLOR) for seat in forced)
        if forced and exclusive:
            return set(out)
        answering = 1 - h.envido_side
        for seat in range(answering, h.players, 2):
            out += [call_action(seat, K.QUIERO), call_action(seat, K.NO_QUIERO)]
            out.extend(call_action(seat, kind) for kind in envido_raises(h.envido_chain))
            out.append(call_action(seat, K.MAZO))
        return set(out)
    if h.truco_pending:
        answering = 1 - h.truco_pending_side
        level = h.truco_pending
        for seat in range(answering, h.players, 2):
            if seat in forced:
                out.append(call_action(seat, K.FLOR))
                if exclusive:
                    continue
            out += [call_action(seat, K.QUIERO), call_action(seat, K.NO_QUIERO)]
            if level < 3:
                out.append(call_action(seat, TRUCO_CHANTS[level]))
            if level == 1 and h.can_start_envido(seat):
                out.extend(call_action(seat, kind) for kind in ENVIDO_CHANTS)
            out.append(call_action(seat, K.MAZO))
        return set(out)
    seat = h.turn
    if seat in forced:
        out.append(call_action(seat, K.FLOR))
        if exclusive:
            return set(out)
    out.extend(play_action(seat, c) for c in h.held[seat])
    level = h.truco_level
    if level < 3 and (level == 0 or h.truco_side == side_of(seat)):
        out.append(call_action(seat, TRUCO_CHANTS[level]))
    if h.can_start_envido(seat):
        out.extend(call_action(seat, kind) for kind in ENVIDO_CHANTS)
    out.append(call_action(seat, K.MAZO))
    return set(out)


def expressible(players: int) -> list[Action]:
    """Every action a button can carry for these seats (the codec packs and unpacks it)."""
    out = []
    for action in ALL_ACTIONS:
        if action.seat >= players:
            continue
        data = unpack(pack(ActData(1, 1, action.kind, action.card)))
        assert isinstance(data, ActData) and (data.kind, data.card) == (action.kind, action.card)
        out.append(action)
    return out


def check(state: MatchState, candidates: list[Action]) -> None:
    legal = state.legal_actions()
    assert len(legal) == len(set(legal))  # nothing twice
    assert set(legal) == oracle(state, exclusive=True)
    assert set(state.public_actions()) == oracle(state, exclusive=False)
    allowed = set(legal)
    public = set(state.public_actions())
    for action in candidates:
        reason = state.why_not(action)
        assert (reason is None) == (action in allowed), (action.code, reason)
        assert state.is_legal(action) == (action in allowed)
        explained = state._explain(action, exclusive=True)
        assert (explained is None) == (action in allowed), (action.code, explained)
        seen = state._explain(action, exclusive=False)
        assert (seen is None) == (action in public), (action.code, seen)
        assert (state.verify(action, exclusive=False) is None) == (action in public)


@pytest.mark.slow("many cases: the whole suite runs them")
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.sampled_from([2, 4]),
    flor=st.booleans(),
    patient=st.booleans(),
)
def test_why_not_is_none_exactly_for_the_legal_actions(
    seed: int, players: int, flor: bool, patient: bool
) -> None:
    rng = random.Random(seed)
    config = MatchConfig(players=players, flor=flor, target=15)
    state = new_match(config)
    candidates = expressible(players)
    for _ in range(400):
        if state.is_over:
            break
        if state.needs_deal:
            state.apply(random_deal(rng, players))
        check(state, candidates)
        legal = state.legal_actions()
        weights = [5.0 if patient and a.kind is K.PLAY else 1.0 for a in legal]
        state.apply(rng.choices(legal, weights)[0])
    check(state, candidates)  # over, or cut short: the same holds
