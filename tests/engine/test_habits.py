"""The habits the table sees of each player: counted from public actions only, kept over the
match, saved and replayed like everything else."""

from __future__ import annotations

from bot.game import MatchConfig, MatchState, observe, parse_any, replay
from bot.storage.snapshots import from_json, to_json
from tests.engine.helpers import deal_of, do, start

NO_FLOR = MatchConfig(flor=False)


def test_chants_and_answers_are_counted_by_whom_and_to_what() -> None:
    # seat 1 holds nothing above a 2: a truco of theirs shown to the end is a bluff
    state = start("1e 7o 4c | 2e 6b 5o", NO_FLOR)
    do(state, "0:t", "1:e", "0:nq")  # truco, envido before it, envido refused
    do(state, "1:rt", "0:q")  # seat 1 answers the truco with a retruco, seat 0 wants it
    do(state, "0:p:1e", "1:p:5o", "0:p:7o", "1:p:6b")
    ana, beto = state.habits
    assert (ana.truco_chants, ana.truco_wanted, ana.envido_refused) == (1, 1, 1)
    assert (beto.envido_chants, beto.truco_chants, beto.truco_wanted) == (1, 1, 1)
    # seat 0 showed two of its cards, seat 1 only two as well: nothing was shown to the end
    assert ana.truco_shown == beto.truco_shown == 0


def test_a_bluff_shown_to_the_end_and_an_envido_said_low() -> None:
    # envido: seat 0 has 5, seat 1 has 6; seat 1's best card is a 2
    state = start("1e 4c 5o | 2e 12b 6o", NO_FLOR)
    do(state, "0:e", "1:q", "0:p:4c", "1:t", "0:q", "1:p:2e")
    do(state, "1:p:12b", "0:p:1e", "0:p:5o", "1:p:6o")
    assert state.hand is not None and state.hand.announced == [(0, 5), (1, 6)]
    ana, beto = state.habits
    assert beto.truco_chants == 1 and beto.truco_shown == 1 and beto.truco_bluffs == 1
    assert ana.envido_chants == 1 and ana.envido_shown == 1 and ana.envido_bluffs == 1
    assert beto.envido_wanted == 1 and beto.envido_shown == 0  # it said 6, but never chanted
    assert ana.truco_shown == 0 and ana.truco_wanted == 1


def test_a_mazo_before_the_first_card_is_counted() -> None:
    state = start("1e 7o 4c | 2e 6b 5o", NO_FLOR)
    do(state, "0:m")
    assert state.habits[0].mazos == 1
    state.apply(deal_of("4e 5e 6e | 1b 2b 3b"))
    do(state, "1:p:1b", "0:p:4e", "1:m")  # seat 1 played a card: not an early mazo
    assert state.habits[1].mazos == 0 and state.habits[0].mazos == 1


def test_habits_are_public_saved_and_replayed() -> None:
    state = start("1e 7o 4c | 2e 6b 5o", NO_FLOR)
    do(state, "0:t", "1:q", "0:p:1e", "1:p:5o", "0:p:7o")
    assert observe(state, 1).habits == observe(state, 0).habits == observe(state).habits
    assert observe(state).habits[1].truco_wanted == 1
    again = from_json(MatchState, to_json(state))
    assert again.habits == state.habits
    log = [parse_any(a.code) for a in (deal_of("1e 7o 4c | 2e 6b 5o"), *state.hand.history)]
    assert replay(NO_FLOR, log).habits == state.habits
