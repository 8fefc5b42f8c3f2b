"""A tournament's rules as plain values: seeds and byes, the bracket to its champion, series of
three, a liguilla's rounds and standings with their tie-breaks, teams drawn at the start."""

from __future__ import annotations

import itertools
import random

from bot.game import MatchConfig
from bot.tourney.model import (
    Format,
    Refusal,
    Status,
    Tournament,
    can_start,
    draw_entries,
    knockout,
    path_of,
    playable,
    record,
    round_key,
    round_robin,
    seats_for,
    seed_positions,
    standings,
    start,
)

KNOCKOUT = Format("ko")


def tournament(n: int, fmt: Format = KNOCKOUT, series: int = 1, players: int = 2) -> Tournament:
    t = Tournament(1, -100, 0, 1, "es", 0.0, 100.0, format=fmt, series=series,
                   config=MatchConfig(players=players, target=15))  # fmt: skip
    t.signed = list(range(1, n * (players // 2) + 1))
    assert can_start(t) is None
    start(t, {}, random.Random(7), 5.0)
    return t


def play_all(t: Tournament, better: bool = True) -> int:
    """Play every tie as it becomes playable: the better seed (lower entry) wins 15-9."""
    table = 100
    while t.status is Status.RUNNING:
        ready = playable(t, ())
        assert ready, "nothing to play, and no champion"
        for fixture in ready:
            while not fixture.decided:
                game = len(fixture.games)
                seated = seats_for(t, fixture, game)
                side_a = 0 if t.entries[fixture.a][0] in seated[0::2] else 1  # type: ignore[index]
                a_wins = (fixture.a < fixture.b) == better  # type: ignore[operator]
                winner = side_a if a_wins else 1 - side_a
                scores = (15, 9) if winner == 0 else (9, 15)
                table += 1
                assert record(t, fixture, table, winner, scores)
    return table - 100


def test_seeds_meet_as_late_as_they_can() -> None:
    assert seed_positions(2) == [1, 2]
    assert seed_positions(4) == [1, 4, 2, 3]
    assert seed_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    for size in (16, 32):
        order = seed_positions(size)
        assert sorted(order) == list(range(1, size + 1))
        # the top two are in different halves, the top four in different quarters
        assert {order.index(1) // (size // 2), order.index(2) // (size // 2)} == {0, 1}
        assert len({order.index(s) // (size // 4) for s in (1, 2, 3, 4)}) == 4


def test_an_eight_entry_eliminacion_to_its_champion() -> None:
    t = tournament(8)
    first = [(f.a, f.b) for f in t.fixtures if f.round == 0]
    assert first == [(0, 7), (3, 4), (1, 6), (2, 5)]
    assert t.rounds == 3 and len(t.fixtures) == 7
    assert [round_key(t, r) for r in range(3)] == ["round.quarter", "round.semi", "round.final"]
    assert len(playable(t, ())) == 4
    # (entries 0 and 5 playing elsewhere: their ties wait)
    assert playable(t, (0, 5)) == [t.fixture(0, 1), t.fixture(0, 2)]
    assert play_all(t) == 7
    assert t.status is Status.FINISHED and t.champion == 0
    final = t.fixture(2, 0)
    assert final is not None and (final.a, final.b) == (0, 1)
    assert [f.key for f in path_of(t, 0)] == [(0, 0), (1, 0), (2, 0)]


def test_six_entries_give_the_two_best_seeds_a_bye() -> None:
    t = tournament(6)
    first = {f.slot: f for f in t.fixtures if f.round == 0}
    assert [(f.a, f.b, f.bye) for f in first.values()] == [
        (0, None, True), (3, 4, False), (1, None, True), (2, 5, False),
    ]  # fmt: skip
    semis = [t.fixture(1, 0), t.fixture(1, 1)]
    assert [(f.a, f.b) for f in semis if f] == [(0, None), (1, None)]  # waiting for winners
    assert {(f.a, f.b) for f in playable(t, ())} == {(3, 4), (2, 5)}
    assert play_all(t, better=False) == 5  # the underdogs win every tie
    assert t.champion == 5 and path_of(t, 0) == [t.fixture(1, 0)]  # a bye is not a tie played


def test_a_best_of_three_swaps_sides_and_counts_each_table_once() -> None:
    t = tournament(2, series=3)
    (final,) = t.fixtures
    assert final.a == 0 and final.b == 1
    assert seats_for(t, final, 0) == [t.entries[0][0], t.entries[1][0]]
    assert seats_for(t, final, 1) == [t.entries[1][0], t.entries[0][0]]  # sides swap
    assert record(t, final, 11, 0, (15, 3))  # entry 0 at side 0 wins
    assert not record(t, final, 11, 0, (15, 3))  # the same table again: counted once
    assert record(t, final, 12, 0, (15, 10))  # entry 1 at side 0 wins: 1-1
    assert final.wins() == (1, 1) and not final.decided
    assert final.points() == (15 + 10, 3 + 15)
    assert record(t, final, 13, 1, (2, 15))  # game 3: entry 0 at side 0... loses
    assert final.winner == 1 and t.champion == 1 and t.status is Status.FINISHED


def test_a_walkover_gives_the_match_not_played_and_the_series_decides() -> None:
    t = tournament(4, series=3)
    fixture = t.fixture(0, 0)
    assert fixture is not None and (fixture.a, fixture.b) == (0, 3)
    assert record(t, fixture, 21, 1, (0, 0), walkover=True)  # b wins match 1 by walkover
    assert fixture.wins() == (0, 1) and not fixture.decided
    assert record(t, fixture, 22, 1, (15, 3))  # a wins match 2 (sides swapped)
    assert fixture.wins() == (1, 1) and not fixture.decided
    assert record(t, fixture, 23, 1, (0, 0), walkover=True)  # b's walkover again
    assert fixture.winner == 3 and fixture.walkover
    assert t.fixture(1, 0).a == 3  # type: ignore[union-attr]


def test_a_liguilla_of_five_with_its_standings_and_tie_breaks() -> None:
    t = tournament(5, fmt=Format("liga"))
    pairs = [frozenset((f.a, f.b)) for f in t.fixtures]
    assert len(pairs) == 10 and set(pairs) == {
        frozenset(p) for p in itertools.combinations(range(5), 2)
    }
    for round_ in range(t.rounds):
        playing = [e for f in t.fixtures if f.round == round_ for e in (f.a, f.b)]
        assert len(playing) == len(set(playing)) == 4  # each entry once a round, one rests
    # Results: 0 and 1 win three each; 0 beat 1; ...
    results = {
        (0, 1): (0, 15, 10),
        (0, 2): (2, 8, 15),
        (0, 3): (0, 15, 0),
        (0, 4): (0, 15, 1),
        (1, 2): (1, 15, 0),
        (1, 3): (1, 15, 12),
        (1, 4): (1, 15, 13),
        (2, 3): (3, 5, 15),
        (2, 4): (4, 6, 15),
        (3, 4): (3, 15, 14),
    }  # (a, b): (winner, points of a, points of b)
    for table, fixture in enumerate(t.fixtures, start=1):
        a, b = sorted((fixture.a, fixture.b))  # type: ignore[type-var]
        winner, pa, pb = results[(a, b)]
        # seat the fixture: its a at side 0 in game 0
        points = (pa, pb) if fixture.a == a else (pb, pa)
        side = 0 if winner == fixture.a else 1
        record(t, fixture, table, side, points)
    assert t.status is Status.FINISHED
    lines = standings(t)
    # 0: 3 won (+; 53-40); 1: 3 won (58-55); 3: 2 won; 2 and 4: 1 won each
    assert [(x.entry, x.won) for x in lines][:2] == [(0, 3), (1, 3)]
    assert lines[0].points_for == 15 + 8 + 15 + 15 and lines[0].points_against == 10 + 15 + 0 + 1
    assert t.champion == 0
    # 2 and 4 are level on ties won (1 each); 4 has the better difference
    assert [x.entry for x in lines[2:]] == [3, 4, 2]


def test_head_to_head_breaks_a_tie_of_two_level_on_everything() -> None:
    t = tournament(3, fmt=Format("liga"))
    table = 0
    # a cycle: 0 beats 1, 1 beats 2, 2 beats 0, all 15-10: everyone level... then 3 entries
    # level (no head to head among three): the seed decides
    for fixture in t.fixtures:
        a, b = fixture.a, fixture.b
        wins_a = (a, b) in ((0, 1), (1, 2), (2, 0))
        table += 1
        record(t, fixture, table, 0 if wins_a else 1, (15, 10) if wins_a else (10, 15))
    assert [x.entry for x in standings(t)] == [0, 1, 2]
    # two level: a league of 4 where 0 and 1 end level on all but their tie (1 beat 0)
    t = tournament(4, fmt=Format("liga"))
    wins = {(0, 1): 1, (0, 2): 0, (0, 3): 0, (1, 2): 1, (1, 3): 3, (2, 3): 2}
    for fixture in t.fixtures:
        a, b = sorted((fixture.a, fixture.b))  # type: ignore[type-var]
        winner = wins[(a, b)]
        side = 0 if winner == fixture.a else 1
        table += 1
        record(t, fixture, table, side, (15, 10) if side == 0 else (10, 15))
    lines = standings(t)
    assert (lines[0].won, lines[1].won) == (2, 2) and [x.entry for x in lines[:2]] == [1, 0]


def test_teams_are_drawn_and_rated_entries_seeded_first() -> None:
    rng = random.Random(3)
    entries, seeded = draw_entries([1, 2, 3, 4, 5, 6, 7, 8], 2, {5: 30.0, 2: 20.0}, rng)
    assert sorted(u for e in entries for u in e) == list(range(1, 9))
    assert all(len(e) == 2 for e in entries)
    rated = [e for e in entries if {5, 2} & set(e)]
    assert entries[: len(rated)] == rated and seeded == len(rated)
    if len(rated) == 2:
        assert 5 in entries[0]  # the better rating first
    entries, seeded = draw_entries([1, 2, 3], 1, {3: 10.0, 1: 30.0}, random.Random(1))
    assert entries[:2] == [(1,), (3,)] and seeded == 2 and entries[2] == (2,)


def test_what_keeps_a_tournament_from_starting() -> None:
    t = Tournament(1, -100, 0, 1, "es", 0.0, 100.0)
    t.signed = [1]
    assert can_start(t) == (Refusal.TOO_FEW, 1)
    t.config = MatchConfig(players=4)
    t.signed = [1, 2, 3]
    assert can_start(t) == (Refusal.TEAMS_UNEVEN, 1)
    t.signed = [1, 2, 3, 4, 5, 6]
    t.format = Format("liga")
    assert can_start(t) is None  # three pairs
    t.signed = list(range(1, 19))
    assert can_start(t) == (Refusal.TOO_MANY, 8)


def test_the_stored_form_round_trips() -> None:
    t = tournament(6, series=3)
    record(t, t.fixture(0, 1), 9, 0, (15, 2))  # type: ignore[arg-type]
    again = Tournament(t.id, t.chat_id, t.thread_id, t.opener_id, t.language, t.created_at, 0.0)
    again.status = t.status
    assert again.from_json(t.to_json()) == t
    assert round_robin(4) == round_robin(4) and knockout(5) == knockout(5)


def test_teams_that_signed_up_together_stay_together() -> None:
    signed = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    teams = [[1, 5, 9], [2, 3], [8]]  # a whole trio, a pair short of one, one alone
    entries, _ = draw_entries(signed, 3, {}, random.Random(4), teams)
    assert sorted(u for e in entries for u in e) == signed and all(len(e) == 3 for e in entries)
    assert (1, 5, 9) in entries
    assert any({2, 3} <= set(e) for e in entries)  # the pair completed from the draw
    pairs, _ = draw_entries([1, 2, 3, 4], 2, {}, random.Random(1), [[4, 1]])
    assert ((4, 1) in pairs and (2, 3) in pairs) or (3, 2) in pairs


def test_results_and_the_champion_read_right_for_one_and_for_a_pair() -> None:
    """ "Eva y Hugo pasan a la final", "Dani pasa a semifinales" (no stray colon), a
    champion's line that fits anyone, a walkover of a pair, and neither side coming."""
    from bot.i18n import translator
    from bot.tourney.views import bracket_text, champion_text, result_text
    from bot.views.common import plain

    es, en = translator("es"), translator("en")
    pairs = tournament(4, players=4)  # four pairs: semifinals, then the final
    names = {u: n for u, n in zip(range(1, 9), ["Eva", "Hugo", "Ana", "Beto", "Caro", "Dani",
                                                 "Gabi", "Fede"], strict=True)}  # fmt: skip
    pairs.entries = [(1, 2), (3, 4), (5, 6), (7, 8)]
    semi = pairs.fixture(0, 0)
    assert semi is not None and (semi.a, semi.b) == (0, 3)
    record(pairs, semi, 31, 0, (15, 4))
    said = plain(result_text(es, pairs, [(0, 0, 0)], names))
    assert said.endswith("Eva y Hugo pasan a la final."), said
    assert plain(result_text(en, pairs, [(0, 0, 0)], names)).endswith(
        "Eva and Hugo go through to the final."
    )
    other = pairs.fixture(0, 1)
    assert other is not None
    record(pairs, other, 32, 1, (0, 0), walkover=True)  # the table's side 1 (a) wins
    said = plain(result_text(es, pairs, [(0, 1, 0)], names))
    assert "Ana y Beto no se presentaron; ganan Caro y Dani." in said, said
    final = pairs.fixture(1, 0)
    assert final is not None
    record(pairs, final, 33, 0, (15, 2))
    crowned = plain(champion_text(es, pairs, names))
    assert crowned.startswith("🥇 ¡Eva y Hugo ganaron el torneo!"), crowned
    assert "🥇 Ganaron el torneo: Eva y Hugo" in plain(bracket_text(es, pairs, names, set()))

    solo = tournament(8)
    solo.entries = [(u,) for u in range(1, 9)]
    quarter = solo.fixture(0, 1)
    assert quarter is not None
    record(solo, quarter, 41, 1, (3, 15))  # the table's side 1 wins
    said = plain(result_text(es, solo, [(0, 1, 0)], names))
    assert said.endswith("pasa a semifinales."), said
    for fixture in sorted(solo.fixtures, key=lambda f: f.key):
        while fixture.ready:
            record(solo, fixture, 50 + fixture.round * 10 + fixture.slot, 0, (15, 1))
    winner = names[solo.entries[solo.champion][0]]  # type: ignore[index]
    assert plain(champion_text(es, solo, names)).startswith(f"🥇 ¡{winner} ganó el torneo!")
    assert f"🥇 Ganó el torneo: {winner}" in plain(bracket_text(es, solo, names, set()))

    nobody = tournament(2)
    nobody.entries = [(1,), (2,)]
    (tie,) = nobody.fixtures
    record(nobody, tie, 61, 0, (0, 0), walkover=True, nobody=True)
    said = plain(result_text(es, nobody, [(0, 0, 0)], names))
    assert said == (
        "🚫 Final: no se presentó ninguno (Eva ni Hugo). Por regla gana el mejor cabeza de"
        " serie: Eva."
    ), said


def test_a_tournament_stored_before_formats_were_classes_loads_and_plays_on() -> None:
    """The stored form of a knockout from before (no 'planned' key) loads as it was."""
    t = tournament(4)
    record(t, t.fixtures[0], 1, 0, (15, 3))
    stored = t.to_json()
    del stored["planned"]
    again = Tournament(t.id, t.chat_id, 0, t.opener_id, "es", 0.0, 0.0, t.status).from_json(stored)
    assert again.to_json() == t.to_json() and again.rules is t.rules
    assert play_all(again) == 2 and again.champion is not None
