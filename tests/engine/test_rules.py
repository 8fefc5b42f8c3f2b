"""One or more tests per rule of RULES.md (R1-R27) and its fine points (F1-F10)."""

from __future__ import annotations

import random

import pytest

from bot.game import (
    DECK,
    IllegalActionError,
    MatchConfig,
    Phase,
    Reason,
    card,
    cards,
    envido_value,
    flor_value,
    has_flor,
    new_match,
    random_deal,
)
from bot.game.events import (
    EnvidoAnnulled,
    EnvidoResolved,
    FlorResolved,
    HandDealt,
    HandEnd,
    HandEnded,
    MatchEnded,
    RoundWon,
    Scored,
    ScoreReason,
)
from bot.game.scoring import fosforos, malas_buenas
from tests.engine.helpers import codes, deal_of, do, start

SIN_FLOR = MatchConfig(flor=False)
NO_HOUSE = MatchConfig(house_rule=False)


def hand_end(events: list[object]) -> HandEnded:
    found = [e for e in events if isinstance(e, HandEnded)]
    assert len(found) == 1, events
    return found[0]


def refused(state: object, code: str) -> Reason:
    with pytest.raises(IllegalActionError) as info:
        do(state, code)  # type: ignore[arg-type]
    return info.value.reason


# -- R1, R2: deck and strength ---------------------------------------------------------------
def test_r1_deck_has_40_cards_without_8_and_9() -> None:
    assert len(DECK) == 40
    assert len({c.code for c in DECK}) == 40
    assert sorted({c.number for c in DECK}) == [1, 2, 3, 4, 5, 6, 7, 10, 11, 12]
    assert {c.suit.value for c in DECK} == {"o", "c", "e", "b"}
    with pytest.raises(ValueError):
        card(8, "e")


def test_r2_strength_order_and_ties() -> None:
    order = [
        "1e", "1b", "7e", "7o", "3o 3c 3e 3b", "2o 2c 2e 2b", "1c 1o", "12o 12c 12e 12b",
        "11o 11c 11e 11b", "10o 10c 10e 10b", "7c 7b", "6o 6c 6e 6b", "5o 5c 5e 5b",
        "4o 4c 4e 4b",
    ]  # fmt: skip
    groups = [cards(g) for g in order]
    assert sum(len(g) for g in groups) == 40
    for group in groups:
        assert len({c.strength for c in group}) == 1
    tops = [g[0].strength for g in groups]
    assert tops == sorted(tops, reverse=True) and len(set(tops)) == len(tops)


# -- R3, R4: dealing and turns ------------------------------------------------------------------
def test_r3_deal_three_distinct_cards_and_rotate_dealer_and_mano() -> None:
    rng = random.Random(7)
    deal = random_deal(rng, 4)
    assert [len(h) for h in deal.hands] == [3, 3, 3, 3]
    assert len({c for h in deal.hands for c in h}) == 12
    state = start("4c 5o 6e | 4o 5c 6b", NO_HOUSE)
    manos = [state.hand.mano]  # type: ignore[union-attr]
    for _ in range(3):
        seat = state.hand.turn  # type: ignore[union-attr]
        do(state, f"{seat}:m")
        events = state.apply(deal_of("4c 5o 6e | 4o 5c 6b"))
        dealt = events[0]
        assert isinstance(dealt, HandDealt)
        manos.append(dealt.mano)
        assert dealt.dealer == (dealt.mano - 1) % 2
    assert manos == [0, 1, 0, 1]


def test_r3_mano_moves_one_seat_each_hand_in_2v2() -> None:
    state = start("4c 5o 6e | 4o 5c 6b | 4e 5e 7c | 4b 5b 6c", NO_HOUSE)
    manos = []
    for _ in range(5):
        manos.append(state.hand.mano)  # type: ignore[union-attr]
        do(state, f"{state.hand.turn}:m")  # type: ignore[union-attr]
        state.apply(deal_of("4c 5o 6e | 4o 5c 6b | 4e 5e 7c | 4b 5b 6c"))
    assert manos == [0, 1, 2, 3, 0]


def test_r4_2v2_partners_opposite_and_seat_order() -> None:
    state = start("4c 5o 6e | 4o 5c 6b | 4e 5e 7c | 4b 5b 6c")
    turns = []
    for code in ("0:p:4c", "1:p:4o", "2:p:4e"):
        do(state, code)
        turns.append(state.hand.turn)  # type: ignore[union-attr]
    assert turns == [1, 2, 3]
    assert codes(state, 3) >= {"3:p:4b"} and not codes(state, 0) and not codes(state, 2)


# -- R5-R8: rounds and pardas -----------------------------------------------------------------
def test_r5_mano_leads_and_out_of_turn_is_refused() -> None:
    state = start("4c 5o 6e | 4o 5c 6b")
    assert state.hand.turn == 0  # type: ignore[union-attr]
    assert refused(state, "1:p:4o") is Reason.NOT_YOUR_TURN
    assert refused(state, "0:p:7e") is Reason.CARD_NOT_IN_HAND


def test_r6_highest_card_wins_and_equal_tops_of_opposing_sides_are_parda() -> None:
    state = start("1e 4c 5o | 7o 4o 5c")
    events = do(state, "0:p:4c", "1:p:7o")
    assert RoundWon(0, 1, 1) in events
    state = start("3e 4c 5o | 3o 4o 5c")
    events = do(state, "0:p:3e", "1:p:3o")
    assert RoundWon(0, None, None) in events


def test_r6_2v2_top_cards_of_one_side_win_for_it() -> None:
    state = start("3e 4c 5o | 2o 4o 5c | 3c 6e 7c | 2c 6b 5b")
    events = do(state, "0:p:3e", "1:p:2o", "2:p:3c", "3:p:2c")
    assert RoundWon(0, 0, 0) in events


def test_r7_winner_leads_parda_keeps_leader_and_first_partner_at_top_leads() -> None:
    state = start("4c 1e 5o | 3o 4o 5c")
    do(state, "0:p:4c", "1:p:3o")
    assert state.hand.turn == 1  # type: ignore[union-attr]
    state = start("3e 4c 5o | 3o 4o 5c")
    do(state, "0:p:3e", "1:p:3o")
    assert state.hand.turn == 0  # type: ignore[union-attr]
    state = start("4c 1e 5o | 3o 4o 5c | 6e 7c 6o | 3c 6b 5b")
    events = do(state, "0:p:4c", "1:p:3o", "2:p:6e", "3:p:3c")
    assert RoundWon(0, 1, 1) in events
    assert state.hand.turn == 1  # type: ignore[union-attr]


# Round outcomes for R8: (seat 0's card, seat 1's card) for a win of A (seat 0), of B, or parda.
_PAIRS = {
    "A": [("1e", "4c"), ("1b", "4o"), ("7e", "4e")],
    "B": [("5c", "2e"), ("5o", "2o"), ("5e", "2c")],
    "P": [("3e", "3o"), ("3c", "3b"), ("12e", "12o")],
}


def _play_rounds(pattern: str) -> tuple[list[object], int]:
    picked = [_PAIRS[r][i] for i, r in enumerate(pattern)]
    filler = ["6o", "6c", "6e"][len(pattern) :], ["7c", "7b", "10c"][len(pattern) :]
    mine = [a for a, _ in picked] + list(filler[0])
    yours = [b for _, b in picked] + list(filler[1])
    state = start(" ".join(mine) + " | " + " ".join(yours), SIN_FLOR)
    events: list[object] = []
    for a, b in picked:
        first = state.hand.turn  # type: ignore[union-attr]
        order = [f"0:p:{a}", f"1:p:{b}"] if first == 0 else [f"1:p:{b}", f"0:p:{a}"]
        events += do(state, *order)
    return events, len(state.hand.results)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("pattern", "winner", "rounds"),
    [
        ("AA", 0, 2), ("ABA", 0, 3), ("ABB", 1, 3), ("PA", 0, 2), ("AP", 0, 2), ("ABP", 0, 3),
        ("PPA", 0, 3), ("PPP", 0, 3), ("PB", 1, 2), ("BP", 1, 2), ("BAP", 1, 3), ("PPB", 1, 3),
        ("BB", 1, 2), ("BAA", 0, 3),
    ],
)  # fmt: skip
def test_r8_hand_winner_with_pardas(pattern: str, winner: int, rounds: int) -> None:
    events, played = _play_rounds(pattern)
    end = hand_end(events)
    assert end.winner == winner and end.reason is HandEnd.ROUNDS
    assert played == rounds


# -- R9-R13: truco -----------------------------------------------------------------------------
def _win_rounds(state: object) -> list[object]:
    return do(state, "0:p:1e", "1:p:4o", "0:p:1b", "1:p:5c")  # type: ignore[arg-type]


TRUCO_HANDS = "1e 1b 6e | 4o 5c 6b"


@pytest.mark.parametrize(
    ("chants", "points"),
    [
        ((), 1),
        (("0:t", "1:q"), 2),
        (("0:t", "1:rt", "0:q"), 3),
        (("0:t", "1:rt", "0:v4", "1:q"), 4),
    ],
)
def test_r9_truco_wanted_values(chants: tuple[str, ...], points: int) -> None:
    state = start(TRUCO_HANDS)
    do(state, *chants)
    # After the answers seat 0 still plays first (R13), and wins both rounds.
    assert hand_end(_win_rounds(state)).points == points
    assert state.scores == [points, 0]


@pytest.mark.parametrize(
    ("chants", "winner", "points"),
    [
        (("0:t", "1:nq"), 0, 1),
        (("0:t", "1:rt", "0:nq"), 1, 2),
        (("0:t", "1:rt", "0:v4", "1:nq"), 0, 3),
    ],
)
def test_r9_r12_truco_not_wanted_values_end_the_hand_at_once(
    chants: tuple[str, ...], winner: int, points: int
) -> None:
    state = start(TRUCO_HANDS)
    end = hand_end(do(state, *chants))
    assert (end.winner, end.points, end.reason) == (winner, points, HandEnd.NO_QUIERO)
    assert state.scores[winner] == points and state.phase is Phase.DEAL


def test_r10_truco_before_the_card_and_the_first_answer_counts_in_2v2() -> None:
    state = start("1e 4c 5o | 3o 4o 5c | 6e 7c 6o | 3c 6b 5b")
    assert "0:t" in codes(state, 0)
    do(state, "0:t")
    assert refused(state, "0:p:1e") is Reason.WAIT_FOR_ANSWER
    assert {"1:q", "3:q"} <= codes(state)
    do(state, "3:q")
    assert refused(state, "1:q") is Reason.NOTHING_TO_ANSWER
    assert state.hand.truco_level == 1 and state.hand.turn == 0  # type: ignore[union-attr]


def test_r11_only_the_side_that_said_quiero_last_raises_and_only_on_its_turn() -> None:
    state = start(TRUCO_HANDS)
    do(state, "0:t")
    assert codes(state, 0) == set()  # nobody raises their own chant
    do(state, "1:q")
    assert "0:rt" not in codes(state, 0)
    assert refused(state, "0:rt") is Reason.TRUCO_NOT_YOURS
    assert refused(state, "1:rt") is Reason.NOT_YOUR_TURN
    do(state, "0:p:1e")
    assert "1:rt" in codes(state, 1)
    do(state, "1:rt", "0:q", "1:p:4o")
    assert "0:v4" in codes(state, 0)


def test_r13_after_an_answer_play_goes_on_with_whoever_was_to_play() -> None:
    state = start(TRUCO_HANDS)
    do(state, "0:p:6e", "1:t", "0:q")
    assert state.hand.turn == 1  # type: ignore[union-attr]
    assert "1:p:4o" in codes(state, 1)


# -- R14-R19: envido ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hand", "value"),
    [("7c 6c 3e", 33), ("12c 11c 1e", 20), ("1e 2o 3c", 3), ("12e 11o 10c", 0),
     ("7c 6c 5c", 33), ("12c 5c 4c", 29), ("7e 12o 5b", 7), ("10e 4e 7o", 24)],
)  # fmt: skip
def test_r14_envido_values(hand: str, value: int) -> None:
    assert envido_value(cards(hand)) == value


def test_r15_envido_only_in_round_one_by_a_seat_that_has_not_played() -> None:
    state = start("4c 5o 6e | 4o 5c 6b")
    do(state, "0:p:4c")
    assert "0:e" not in codes(state) and "1:e" in codes(state, 1)
    do(state, "1:p:4o")  # parda? 4 against 4: parda, seat 0 leads round 2
    assert not {c for c in codes(state) if c.endswith(":e")}


def test_r15_envido_once_per_hand_and_closed_by_a_wanted_truco() -> None:
    state = start("4c 5o 6e | 4o 5c 6b")
    do(state, "0:e", "1:q")
    assert refused(state, "0:e") is Reason.ENVIDO_CLOSED
    state = start("4c 5o 6e | 4o 5c 6b")
    do(state, "0:t", "1:q")
    assert refused(state, "0:e") is Reason.ENVIDO_CLOSED


ENVIDO_CHAINS = [
    (("0:e",), 2, 1),
    (("0:re",), 3, 1),
    (("0:e", "1:e"), 4, 2),
    (("0:e", "1:re"), 5, 2),
    (("0:e", "1:e", "0:re"), 7, 4),
    (("0:fe",), "falta", 1),
    (("0:e", "1:fe"), "falta", 2),
    (("0:re", "1:fe"), "falta", 3),
    (("0:e", "1:e", "0:fe"), "falta", 4),
    (("0:e", "1:re", "0:fe"), "falta", 5),
    (("0:e", "1:e", "0:re", "1:fe"), "falta", 7),
]


@pytest.mark.parametrize(("chain", "wanted", "not_wanted"), ENVIDO_CHAINS)
def test_r16_envido_chain_values(
    chain: tuple[str, ...], wanted: int | str, not_wanted: int
) -> None:
    hands = "7c 6c 4e | 4o 5b 12e"  # seat 0: 33, seat 1: 5
    scores = (10, 4)
    state = start(hands, scores=scores)
    do(state, *chain)
    last_side = int(chain[-1][0])
    answerer = 1 - last_side
    events = do(state, f"{answerer}:q")
    resolved = next(e for e in events if isinstance(e, EnvidoResolved))
    expected = 20 if wanted == "falta" else wanted  # 30 - 10
    assert (resolved.wanted, resolved.winner, resolved.points) == (True, 0, expected)
    state = start(hands, scores=scores)
    do(state, *chain)
    events = do(state, f"{answerer}:nq")
    resolved = next(e for e in events if isinstance(e, EnvidoResolved))
    assert (resolved.wanted, resolved.winner, resolved.points) == (False, last_side, not_wanted)
    assert state.scores[last_side] == scores[last_side] + not_wanted


def test_r16_allowed_envido_raises() -> None:
    raises = {":e", ":re", ":fe"}

    def open_raises(chain: tuple[str, ...]) -> set[str]:
        state = start("7c 6c 4e | 4o 5b 12e")
        do(state, *chain)
        seat = 1 - int(chain[-1][0])
        return {c[1:] for c in codes(state, seat)} & raises

    assert open_raises(("0:e",)) == {":e", ":re", ":fe"}
    assert open_raises(("0:e", "1:e")) == {":re", ":fe"}
    assert open_raises(("0:re",)) == {":fe"}
    assert open_raises(("0:e", "1:re")) == {":fe"}
    assert open_raises(("0:e", "1:e", "0:re")) == {":fe"}
    assert open_raises(("0:fe",)) == set()


def test_r17_el_envido_esta_primero() -> None:
    state = start("7c 6c 4e | 4o 5b 12e")
    do(state, "0:t")
    assert {"1:e", "1:re", "1:fe"} <= codes(state, 1)
    events = do(state, "1:e")
    assert refused(state, "1:q") is Reason.WAIT_FOR_ANSWER
    events = do(state, "0:q")
    assert any(isinstance(e, EnvidoResolved) for e in events)
    assert state.scores == [2, 0]
    assert codes(state, 1) == {"1:q", "1:nq", "1:rt", "1:m"}  # the truco still waits
    do(state, "1:q")
    assert state.hand.truco_level == 1  # type: ignore[union-attr]


def test_r18_falta_envido_is_what_the_leader_lacks() -> None:
    state = start("7c 6c 4e | 4o 5b 12e")
    events = do(state, "0:fe", "1:q")
    assert any(isinstance(e, MatchEnded) for e in events) and state.scores == [30, 0]
    state = start("4o 5b 12e | 7c 6c 4e", scores=(20, 8))
    do(state, "0:fe", "1:q")
    assert state.scores == [20, 18]
    state = start("4o 5b 12e | 7c 6c 4e", MatchConfig(target=15), scores=(3, 9))
    do(state, "0:fe", "1:q")
    assert state.scores == [3, 15] and state.winner == 1


def test_r19_higher_envido_wins_ties_go_to_the_mano_and_values_are_announced() -> None:
    state = start("7c 4c 1e | 6o 5o 12e")  # 31 against 31
    events = do(state, "0:e", "1:q")
    resolved = next(e for e in events if isinstance(e, EnvidoResolved))
    # an equal value does not beat the mano's: "son buenas"
    assert resolved.winner == 0 and [(w.seat, w.value) for w in resolved.values] == [
        (0, 31),
        (1, None),
    ]
    state = start("4o 5b 12e | 7c 6c 4e")
    events = do(state, "0:e", "1:q")
    resolved = next(e for e in events if isinstance(e, EnvidoResolved))
    assert resolved.winner == 1 and resolved.points == 2
    assert [(w.seat, w.value) for w in resolved.values] == [(0, 5), (1, 33)]
    end = hand_end(do(state, "0:m"))
    assert (1, cards("7c 6c")) in end.shown


def test_r19_2v2_best_envido_of_each_side_ties_to_the_seat_nearer_the_mano() -> None:
    #          seat 0: 5    seat 1: 30     seat 2: 30      seat 3: 1
    state = start("5o 12e 4b | 7c 3c 12o | 6e 4e 10b | 1b 10o 11c")
    events = do(state, "0:e", "1:q")
    resolved = next(e for e in events if isinstance(e, EnvidoResolved))
    assert resolved.winner == 1
    # seat 0 says 5; seat 1 says 30; seat 2's 30 is not nearer the mano: "son buenas"; seat 3
    # waits with its side ahead, and never says its 1
    assert [(w.seat, w.value) for w in resolved.values] == [(0, 5), (1, 30), (2, None)]
    assert state.hand is not None and state.hand.announced == [(0, 5), (1, 30)]


def test_r19_the_worked_example_values_are_said_in_turn_going_round_again() -> None:
    # seat 0 (mano) 25, seat 1 20, seat 2 31, seat 3 30: 25; son buenas; 2 waits; 30; 31
    state = start("5o 12o 4b | 12c 11c 1o | 7e 4e 10b | 7b 3b 11o")
    events = do(state, "0:e", "1:q")
    resolved = next(e for e in events if isinstance(e, EnvidoResolved))
    assert [(w.seat, w.value) for w in resolved.values] == [(0, 25), (1, None), (3, 30), (2, 31)]
    assert resolved.winner == 0
    h = state.hand
    assert h is not None and h.announced == [(0, 25), (3, 30), (2, 31)]
    assert h.son_buenas == [(1, 25, True)]  # seat 1's value is at most 25: that is all we learn
    end = hand_end(do(state, "0:m"))
    assert (2, cards("7e 4e")) in end.shown  # the cards of the value that won are shown


def test_r19_a_side_ahead_waits_and_a_later_seat_may_not_tie_the_mano() -> None:
    # 1v1, mano 27 and the other 27: the other is not nearer the mano, so "son buenas"
    state = start("7c 12c 1e | 7o 12o 1b", MatchConfig(players=2))
    do(state, "0:e", "1:q")
    assert state.hand is not None and state.hand.announced == [(0, 27)]
    assert state.hand.son_buenas == [(1, 27, True)]
    # 2v2: seat 0 says 3; seat 1 says 28; seat 2 says 33; seat 3's 6 does not beat it
    state = start("1e 2o 3b | 7c 1c 4e | 7b 6b 10c | 4o 5c 6e")
    events = do(state, "0:e", "1:q")
    resolved = next(e for e in events if isinstance(e, EnvidoResolved))
    assert [(w.seat, w.value) for w in resolved.values] == [(0, 3), (1, 28), (2, 33), (3, None)]
    assert state.hand is not None and state.hand.son_buenas == [(3, 33, True)]


@pytest.mark.parametrize("players", [2, 4])
def test_r19_the_side_said_best_is_the_side_with_the_best_envido(players: int) -> None:
    rng = random.Random(19)
    for _ in range(400):
        state = new_match(MatchConfig(players=players, flor=False))
        state.apply(random_deal(rng, players))
        events = do(state, "0:e", "1:q")
        resolved = next(e for e in events if isinstance(e, EnvidoResolved))
        h = state.hand
        assert h is not None
        values = [envido_value(hand) for hand in h.dealt]
        best = h.best(list(range(players)), values)
        assert best is not None and resolved.winner == best[0] % 2
        said = [w for w in resolved.values if w.value is not None]
        assert all(values[w.seat] == w.value for w in said)  # nobody lies
        assert [b.value for b in said] == sorted(b.value for b in said)  # each one beats the last
        assert len(resolved.values) <= players and said[0].seat == h.mano


# -- R20-R22: flor -----------------------------------------------------------------------------
def test_r20_flor_value() -> None:
    assert has_flor(cards("7c 6c 5c")) and flor_value(cards("7c 6c 5c")) == 38
    assert flor_value(cards("12o 11o 10o")) == 20 and flor_value(cards("1e 12e 3e")) == 24
    assert not has_flor(cards("7c 6c 5o"))


def test_r21_flor_must_be_declared_before_the_first_card_and_never_with_envido() -> None:
    state = start("7c 6c 5c | 4o 5b 12e")
    assert codes(state) == {"0:f"}
    assert refused(state, "0:p:7c") is Reason.MUST_DECLARE_FLOR
    assert refused(state, "0:e") is Reason.MUST_DECLARE_FLOR
    events = do(state, "0:f")
    assert Scored(0, 3, ScoreReason.FLOR, 3) in events
    assert "0:e" not in codes(state) and "0:p:7c" in codes(state)


def test_r21_flor_answers_the_envido_and_annuls_it() -> None:
    state = start("4o 5b 12e | 7c 6c 5c")
    do(state, "0:e")
    assert codes(state) == {"1:f"}
    events = do(state, "1:f")
    assert any(isinstance(e, EnvidoAnnulled) for e in events)
    assert state.scores == [0, 3]
    assert not any(isinstance(e, EnvidoResolved) for e in events)
    assert state.hand.pending() is None  # type: ignore[union-attr]


def test_r21_flor_in_answer_to_a_truco() -> None:
    state = start("4o 5b 12e | 7c 6c 5c")
    do(state, "0:t")
    assert codes(state) == {"1:f"}
    do(state, "1:f")
    assert state.scores == [0, 3]
    assert codes(state, 1) == {"1:q", "1:nq", "1:rt", "1:m"}  # flor closes envido


FLOR_A = "7c 6c 5c"  # 38
FLOR_B = "1o 2o 3o"  # 26


@pytest.mark.parametrize(
    ("script", "side", "points"),
    [
        (("0:f", "1:f"), 0, 6),
        (("0:f", "1:ach"), 0, 4),
        (("0:f", "1:cf", "0:q"), 0, 6),
        (("0:f", "1:cf", "0:ach"), 1, 4),
        (("0:f", "1:cfr", "0:nq"), 1, 4),
        (("0:f", "1:cf", "0:cfr", "1:nq"), 0, 6),
        (("0:f", "1:cf", "0:cfr", "1:q"), 0, 6 + 20),
        (("0:f", "1:cfr", "0:q"), 0, 6 + 20),
    ],
)
def test_r22_flor_scoring_table(script: tuple[str, ...], side: int, points: int) -> None:
    state = start(f"{FLOR_A} | {FLOR_B}", scores=(10, 2))
    events = do(state, *script)
    resolved = next(e for e in events if isinstance(e, FlorResolved))
    assert (resolved.winner, resolved.points) == (side, points)
    assert state.scores[side] == (10, 2)[side] + points


def test_r22_only_one_side_with_flor_scores_3_per_flor_declared() -> None:
    state = start(f"{FLOR_A} | 4o 5b 12e | {FLOR_B} | 4e 5e 6o")
    do(state, "0:f")
    assert state.scores == [3, 0]
    do(state, "0:p:7c", "1:p:4o")
    assert codes(state) == {"2:f"}
    do(state, "2:f")
    assert state.scores == [6, 0]


def test_r22_equal_flores_go_to_the_side_nearer_the_mano() -> None:
    state = start("7c 6c 4c | 7o 6o 4o")
    events = do(state, "0:f", "1:f")
    resolved = next(e for e in events if isinstance(e, FlorResolved))
    assert resolved.winner == 0 and [(w.seat, w.value) for w in resolved.values] == [
        (0, 37),
        (1, None),
    ]


def test_r22_compared_flores_are_said_in_turn_son_buenas_for_one_that_does_not_beat() -> None:
    # 2v2: seats 0, 1 and 3 hold flor (26, 38, 30): 0 says 26, 1 says 38, 3 waits (side ahead)
    state = start("1e 2e 3e | 7c 6c 5c | 4o 5b 12e | 7o 3o 12o", MatchConfig(players=4))
    events = do(state, "0:f", "1:f")
    resolved = next(e for e in events if isinstance(e, FlorResolved))
    assert [(w.seat, w.value) for w in resolved.values] == [(0, 26), (1, 38)]
    assert resolved.winner == 1
    state = start("7e 6e 5e | 1c 2c 3c | 4o 5b 12e | 7o 3o 12o", MatchConfig(players=4))
    events = do(state, "0:f", "1:f")
    resolved = next(e for e in events if isinstance(e, FlorResolved))
    # seat 0 says 38; seat 1's 26 and seat 3's 30 do not beat it
    assert [(w.seat, w.value) for w in resolved.values] == [(0, 38), (1, None), (3, None)]
    assert state.hand is not None and state.hand.announced == [(0, 38)]


# -- R23, R24: irse al mazo ----------------------------------------------------------------------
def test_r23_mazo_gives_the_hand_value_and_keeps_points_won() -> None:
    state = start("7c 6c 4e | 4o 5b 12e", NO_HOUSE)
    end = hand_end(do(state, "0:m"))
    assert (end.winner, end.points, end.reason) == (1, 1, HandEnd.MAZO)
    state = start("7c 6c 4e | 4o 5b 12e")
    do(state, "0:e", "1:q", "0:t", "1:q", "0:p:4e")
    end = hand_end(do(state, "1:m"))
    assert (end.winner, end.points) == (0, 2)
    assert state.scores == [4, 0]


def test_r23_a_truco_waiting_for_the_leavers_answer_counts_as_not_wanted() -> None:
    state = start("7c 6c 4e | 4o 5b 12e")
    do(state, "0:p:4e", "1:p:4o", "0:t")  # parda in round 1: round 2 now
    end = hand_end(do(state, "1:m"))
    assert (end.winner, end.points) == (0, 1)
    state = start("7c 6c 4e | 4o 5b 12e")
    do(state, "0:t", "1:q", "0:p:4e", "1:p:4o", "0:p:7c", "1:rt")
    end = hand_end(do(state, "0:m"))
    assert (end.winner, end.points) == (1, 2)


def test_r23_an_envido_waiting_for_the_leavers_answer_is_scored_first_as_not_wanted() -> None:
    state = start("7c 6c 4e | 4o 5b 12e")
    events = do(state, "0:e", "1:re")
    events = do(state, "0:m")
    scored = [e for e in events if isinstance(e, Scored)]
    assert [(s.side, s.points, s.reason) for s in scored] == [
        (1, 2, ScoreReason.ENVIDO_NOT_WANTED),
        (1, 1, ScoreReason.MAZO),
    ]


def test_r23_2v2_the_whole_side_gives_up() -> None:
    state = start("1e 4c 5o | 3o 4o 5c | 6e 7c 6o | 3c 6b 5b", NO_HOUSE)
    do(state, "0:t")
    end = hand_end(do(state, "3:m"))
    assert (end.winner, end.points) == (0, 1)
    assert state.phase is Phase.DEAL


def test_r24_house_rule_two_points_for_leaving_early() -> None:
    state = start("7c 6c 4e | 4o 5b 12e")
    assert hand_end(do(state, "0:m")).points == 2
    state = start("7c 6c 4e | 4o 5b 12e", NO_HOUSE)
    assert hand_end(do(state, "0:m")).points == 1
    state = start("7c 6c 4e | 4o 5b 12e")
    do(state, "0:e", "1:nq")
    assert hand_end(do(state, "0:m")).points == 1
    state = start("7c 6c 4e | 4o 5b 12e")
    do(state, "0:p:4e", "1:p:5b")
    assert hand_end(do(state, "1:m")).points == 1  # round 1 is over
    state = start("7c 6c 4e | 4o 5b 12e")
    do(state, "0:t", "1:q")
    assert hand_end(do(state, "0:m")).points == 2  # the truco value, not the house rule


# -- R25-R27: the match ----------------------------------------------------------------------------
def test_r25_the_match_ends_the_moment_a_side_reaches_the_target() -> None:
    state = start("7c 6c 4e | 4o 5b 12e", scores=(28, 0))
    events = do(state, "0:e", "1:q")
    assert events[-1] == MatchEnded(0, (30, 0))
    assert hand_end(events).reason is HandEnd.MATCH_OVER
    assert state.is_over and state.legal_actions() == []
    assert refused(state, "0:p:7c") is Reason.MATCH_OVER


def test_r25_match_to_15() -> None:
    state = start("1e 1b 6e | 4o 5c 6b", MatchConfig(target=15), scores=(14, 0))
    events = _win_rounds(state)
    assert isinstance(events[-1], MatchEnded) and state.winner == 0


def test_r26_malas_and_buenas_are_names_for_the_halves() -> None:
    assert malas_buenas(0, 30) == (0, 0)
    assert malas_buenas(12, 30) == (12, 0)
    assert malas_buenas(15, 30) == (15, 0)
    assert malas_buenas(22, 30) == (15, 7)
    assert malas_buenas(9, 15) is None


def test_r27_fosforos_are_squares_of_five() -> None:
    assert fosforos(0) == (0, 0)
    assert fosforos(4) == (0, 4)
    assert fosforos(5) == (1, 0)
    assert fosforos(23) == (4, 3)


# -- F1-F10: the fine points -------------------------------------------------------------
def test_f1_seat_0_is_mano_of_hand_one() -> None:
    state = start("4c 5o 6e | 4o 5c 6b | 4e 5e 7c | 4b 5b 6c")
    assert (state.hand.dealer, state.hand.mano) == (3, 0)  # type: ignore[union-attr]


def test_f2_raise_at_once_on_the_same_turn_and_no_truco_in_answer_to_envido() -> None:
    state = start(TRUCO_HANDS)
    do(state, "0:t", "1:rt", "0:q")
    assert "0:v4" in codes(state, 0)
    state = start(TRUCO_HANDS)
    do(state, "0:e")
    assert "1:t" not in codes(state, 1)


def test_f3_any_seat_of_the_answering_side_answers_an_envido_even_after_playing() -> None:
    state = start("1e 4c 5o | 3o 4o 5c | 6e 7c 6o | 3c 6b 5b")
    do(state, "0:p:4c", "1:e")
    assert {"0:re", "2:re", "0:q", "2:q"} <= codes(state)
    do(state, "0:re")
    assert {"1:q", "3:q", "1:fe"} <= codes(state)


def test_f4_envido_only_over_the_first_truco_and_mazo_owing_it_is_not_wanted() -> None:
    state = start(TRUCO_HANDS)
    do(state, "0:t", "1:q", "0:p:6e")
    do(state, "1:rt")
    assert "0:e" not in codes(state, 0)
    state = start("7c 6c 4e | 4o 5b 12e")
    do(state, "0:t", "1:e")
    events = do(state, "0:m")
    assert [(e.side, e.points) for e in events if isinstance(e, Scored)] == [(1, 1), (1, 1)]


def test_f5_envido_counts_cards_already_played() -> None:
    state = start("7c 6c 4e | 4o 5b 12e")
    do(state, "0:p:7c", "1:e", "0:q")
    assert state.scores == [2, 0]


def test_f6_every_undeclared_flor_goes_first_while_an_envido_waits() -> None:
    # Seat 2 (partner of the chanter) holds flor: it must be declared before seat 1 answers.
    state = start("4o 5b 12e | 3o 4c 6b | 7c 6c 5c | 1e 2b 10o")
    do(state, "0:e")
    assert codes(state) == {"2:f"}
    assert refused(state, "1:q") is Reason.FLOR_FIRST
    events = do(state, "2:f")
    assert any(isinstance(e, EnvidoAnnulled) for e in events) and state.scores == [3, 0]
    assert "1:e" not in codes(state)


def test_f6_binds_the_holder_only_its_partner_may_answer_a_truco() -> None:
    # Seat 1 holds flor, seat 3 (its partner) does not: seat 0 chants truco. Seat 1 may only
    # declare; seat 3 may answer at once (a block on it would tell everyone about the flor).
    state = start("4o 5b 12e | 7c 6c 5c | 3o 4c 6b | 1e 2b 10o")
    do(state, "0:t")
    assert {c for c in codes(state) if c.startswith("1:")} == {"1:f"}
    assert {"3:q", "3:nq", "3:rt", "3:m"} <= codes(state)
    do(state, "3:q")
    assert state.hand is not None and state.hand.truco_level == 1
    do(state, "0:p:4o")
    assert codes(state) == {"1:f"}  # its turn comes: it declares first


def test_f6_a_flor_goes_undeclared_if_the_hand_ends_before_its_holder_acts() -> None:
    state = start("4o 5b 12e | 7c 6c 5c")
    do(state, "0:m")
    assert state.scores == [0, 2]  # the house rule, and no flor points


def test_f7_no_mazo_while_a_flor_waits_and_the_resto_uses_scores_when_answered() -> None:
    state = start(f"{FLOR_A} | 4o 5b 12e | {FLOR_B} | 4e 5e 6o", scores=(7, 12))
    do(state, "0:f")
    assert state.scores == [10, 12]
    state = start(f"{FLOR_A} | {FLOR_B}")
    do(state, "0:f")
    assert all(not c.endswith(":m") for c in codes(state))
    state = start(f"{FLOR_A} | {FLOR_B}", scores=(7, 12))
    events = do(state, "0:f", "1:cfr", "0:q")
    assert Scored(0, 6 + 18, ScoreReason.FLOR_CONTEST, 31) in events


def test_f8_mazo_is_for_the_seat_in_turn_or_any_seat_that_must_answer() -> None:
    state = start("1e 4c 5o | 3o 4o 5c | 6e 7c 6o | 3c 6b 5b")
    assert {c for c in codes(state) if c.endswith(":m")} == {"0:m"}
    assert refused(state, "2:m") is Reason.NOT_YOUR_TURN
    do(state, "0:t")
    assert {c for c in codes(state) if c.endswith(":m")} == {"1:m", "3:m"}


def test_f9_leaving_with_the_first_truco_waiting_gives_two() -> None:
    state = start("7c 6c 4e | 4o 5b 12e")
    do(state, "0:t")
    assert hand_end(do(state, "1:m")).points == 2
    state = start("4o 5b 12e | 7c 6c 5c")
    do(state, "0:e", "1:f")  # annulled envido still counts as chanted
    assert hand_end(do(state, "0:m")).points == 1


def test_f10_scoring_stops_at_the_target_and_is_not_capped() -> None:
    state = start("4o 5b 12e | 7c 6c 4e", scores=(0, 29))
    do(state, "0:p:4o", "1:re")
    events = do(state, "0:m")  # the real envido counts as not wanted: 1 point, and 30
    scored = [e for e in events if isinstance(e, Scored)]
    assert [(s.side, s.points) for s in scored] == [(1, 1)]  # the hand points never added
    assert state.scores == [0, 30] and state.is_over
    state = start(f"{FLOR_A} | 4o 5b 12e", scores=(28, 0))
    do(state, "0:f")
    assert state.scores == [31, 0] and state.winner == 0
