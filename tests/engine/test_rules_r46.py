"""R46, "falta a las malas": a table option for matches to 30 (RULES.md's house variant)."""

from __future__ import annotations

import random

import pytest

from bot.game import ActionKind, MatchConfig, new_match, random_deal
from bot.game.events import EnvidoResolved, MatchEnded, Scored, ScoreReason
from bot.game.scoring import falta, falta_a_las_malas
from tests.engine.helpers import do, start

MALAS = MatchConfig(falta_malas=True)

# R46's own examples, to 30: (scores before the falta) -> what a wanted falta envido is worth.
EXAMPLES = [((0, 0), 15), ((10, 4), 5), ((14, 14), 1), ((15, 3), 15), ((20, 8), 10), ((29, 29), 1)]


@pytest.mark.parametrize(("scores", "worth"), EXAMPLES, ids=[f"{a}-{b}" for (a, b), _ in EXAMPLES])
def test_r46_every_example_of_the_rule(scores: tuple[int, int], worth: int) -> None:
    assert falta_a_las_malas(scores, 30) == worth
    assert MALAS.envido_falta(scores, in_duel=False) == worth
    # played: seat 1's 33 beats seat 0's 5, whichever side is ahead (computed from the leader)
    for scores_now in (scores, scores[::-1]):
        state = start("4o 5b 12e | 7c 6c 4e", MALAS, scores=scores_now)
        events = do(state, "0:fe", "1:q")
        resolved = next(e for e in events if isinstance(e, EnvidoResolved))
        assert (resolved.winner, resolved.points) == (1, worth)
        assert state.scores == [scores_now[0], scores_now[1] + worth]
        # R25: points past the target end the match at once
        assert any(isinstance(e, MatchEnded) for e in events) == (scores_now[1] + worth >= 30)


def test_r46_off_by_default_and_r18_from_the_buenas_on() -> None:
    assert MatchConfig().envido_falta((10, 4), in_duel=False) == 20  # R18
    state = start("4o 5b 12e | 7c 6c 4e", MALAS, scores=(16, 2))
    do(state, "0:fe", "1:q")
    assert state.scores == [16, 2 + 14]  # the leader is in the buenas: what it lacks to 30


def test_r46_does_nothing_in_a_match_to_15() -> None:
    to_15 = MatchConfig(target=15, falta_malas=True)
    for scores in [(0, 0), (3, 9), (14, 14)]:
        assert to_15.envido_falta(scores, in_duel=False) == falta(scores, 15)
    state = start("4o 5b 12e | 7c 6c 4e", to_15, scores=(3, 9))
    do(state, "0:fe", "1:q")
    assert state.scores == [3, 15] and state.winner == 1


def test_r46_a_falta_not_wanted_keeps_r16_and_the_chains_follow_it() -> None:
    state = start("4o 5b 12e | 7c 6c 4e", MALAS, scores=(10, 4))
    events = do(state, "0:e", "1:fe", "0:nq")  # envido, falta envido not wanted: 2 (R16)
    assert [(e.side, e.points, e.reason) for e in events if isinstance(e, Scored)] == [
        (1, 2, ScoreReason.ENVIDO_NOT_WANTED)
    ]
    state = start("4o 5b 12e | 7c 6c 4e", MALAS, scores=(12, 4))
    events = do(state, "0:e", "1:re", "0:fe", "1:q")  # a chain that ends in the falta: R46's 3
    assert next(e for e in events if isinstance(e, EnvidoResolved)).points == 3


def test_r46_does_not_change_a_contraflor_al_resto() -> None:
    # R22: still R18 + 6. At 10-4 both hold flor: seat 0 1o 2o 3o (flor 33), seat 1 4c 5c 7c.
    state = start("1o 2o 3o | 4c 5c 7c", MALAS, scores=(10, 4))
    events = do(state, "0:f", "1:cfr", "0:q")
    assert [e.points for e in events if isinstance(e, Scored)] == [20 + 6]


def test_r46_in_a_pica_pica_duel_replaces_r42s_default_but_not_a_fixed_6() -> None:
    six = MatchConfig(players=6, falta_malas=True)
    assert six.envido_falta((10, 4), in_duel=True) == 5
    assert six.envido_falta((10, 4), in_duel=False) == 5
    fixed = MatchConfig(players=6, falta_malas=True, duel_falta=6)
    assert fixed.envido_falta((10, 4), in_duel=True) == 6
    assert fixed.envido_falta((10, 4), in_duel=False) == 5


def test_r46_the_stored_form_of_a_table_without_it_is_unchanged() -> None:
    assert "falta_malas" not in MatchConfig().options()
    assert MatchConfig.of(MALAS.options()) == MALAS
    assert (
        MatchConfig().cycled("falta_malas") == MALAS
        and MALAS.cycled("falta_malas").falta_malas is False
    )


@pytest.mark.parametrize("players", [2, 4, 6])
def test_r46_in_random_matches_every_wanted_falta_is_worth_what_r46_says(players: int) -> None:
    """Random legal matches with the option on: each wanted falta envido is scored as R46 from
    the scores just before it; every match ends with the winner at 30."""
    config = MatchConfig(players=players, falta_malas=True)
    faltas = 0
    for seed in range(60):
        rng = random.Random(seed)
        state = new_match(config)
        while not state.is_over:
            if state.needs_deal:
                state.apply(random_deal(rng, players))
                continue
            legal = state.legal_actions()
            # lean on the falta envido so that many are wanted
            weights = [
                6.0 if a.kind in (ActionKind.FALTA_ENVIDO, ActionKind.QUIERO) else 1.0
                for a in legal
            ]
            action = rng.choices(legal, weights)[0]
            before = list(state.scores)
            hand = state.hand
            duel = hand is not None and hand.duel is not None
            chain = list(hand.envido_chain) if hand is not None else []
            events = state.apply(action)
            for e in events:
                if (
                    isinstance(e, EnvidoResolved)
                    and e.wanted
                    and chain
                    and chain[-1] is ActionKind.FALTA_ENVIDO
                ):
                    assert (
                        e.points
                        == config.envido_falta(before, duel)
                        == falta_a_las_malas(before, 30)
                    )
                    faltas += 1
        assert state.winner is not None and state.scores[state.winner] >= 30
    assert faltas >= 20
