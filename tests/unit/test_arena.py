"""The arena (torneo relámpago) as plain values: whoever is free is paired at once down the
leaderboard, not with the rival of their last match where another is free; a win scores 2,
after two wins in a row 4 until a loss; a paused entry is not paired; once the time is up no
match opens and the last ones count."""

from __future__ import annotations

import random

from bot.game import MatchConfig
from bot.league.tournament import (
    Format,
    Status,
    Tournament,
    can_start,
    record,
    standings,
    start,
    tick,
)

START = 5.0


def arena(n: int, minutes: int = 30) -> Tournament:
    t = Tournament(1, -100, 0, 1, "es", 0.0, 100.0, format=Format.ARENA, minutes=minutes,
                   config=MatchConfig(players=2, target=15))  # fmt: skip
    t.signed = list(range(1, n + 1))
    assert can_start(t) is None
    start(t, {}, random.Random(7), START)
    return t


def win(t: Tournament, winner: int, loser: int, table: int) -> None:
    fixture = next(f for f in t.fixtures if not f.decided and {f.a, f.b} == {winner, loser})
    side = 0 if fixture.a == winner else 1
    assert record(t, fixture, table, side, (15, 5) if side == 0 else (5, 15))


def live(t: Tournament) -> set[frozenset[int | None]]:
    return {frozenset((f.a, f.b)) for f in t.fixtures if not f.decided}


def test_a_streak_doubles_and_a_loss_ends_it() -> None:
    t = arena(4)
    assert live(t) == {frozenset((0, 1)), frozenset((2, 3))}
    win(t, 0, 1, 1)
    assert tick(t, START + 60)  # 0 and 1 free, nobody else: they meet again at once
    assert live(t) == {frozenset((0, 1)), frozenset((2, 3))}
    win(t, 0, 1, 2)  # 0: two in a row (2 + 2)
    win(t, 2, 3, 3)
    tick(t, START + 61)
    # all four free: down the leaderboard (0: 4, 2: 2, 1 and 3: 0), 0 meets 2; 1 and 3
    assert live(t) == {frozenset((0, 2)), frozenset((1, 3))}
    win(t, 0, 2, 4)  # the third in a row: doubled, 4
    lines = {x.entry: x for x in standings(t)}
    assert (lines[0].score, lines[0].fire) == (8, True) and lines[2].score == 2
    win(t, 3, 1, 5)
    tick(t, START + 62)
    # 0 (8), 2 (2), 3 (2), 1 (0): 0 meets 2? its last rival: 3 then
    assert live(t) == {frozenset((0, 3)), frozenset((1, 2))}
    win(t, 0, 3, 6)
    assert {x.entry: x.score for x in standings(t)}[0] == 12  # doubled again
    win(t, 1, 2, 7)
    tick(t, START + 63)
    win(t, 1, 0, 8) if frozenset((0, 1)) in live(t) else win(t, 2, 0, 8)
    lines = {x.entry: x for x in standings(t)}
    assert (lines[0].score, lines[0].fire) == (12, False)  # a loss scores 0 and ends it


def test_a_paused_entry_is_not_paired_and_the_time_ends_it() -> None:
    t = arena(3, minutes=30)
    assert live(t) == {frozenset((0, 1))}  # 2 waits for someone free
    t.paused.append(2)
    win(t, 0, 1, 1)
    tick(t, START + 60)
    assert live(t) == {frozenset((0, 1))}  # 2 paused: 0 meets 1 again, the only one free
    t.paused.remove(2)
    win(t, 1, 0, 2)
    tick(t, START + 120)
    assert live(t) == {frozenset((0, 2))}  # 0 and 1 just met: 0 meets 2 (1 waits)
    # the time is up while 0 and 2 play: nothing more opens, their match counts
    assert not tick(t, START + 30 * 60) and t.status is Status.RUNNING
    win(t, 2, 0, 3)
    assert tick(t, START + 30 * 60 + 5)
    assert t.status is Status.FINISHED and live(t) == set()
    assert [x.entry for x in standings(t)] == [2, 1, 0] and t.champion == 2
