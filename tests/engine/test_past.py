"""The public record of the hands played: what the table saw of each, and nothing it did not."""

from __future__ import annotations

import random

from bot.game import Deal, MatchConfig, MatchState, cards, observe
from bot.game.past import PastHand
from bot.storage.snapshots import from_json, to_json
from tests.engine.helpers import deal_of, do, start

NO_FLOR = MatchConfig(flor=False)


def test_a_finished_hand_is_remembered_as_the_table_saw_it() -> None:
    # envido: seat 0 holds 33 (the 7 and 6 of copas), seat 1 no two of a suit
    state = start("7c 6c 1e | 2e 12b 5o", NO_FLOR, scores=(3, 5))
    do(state, "0:e", "1:q", "0:p:1e", "1:t", "0:q", "1:p:2e", "0:p:6c", "1:p:5o")
    assert state.phase.value == "deal" and state.past == ()  # kept when the next is dealt
    state.apply(deal_of("4e 5e 6o | 1b 2b 3b"))
    (past,) = state.past
    assert (past.number, past.dealer, past.mano, past.start_scores) == (1, 1, 0, (3, 5))
    assert [a.code for a in past.history] == [
        "0:e", "1:q", "0:p:1e", "1:t", "0:q", "1:p:2e", "0:p:6c", "1:p:5o",
    ]  # fmt: skip
    assert past.announced == ((0, 33),)  # seat 1 said son buenas
    assert past.son_buenas == ((1, 33, True),)  # lower, or level (the mano wins ties)
    # the envido's winner showed the cards that made it; seat 0 never played its 7 of copas
    assert past.shown == ((0, cards("7c 6c")),)
    assert past.played(0) == list(cards("1e 6c")) and set(past.known(0)) == set(cards("1e 7c 6c"))
    assert past.known(1) == list(cards("2e 5o"))  # the 12 of bastos was never seen
    # every seat, and the public view, sees the same record
    assert observe(state, 0).past == observe(state, 1).past == observe(state).past == (past,)


def test_the_record_is_saved_and_an_old_save_starts_it_empty() -> None:
    state = start("7c 6c 1e | 2e 12b 5o", NO_FLOR)
    do(state, "0:t", "1:nq")
    state.apply(deal_of("4e 5e 6o | 1b 2b 3b"))
    do(state, "1:e", "0:nq", "1:p:1b", "0:m")
    state.apply(deal_of("4o 5o 6c | 1c 2c 3c"))
    again = from_json(MatchState, to_json(state))
    assert again.past == state.past and len(state.past) == 2
    assert from_json(PastHand, to_json(state.past[1])) == state.past[1]


def test_cards_nobody_saw_are_not_in_the_record() -> None:
    """Deal every finished hand's unseen cards anew (those never played nor shown): the record
    and every seat's observation are the same."""
    rng = random.Random(5)
    first = "7c 6c 1e | 2e 12b 5o"
    script = ("0:t", "1:q", "0:p:1e", "1:p:2e", "0:p:6c", "1:p:5o")
    state = start(first, NO_FLOR)
    do(state, *script)
    state.apply(deal_of("4e 5e 6o | 1b 2b 3b"))
    # seat 0 kept its 7 of copas and seat 1 its 12 of bastos: swap them for unseen cards
    seen = set(cards("1e 2e 5o 6c 4e 5e 6o 1b 2b 3b"))
    for _ in range(5):
        free = [c for c in cards("4c 5c 10e 11e 10o 11o 12o 12c 4b 5b") if c not in seen]
        a, b = rng.sample(free, 2)
        other = start(f"{a} 6c 1e | 2e {b} 5o", NO_FLOR)
        do(other, *script)
        other.apply(Deal((cards("4e 5e 6o"), cards("1b 2b 3b"))))
        assert other.past == state.past
        for seat in (0, 1, None):
            assert observe(other, seat) == observe(state, seat)
