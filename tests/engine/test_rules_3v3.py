"""The table of six in the engine: a test per rule of RULES.md's 3v3 (R28-R45) and its fine
points (F11-F17; F18, the señas, in tests/e2e/test_table.py; R45 at a real table in
tests/e2e/test_bots.py), the worked examples exactly, and random playouts of six (con and sin
flor, to 15 and 30, pica-pica on and off) with JSON round trips and replays."""

from __future__ import annotations

import json
import random

import pytest

from bot.game import MatchConfig, MatchState, Reason, envido_value, new_match, random_deal
from bot.game.events import DuelStarted, EnvidoResolved, HandDealt, HandEnded, RoundWon, Scored
from bot.game.fair import fair_deal
from bot.game.observation import observe
from bot.game.record import hands_of, replay_hand
from bot.game.seats import seats
from bot.storage.snapshots import from_json, to_json
from tests.engine.helpers import codes, deal_of, do, start
from tests.engine.test_rules import hand_end, refused

SIX = MatchConfig(players=6)
SIX_SIN = MatchConfig(players=6, flor=False)


def test_r28_six_seats_alternate_sides_and_each_faces_a_rival() -> None:
    table = seats(6)
    assert [table.side(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]
    assert table.of_side(0) == (0, 2, 4) and table.of_side(1) == (1, 3, 5)
    for s in range(6):
        assert table.opposite(s) == (s + 3) % 6 and table.side(table.opposite(s)) != table.side(s)
        assert set(table.partners(s)) == {p for p in range(6) if p % 2 == s % 2 and p != s}
    state = start("4c 5o 6e | 4o 5c 6b | 4e 5e 7c | 4b 5b 6c | 7o 10c 11e | 7b 10b 12o", SIX_SIN)
    turns = []
    for seat, card in enumerate(("4c", "4o", "4e", "4b", "7o", "7b")[:5]):
        do(state, f"{seat}:p:{card}")
        turns.append(state.hand.turn)  # type: ignore[union-attr]
    assert turns == [1, 2, 3, 4, 5]  # seat after seat, as in R4


def test_r29_eighteen_cards_dealt_and_the_mano_moves_one_seat_each_hand() -> None:
    # (pica-pica on: a pica-pica hand is one deal and counts as one hand)
    state = new_match(MatchConfig(players=6, flor=False))
    assert state.dealer == 5  # F1: the first dealer is seat 5
    manos: list[int] = []
    duels = 0
    while state.hand_number < 9 and not state.is_over:
        if state.needs_deal:
            events = state.apply(fair_deal("r29", state.hand_number + 1, 6))
            manos.append(next(e.mano for e in events if isinstance(e, HandDealt)))
            h = state.hand
            assert h is not None
            dealt = [c for hand in h.dealt for c in hand]
            assert len(dealt) == 18 == len(set(dealt))
        else:  # whoever must act gives the hand (or the duel) up
            events = do(state, f"{state.acting_seats()[0]}:m")
        duels += sum(isinstance(e, DuelStarted) for e in events)
    assert manos == [(n - 1) % 6 for n in range(1, len(manos) + 1)]
    assert duels > 0


@pytest.mark.parametrize(
    ("plays", "winner", "leads"),
    [
        # R30's examples, seat 0 leading, seat:card
        (("3c", "3o", "7e", "4b", "5o", "6b"), 0, 2),
        (("3c", "2o", "3e", "4b", "5o", "12b"), 0, 0),
        (("3c", "3o", "3e", "4b", "5o", "6b"), None, 0),
    ],
)
def test_r30_the_redondos_rounds_and_who_leads_next(
    plays: tuple[str, ...], winner: int | None, leads: int
) -> None:
    others = ("10c 11c", "10o 11o", "10e 11e", "10b 11b", "1c 12c", "1o 12e")
    hands = " | ".join(f"{card} {rest}" for card, rest in zip(plays, others, strict=True))
    state = start(hands, SIX_SIN)
    events = do(state, *(f"{s}:p:{c}" for s, c in enumerate(plays)))
    won = next(e for e in events if isinstance(e, RoundWon))
    assert won.side == winner
    assert state.hand is not None and state.hand.turn == leads


def test_f12_a_parda_needs_the_top_strength_on_both_sides_by_r2_equality() -> None:
    # 1 copa and 1 oro are equal (R2): side 0's 1c and side 1's 1o make the round parda
    state = start("1c 4c 5c | 4o 1o 5o | 6e 4e 5e | 6b 4b 5b | 7c 10c 11c | 7b 10o 12o", SIX_SIN)
    events = do(state, "0:p:1c", "1:p:1o", "2:p:6e", "3:p:6b", "4:p:7c", "5:p:7b")
    assert next(e for e in events if isinstance(e, RoundWon)).side is None
    # the top strength on one side only, however many of that side hold it: that side wins
    state = start("1c 4c 5c | 4o 2o 5o | 6e 4e 5e | 6b 4b 5b | 1o 10c 11c | 7b 10o 12o", SIX_SIN)
    events = do(state, "0:p:1c", "1:p:4o", "2:p:6e", "3:p:6b", "4:p:1o", "5:p:7b")
    won = next(e for e in events if isinstance(e, RoundWon))
    assert won.side == 0 and state.hand is not None and state.hand.turn == 0  # its first at top


def test_r31_any_seat_of_the_answering_side_answers_a_truco_and_the_first_answer_counts() -> None:
    state = start("4c 5o 6e | 4o 5c 6b | 4e 5e 7c | 4b 5b 6c | 7o 10c 11e | 7b 10b 12o", SIX_SIN)
    do(state, "0:t")
    for seat in (1, 3, 5):  # any seat of side 1 may answer, in or out of turn
        assert {f"{seat}:q", f"{seat}:nq", f"{seat}:rt", f"{seat}:m"} <= codes(state, seat)
    assert not codes(state, 2) and not codes(state, 4)  # the chanter's partners wait
    do(state, "5:q")
    assert state.hand is not None and state.hand.hand_value() == 2
    assert refused(state, "3:q") is not None  # the first answer counted
    # the side that said quiero last raises on a later turn of any of its players
    do(state, "0:p:4c")
    assert "1:rt" in codes(state, 1)


def test_r32_each_sides_envido_is_the_best_of_its_three_and_ties_go_nearer_the_mano() -> None:
    # envidos: 0:25 1:27 2:31 3:20 4:30 5:31 (R33's example)
    hands = "5o 12o 4b | 7c 12c 1b | 7e 4e 10b | 11o 10o 6b | 7b 3b 1o | 6c 5c 2e"
    state = start(hands, SIX_SIN)
    h = state.hand
    assert h is not None
    assert [envido_value(d) for d in h.dealt] == [25, 27, 31, 20, 30, 31]
    events = do(state, "0:e", "5:q")  # F3: any seat of the answering side answers
    resolved = next(e for e in events if isinstance(e, EnvidoResolved))
    assert resolved.winner == 0  # 31 against 31: seat 2 is nearer the mano than seat 5
    # R33: seat 0 says 25; seat 1 says 27; seat 2 says 31; seat 3 son buenas; seat 4 waits (its
    # side leads); seat 5 son buenas. Seat 4 never speaks.
    assert [(w.seat, w.value) for w in resolved.values] == [
        (0, 25),
        (1, 27),
        (2, 31),
        (3, None),
        (5, None),
    ]
    assert h.announced == [(0, 25), (1, 27), (2, 31)]


def test_r32_an_envido_is_started_by_a_seat_of_round_one_that_has_not_played() -> None:
    state = start("4c 5o 6e | 4o 5c 6b | 4e 5e 7c | 4b 5b 6c | 7o 10c 11e | 7b 10b 12o", SIX_SIN)
    do(state, "0:p:4c", "1:p:4o")
    assert "2:e" in codes(state, 2)  # on its turn, not played yet
    do(state, "2:p:4e", "3:p:4b", "4:p:7o", "5:p:7b")
    assert not any(c.endswith(":e") for c in codes(state))  # round 1 is over


def test_r34_one_side_alone_with_flor_scores_3_for_each_flor_declared() -> None:
    # seats 0, 2 and 4 have flor (copas, espadas, oros); side 1 has none: three flores make 9 (F7)
    state = start("4c 5c 6c | 4o 5e 6b | 1e 2e 7e | 4b 5b 6o | 7o 10o 11o | 7b 10b 12c", SIX)
    events = []
    declared = []
    while state.hand is not None and state.hand.number == 1 and len(declared) < 3:
        legal = sorted(codes(state))
        flor = next((c for c in legal if c.endswith(":f")), None)
        if flor is not None:
            declared.append(int(flor.split(":")[0]))
        events += do(state, flor or next(c for c in legal if ":p:" in c))
    assert declared == [0, 2, 4]
    flor_points = [e.points for e in events if isinstance(e, Scored) and e.reason == "flor"]
    assert sum(flor_points) == 9 and all(e.side == 0 for e in events if isinstance(e, Scored))


def test_r35_one_seat_gives_up_the_hand_for_its_whole_side() -> None:
    for house, points in ((False, 1), (True, 2)):  # R23: the hand's value; R24: 2 in round 1
        config = MatchConfig(players=6, flor=False, house_rule=house)
        state = start("4c 5o 6e | 4o 5c 6b | 4e 5e 7c | 4b 5b 6c | 7o 10c 11e | 7b 10b 12o", config)
        do(state, "0:p:4c")
        end = hand_end(do(state, "1:m"))  # seat 1 leaves: side 1 (seats 1, 3, 5) gives it up
        assert end.winner == 0 and state.scores == [points, 0]
        assert not codes(state)  # nobody of either side plays on: the next deal is due


def test_f11_the_redondo_order_from_the_mano_and_the_dealer_plays_last() -> None:
    state = start("4c 5o 6e | 4o 5c 6b | 4e 5e 7c | 4b 5b 6c | 7o 10c 11e | 7b 10b 12o", SIX_SIN)
    order = []
    for seat, card in enumerate(("4c", "4o", "4e", "4b", "7o", "7b")):
        order.append(state.hand.turn)  # type: ignore[union-attr]
        do(state, f"{seat}:p:{card}")
    assert order == [0, 1, 2, 3, 4, 5]  # the dealer (seat 5) plays last of all
    assert state.dealer == 5


def test_f13_the_mazo_is_for_the_seat_in_turn_or_a_seat_that_owes_an_answer() -> None:
    state = start("4c 5o 6e | 4o 5c 6b | 4e 5e 7c | 4b 5b 6c | 7o 10c 11e | 7b 10b 12o", SIX_SIN)
    assert "0:m" in codes(state, 0)
    assert refused(state, "2:m") is Reason.NOT_YOUR_TURN  # never a partner out of turn
    do(state, "0:t")
    for seat in (1, 3, 5):  # the side that owes the answer: any of its seats
        assert f"{seat}:m" in codes(state, seat)
    assert "2:m" not in codes(state, 2)


@pytest.mark.parametrize("pica", [True, False])
@pytest.mark.parametrize("flor", [True, False])
@pytest.mark.parametrize("target", [15, 30])
def test_random_matches_of_six_end_right_and_replay_from_their_logs(
    flor: bool, target: int, pica: bool
) -> None:
    rng = random.Random(target * 4 + flor * 2 + pica)
    config = MatchConfig(players=6, flor=flor, target=target, pica_pica=pica)
    for _ in range(25):
        state = new_match(config)
        log = []
        while not state.is_over:
            legal = state.legal_actions()
            action = random_deal(rng, 6) if not legal else rng.choice(legal)
            log.append(action)
            events = state.apply(action)
            for e in events:
                if isinstance(e, HandEnded):
                    assert e.winner in (0, 1, None)
                if isinstance(e, DuelStarted):
                    assert pica and e.second == (e.first + 3) % 6  # R39: opposite seats
            h = state.hand
            if h is not None and h.duel is not None and not state.is_over:
                # R40: the four seats not in the duel take no part
                assert set(state.acting_seats()) <= {h.mano, (h.mano + 3) % 6}
            assert all(s >= 0 for s in state.scores)
            copy = from_json(MatchState, json.loads(json.dumps(to_json(state))))
            assert copy.scores == state.scores and copy.legal_actions() == state.legal_actions()
            assert copy.recent_hands == state.recent_hands and copy.pica == state.pica
        assert max(state.scores) >= target
        final, hands = hands_of(config, log)
        assert final.scores == state.scores
        assert len({h.log.number for h in hands}) == state.hand_number  # a record a duel
        for record in hands:  # each hand, or duel, replays alone to the scores it ended at
            alone, _ = replay_hand(config, record.log)
            assert (alone.scores[0], alone.scores[1]) == record.end_scores


# -- pica-pica (R36-R45) -----------------------------------------------------------------------
def dealt_after(hands: int, dealer: int, scores: tuple[int, int], pica: bool = False,
                config: MatchConfig = SIX) -> MatchState:  # fmt: skip
    """A match of six after `hands` hands, the last dealt by `dealer` (a pica-pica hand when
    `pica`), at `scores`: the next deal is due."""
    state = new_match(config)
    state.hand_number, state.dealer, state.scores, state.pica = hands, dealer, list(scores), pica
    return state


def test_r36_r37_r38_f14_the_pica_pica_schedule() -> None:
    # F14, to 30: hand 3, a redondo dealt at 3-2, ended 6-2: hand 4 (dealer 2, mano 3) is
    # pica-pica with duels 3 v 0, 4 v 1, 5 v 2
    state = dealt_after(3, 1, (6, 2), config=SIX_SIN)
    events = state.apply(fair_deal("f14", 4, 6))
    assert HandDealt(4, 2, 3) in events and DuelStarted(4, 0, 3, 0) in events
    seen = []
    while state.hand is not None and state.hand.number == 4 and not state.needs_deal:
        seen += [e for e in do(state, f"{state.acting_seats()[0]}:m") if isinstance(e, DuelStarted)]
    assert seen == [DuelStarted(4, 1, 4, 1), DuelStarted(4, 2, 5, 2)]
    # hand 5 (mano 4) is a redondo; hand 6 (mano 5) pica-pica: duels 5 v 2, 0 v 3, 1 v 4
    events = state.apply(fair_deal("f14", 5, 6))
    assert HandDealt(5, 3, 4) in events and not any(isinstance(e, DuelStarted) for e in events)
    do(state, "4:m")
    assert max(state.scores) < 25
    events = state.apply(fair_deal("f14", 6, 6))
    assert DuelStarted(6, 0, 5, 2) in events
    firsts = [(5, 2)]
    while state.hand is not None and state.hand.number == 6 and not state.needs_deal:
        firsts += [
            (e.first, e.second)
            for e in do(state, f"{state.acting_seats()[0]}:m")
            if isinstance(e, DuelStarted)
        ]
    assert firsts == [(5, 2), (0, 3), (1, 4)]
    # the window: 24-10 is in it, 25-10 is not; to 15, 3 to 12; hand 1 never; option off, never
    assert dealt_after(7, 0, (24, 10)).pica_pica_next()
    assert not dealt_after(7, 0, (25, 10)).pica_pica_next()
    assert not dealt_after(7, 0, (4, 10), pica=True).pica_pica_next()  # after one: a redondo
    assert not dealt_after(7, 0, (4, 0)).pica_pica_next()  # below 5
    fifteen = MatchConfig(players=6, target=15)
    assert dealt_after(7, 0, (3, 0), config=fifteen).pica_pica_next()
    assert not dealt_after(7, 0, (13, 0), config=fifteen).pica_pica_next()
    assert not dealt_after(0, 5, (0, 0)).pica_pica_next()
    off = MatchConfig(players=6, pica_pica=False)
    assert not dealt_after(7, 0, (10, 10), config=off).pica_pica_next()
    assert not dealt_after(7, 0, (10, 10), config=MatchConfig(players=4)).pica_pica_next()


def test_f15_the_worked_pica_pica_hand() -> None:
    # at 6-2, hand 4 (dealer 2, mano 3); side 0 = seats 0, 2, 4
    state = dealt_after(3, 1, (6, 2))
    state.apply(deal_of("12o 12b 10c | 6o 2o 12c | 4o 5c 6b | 10b 11o 4e | 7e 1e 3b | 4c 5o 6e"))
    # duel 3 v 0: seat 3 chants truco, seat 0 no quiero: side 1 +1 (6-3)
    do(state, "3:t", "0:nq")
    assert state.scores == [6, 3]
    # duel 4 v 1: seat 4 chants envido, wanted, 28 against 28: the duel mano wins, side 0 +2
    events = do(state, "4:e", "1:q")
    resolved = next(e for e in events if isinstance(e, EnvidoResolved))
    assert resolved.winner == 0 and state.scores == [8, 3]
    # seat 4 then wins two rounds: side 0 +1 (9-3)
    do(state, "4:p:1e", "1:p:6o", "4:p:7e", "1:p:2o")
    assert state.scores == [9, 3]
    # duel 5 v 2: three pardas go to the duel mano 5, side 1 +1 (9-4)
    events = do(state, "5:p:4c", "2:p:4o", "5:p:5o", "2:p:5c", "5:p:6e", "2:p:6b")
    assert [e.side for e in events if isinstance(e, RoundWon)] == [None, None, None]
    assert state.scores == [9, 4] and state.needs_deal
    # the next hand is a redondo, mano 4
    events = state.apply(fair_deal("f15", 5, 6))
    assert HandDealt(5, 3, 4) in events and not any(isinstance(e, DuelStarted) for e in events)


def test_r40_the_other_four_seats_take_no_part_and_f16_round_one_is_the_duels() -> None:
    state = dealt_after(3, 1, (6, 2))
    state.apply(deal_of("12o 12b 10c | 6o 2o 12c | 4o 5c 6b | 10b 11o 4e | 7e 1e 3b | 4c 5o 6e"))
    assert state.acting_seats() == [3]
    for seat in (1, 2, 4, 5):
        assert refused(state, f"{seat}:m") is not None and not codes(state, seat)
    do(state, "3:p:10b", "0:p:12o")
    assert set(state.acting_seats()) <= {0, 3}
    do(state, "0:m")  # seat 0 gives the duel up: the next duel, its own round 1
    assert state.acting_seats() == [4] and "4:e" in codes(state, 4)
    observed = observe(state, 4)
    assert observed.duel == 1 and observed.duel_seats == (4, 1)
    assert observe(state, None).waiting_on == (4,)
    assert observe(state, 2).actions == ()


def test_r41_f17_a_falta_envido_in_a_duel_and_the_match_won_in_the_middle_of_a_duel() -> None:
    # F17: wanted at 20-12 (to 30) it is worth 10
    state = dealt_after(3, 1, (20, 12))
    state.apply(deal_of("12o 12b 10c | 6o 2o 12c | 4o 5c 6b | 10b 11o 4e | 7e 1e 3b | 4c 5o 6e"))
    events = do(state, "3:fe", "0:q")
    scored = [e for e in events if isinstance(e, Scored)]
    assert [e.points for e in scored] == [10]
    # R41: at 24-10 the falta makes the winner reach 30: the match ends, no duel follows
    state = dealt_after(3, 1, (10, 24))
    state.apply(deal_of("12o 12b 10c | 6o 2o 12c | 4o 5c 6b | 7c 6c 4e | 7e 1e 3b | 4c 5o 6e"))
    events = do(state, "3:fe", "0:q")  # seat 3 (side 1): 33 against seat 0's 0
    assert state.is_over and state.winner == 1 and state.scores == [10, 30]
    assert not any(isinstance(e, DuelStarted) for e in events)


def test_r43_r44_a_no_quiero_ends_only_its_duel_and_all_three_are_played_past_25() -> None:
    state = dealt_after(3, 1, (24, 10))
    state.apply(deal_of("12o 12b 10c | 6o 2o 12c | 4o 5c 6b | 10b 11o 4e | 7e 1e 3b | 4c 5o 6e"))
    do(state, "3:t", "0:q")  # wanted: the duel is worth 2
    do(state, "3:p:10b", "0:p:12o", "0:p:12b", "3:p:11o")  # seat 0 wins two rounds: 26-10
    assert state.scores == [26, 10] and not state.needs_deal
    assert state.acting_seats() == [4]  # past 25, the hand still plays its next duel (R44)
    events = do(state, "4:t", "1:nq")  # no quiero: that duel only (R43)
    assert DuelStarted(4, 2, 5, 2) in events and state.scores == [27, 10]
    do(state, "5:m")  # in its round 1: R24 applies to a duel as to a 1v1 hand (2)
    assert state.needs_deal and state.scores == [29, 10]
    assert not state.pica_pica_next()  # out of the window: redondos from now on


def test_r42_option_a_fixed_falta_in_a_duel_changes_the_falta_envido_only() -> None:
    # the option "falta envido in a duel: a fixed 6": at 20-12 a wanted falta in a duel is 6
    fixed = MatchConfig(players=6, duel_falta=6)
    state = dealt_after(3, 1, (20, 12), config=fixed)
    state.apply(deal_of("12o 12b 10c | 6o 2o 12c | 4o 5c 6b | 10b 11o 4e | 7e 1e 3b | 4c 5o 6e"))
    events = do(state, "3:fe", "0:q")
    assert [e.points for e in events if isinstance(e, Scored)] == [6]
    assert observe(state, 4).config.envido_falta(state.scores, True) == 6
    # in a redondo the falta is R18's still
    state = dealt_after(4, 2, (20, 12), pica=True, config=fixed)
    state.apply(deal_of("12o 12b 10c | 6o 2o 12c | 4o 5c 6b | 10b 11o 4e | 7e 1e 3b | 4c 5o 6e"))
    assert state.hand is not None and state.hand.duel is None
    mano = state.acting_seats()[0]
    events = do(state, f"{mano}:fe", f"{(mano + 1) % 6}:q")
    assert [e.points for e in events if isinstance(e, Scored)] == [10]
    # a contraflor al resto in a duel stays R18 + 6: 20-12, seat 3 and seat 0 both hold flor
    state = dealt_after(3, 1, (20, 12), config=fixed)
    state.apply(deal_of("1o 2o 3o | 6o 2c 12c | 4o 5c 6b | 1c 4c 7c | 7e 1e 3b | 4b 5o 6e"))
    events = do(state, "3:f", "0:cfr", "3:q")
    assert [e.points for e in events if isinstance(e, Scored)] == [10 + 6]
    # its name keeps it (tables of six only), and the lobby cycles it
    assert MatchConfig.of(fixed.options()) == fixed
    assert "duel_falta" not in MatchConfig(players=4, duel_falta=6).options()
    assert SIX.cycled("duel_falta") == fixed and fixed.cycled("duel_falta") == SIX
