"""The Swiss as plain values: seven entries over three rounds, worked by hand (the pairings by
the table, no rematch, a bye to the lowest placed without one, sides alternated, the table's
tie-breaks: Buchholz, then the difference of points); rounds opened only when the one before
ends; a forced pairing; the number of rounds."""

from __future__ import annotations

import random
from dataclasses import replace

from bot.game import MatchConfig
from bot.tourney.formats.swiss import swiss_round
from bot.tourney.model import (
    Fixture,
    Format,
    Refusal,
    Status,
    Tournament,
    can_start,
    playable,
    record,
    standings,
    start,
)


def swiss(n: int, planned: int = 0) -> Tournament:
    t = Tournament(1, -100, 0, 1, "es", 0.0, 100.0, format=Format("suizo"), planned=planned,
                   config=MatchConfig(players=2, target=15))  # fmt: skip
    t.signed = list(range(1, n + 1))
    assert can_start(t) is None
    start(t, {}, random.Random(7), 5.0)
    return t


def pairs(t: Tournament, round_: int) -> list[tuple[int, int | None]]:
    """A round's ties as (a, b): `a` sits at side 0 in its first match; a bye is (entry, None)."""
    return [(f.a, f.b) for f in t.fixtures if f.round == round_]  # type: ignore[misc]


def play_round(t: Tournament, table: int) -> int:
    """Every tie of the round open now: the lower entry wins 15-0."""
    for fixture in playable(t, ()):
        assert fixture.a is not None and fixture.b is not None
        winner_side = 0 if fixture.a < fixture.b else 1  # (side 0 is `a` in a first match)
        table += 1
        assert record(t, fixture, table, winner_side, (15, 0) if winner_side == 0 else (0, 15))
    return table


def table_of(t: Tournament, before: int | None = None) -> list[tuple[int, int, int, int]]:
    """(entry, score, Buchholz, difference), best first: as it stands (with the bye of a round
    just paired, which scores at once), or as it stood when round `before` was paired."""
    if before is not None:
        t = replace(t, fixtures=[f for f in t.fixtures if f.round < before])
    return [(x.entry, x.score, x.buchholz or 0, x.diff) for x in standings(t)]


def test_seven_over_three_rounds_worked_by_hand() -> None:
    t = swiss(7)
    assert t.rules.total_rounds(t) == 3  # log2 7, rounded up
    # Round 1: the table is the seeds; 7 is odd: the last (6) rests and scores.
    assert pairs(t, 0) == [(0, 1), (2, 3), (4, 5), (6, None)]
    table = play_round(t, 0)  # 0, 2, 4 win 15-0
    # As round 2 is paired: 0, 2, 4 (1 point, Buchholz 0, +15) above 6 (1 point from the bye,
    # difference 0), then 1, 3, 5 (Buchholz 1 each, -15)
    assert table_of(t, before=1) == [
        (0, 1, 0, 15), (2, 1, 0, 15), (4, 1, 0, 15), (6, 1, 0, 0), (1, 0, 1, -15),
        (3, 0, 1, -15), (5, 0, 1, -15),
    ]  # fmt: skip
    # Round 2: the bye to 5 (6 had one); down the table, each against the next not met.
    # Sides: 6 had none of side 0 (4 had one) sits there; 0-2 and 1-3, level, by place.
    assert pairs(t, 1) == [(0, 2), (6, 4), (1, 3), (5, None)]
    assert t.rounds == 2 and not playable(t, {0, 2, 4, 6, 1, 3})
    table = play_round(t, table)  # 0, 4, 1 win
    # As round 3 is paired, everyone's Buchholz is 2: the difference puts 1 and 2 (0) above
    # 5 and 6 (-15), the seed 1 above 2 and 5 above 6.
    assert table_of(t, before=2) == [
        (0, 2, 2, 30), (4, 2, 2, 30), (1, 1, 2, 0), (2, 1, 2, 0), (5, 1, 2, -15),
        (6, 1, 2, -15), (3, 0, 2, -30),
    ]  # fmt: skip
    # The table the group reads once it is paired: 3's bye scored, and so Buchholz moves.
    assert table_of(t) == [
        (0, 2, 2, 30), (4, 2, 2, 30), (1, 1, 3, 0), (2, 1, 3, 0), (5, 1, 2, -15),
        (6, 1, 2, -15), (3, 1, 2, -30),
    ]  # fmt: skip
    # Round 3: the bye to 3, the last; 4 (side 0 once, 0 twice) at side 0; 2 and 1 level on
    # sides, 2 was at side 1 last; 5 at side 0 (5 had side 1 only).
    assert pairs(t, 2) == [(4, 0), (2, 1), (5, 6), (3, None)]
    assert t.status is Status.RUNNING
    play_round(t, table)  # 0, 1, 5 win
    assert t.status is Status.FINISHED and t.rounds == 3 and t.champion == 0
    # 4 and 1: 2 points and +15 each; Buchholz 6 (5: 2, 6: 1, 0: 3) beats 5 (0: 3, 3: 1, 2: 1)
    assert table_of(t) == [
        (0, 3, 5, 45), (4, 2, 6, 15), (1, 2, 5, 15), (5, 2, 3, 0), (2, 1, 6, -15),
        (6, 1, 4, -30), (3, 1, 3, -30),
    ]  # fmt: skip
    # No rematch, one bye each for three entries, everyone played each round or rested.
    met = [frozenset((f.a, f.b)) for f in t.fixtures if not f.bye]
    assert len(met) == len(set(met)) == 9
    assert sorted(f.a for f in t.fixtures if f.bye) == [3, 5, 6]  # type: ignore[type-var]


def test_a_round_without_a_rematch_is_found_when_the_next_placed_was_met() -> None:
    t = swiss(4, planned=3)
    assert t.rules.total_rounds(t) == 3
    table = play_round(t, 0)  # 0 beats 1, 2 beats 3
    assert pairs(t, 1) == [(0, 2), (1, 3)]
    table = play_round(t, table)  # 0 beats 2, 1 beats 3
    # 0 has met 1 and 2: it meets 3; 2 and 1 then (1 at side 0 last, so 2 takes it)
    assert pairs(t, 2) == [(3, 0), (2, 1)]
    play_round(t, table)
    assert t.status is Status.FINISHED and t.champion == 0


def test_the_rounds_a_swiss_plays() -> None:
    assert swiss(8).rules.total_rounds(swiss(8)) == 3
    t = swiss(5, planned=9)
    assert t.rules.total_rounds(t) == 5  # (no more than there are rivals, with byes)
    t = swiss(4, planned=9)
    assert t.rules.total_rounds(t) == 3
    few = Tournament(1, -100, 0, 1, "es", 0.0, 100.0, format=Format("suizo"))
    few.signed = [1, 2]
    assert can_start(few) == (Refusal.TOO_FEW, 1)


def test_a_pairing_that_needs_a_rematch_gets_one() -> None:
    """Three entries over three rounds: the last round has only rematches left."""
    t = swiss(3, planned=3)
    table = play_round(t, 0)
    table = play_round(t, table)
    assert t.rounds == 3
    play_round(t, table)
    assert t.status is Status.FINISHED
    assert sorted(f.a for f in t.fixtures if f.bye) == [0, 1, 2]  # type: ignore[type-var]


def test_a_swiss_round_is_a_value_of_the_table() -> None:
    t = swiss(6)
    again = swiss_round(replace(t, fixtures=[]), 0)
    assert again == [f for f in t.fixtures if f.round == 0]
    assert all(isinstance(f, Fixture) for f in again)
