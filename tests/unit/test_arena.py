"""The arena (torneo relámpago) as plain values: whoever is free is paired with the rival met
least, waiting a while for one never met or for anyone but the rival of their last match; a
win scores 2, after two wins in a row 4 until a loss; a paused entry is not paired; once the
time is up no match opens and the last ones count. A whole arena of 4 and of 6 on a clock the
test moves, with matches of random lengths."""

from __future__ import annotations

import itertools
import random

from bot.game import MatchConfig
from bot.league.formats import ARENA_FRESH, ARENA_WAIT
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


def win(t: Tournament, winner: int, loser: int, table: int, at: float) -> None:
    fixture = next(f for f in t.fixtures if not f.decided and {f.a, f.b} == {winner, loser})
    side = 0 if fixture.a == winner else 1
    assert record(t, fixture, table, side, (15, 5) if side == 0 else (5, 15), now=START + at)


def live(t: Tournament) -> set[frozenset[int | None]]:
    return {frozenset((f.a, f.b)) for f in t.fixtures if not f.decided}


def test_a_streak_doubles_and_a_loss_ends_it() -> None:
    t = arena(4)
    assert live(t) == {frozenset((0, 1)), frozenset((2, 3))}
    win(t, 0, 1, 1, at=100)
    # 0 and 1 free, 2 and 3 (whom they never met) playing: they wait for them, then meet again
    assert not tick(t, START + 100) and not tick(t, START + 100 + ARENA_FRESH - 1)
    assert tick(t, START + 100 + ARENA_FRESH)
    assert live(t) == {frozenset((0, 1)), frozenset((2, 3))}
    win(t, 0, 1, 2, at=1000)  # 0: two in a row (2 + 2)
    win(t, 2, 3, 3, at=1010)
    tick(t, START + 1010)
    # all four free, each just met the rival of its match: down the leaderboard (0: 4,
    # 2: 2, 1 and 3: 0), the closest that never met: 0 and 2; 1 and 3
    assert live(t) == {frozenset((0, 2)), frozenset((1, 3))}
    win(t, 0, 2, 4, at=1100)  # the third in a row: doubled, 4
    lines = {x.entry: x for x in standings(t)}
    assert (lines[0].score, lines[0].fire) == (8, True) and lines[2].score == 2
    win(t, 3, 1, 5, at=1120)
    tick(t, START + 1120)
    # 0 (8), 2 (2), 3 (2), 1 (0): each meets the one it never met
    assert live(t) == {frozenset((0, 3)), frozenset((1, 2))}
    win(t, 0, 3, 6, at=1200)
    assert {x.entry: x.score for x in standings(t)}[0] == 12  # doubled again
    win(t, 1, 2, 7, at=1210)
    tick(t, START + 1210)
    # everyone met everyone: the least met (0 met 1 twice), not the last rival
    assert live(t) == {frozenset((0, 2)), frozenset((1, 3))}
    win(t, 2, 0, 8, at=1300)
    lines = {x.entry: x for x in standings(t)}
    assert (lines[0].score, lines[0].fire) == (12, False)  # a loss scores 0 and ends it


def test_a_paused_entry_is_not_paired_and_the_time_ends_it() -> None:
    t = arena(3, minutes=30)
    assert live(t) == {frozenset((0, 1))}  # 2 waits for someone free
    t.paused.append(2)
    win(t, 0, 1, 1, at=60)
    tick(t, START + 60)
    # 2 paused, nobody else playing: 0 meets 1 again at once (nobody to wait for)
    assert live(t) == {frozenset((0, 1))}
    t.paused.remove(2)
    win(t, 1, 0, 2, at=120)
    tick(t, START + 120)
    assert live(t) == {frozenset((1, 2))}  # 0 and 1 just met: 2 meets 1, next on the table
    # the time is up while 1 and 2 play: nothing more opens, their match counts
    assert not tick(t, START + 30 * 60) and t.status is Status.RUNNING
    win(t, 2, 1, 3, at=30 * 60)
    assert tick(t, START + 30 * 60 + 5)
    assert t.status is Status.FINISHED and live(t) == set()
    assert [x.entry for x in standings(t)] == [2, 0, 1] and t.champion == 2


# -- a whole arena on a clock the test moves -----------------------------------------------------
SWEEP = 5.0  # how often the service looks at a running tournament (`SETTLE_EVERY`)
SHORTEST, LONGEST = 2 * 60.0, 5 * 60.0  # a match to 15 between quick players


class Run:
    """A 30-minute arena of `n` played to its end: each match lasts a time drawn between
    SHORTEST and LONGEST, its winner drawn; the format is asked when a match ends and on
    every sweep, as the service asks it. What each entry did when: `paired[key]` (when a tie
    was paired), `ended[key]` (when it ended)."""

    def __init__(self, n: int, seed: int) -> None:
        rng = random.Random(seed)
        self.t = t = arena(n, minutes=30)
        self.paired: dict[tuple[int, int], float] = {}
        self.ended: dict[tuple[int, int], float] = {}
        lasts: dict[tuple[int, int], float] = {}
        now, sweep, table = START, START + SWEEP, 0

        def note_new() -> None:
            for f in t.fixtures:
                if f.key not in self.paired:
                    self.paired[f.key] = now
                    lasts[f.key] = rng.uniform(SHORTEST, LONGEST)

        note_new()
        while t.status is Status.RUNNING:
            due = [self.paired[f.key] + lasts[f.key] for f in t.fixtures if not f.decided]
            now = min([*due, sweep])
            if now == sweep:
                sweep += SWEEP
            for f in t.fixtures:
                if not f.decided and self.paired[f.key] + lasts[f.key] <= now:
                    side = rng.randrange(2)
                    table += 1
                    assert record(t, f, table, side, (15, 9) if side == 0 else (9, 15), now=now)
                    self.ended[f.key] = now
            tick(t, now)
            note_new()
            assert now < START + 31 * 60 + LONGEST, "the arena never ended"

    def free(self, entry: int) -> list[tuple[float, float]]:
        """When `entry` was free (in no tie): from the start or a tie's end to its next tie."""
        ties = sorted((f for f in self.t.fixtures if entry in (f.a, f.b)), key=lambda f: f.key)
        spans, since = [], START
        for f in ties:
            spans.append((since, self.paired[f.key]))
            since = self.ended.get(f.key, float("inf"))
        return [*spans, (since, float("inf"))]

    def repeats_while_another_was_free(self) -> list[str]:
        """Each time an entry met the rival of its last tie again although another entry was
        free at some moment within ARENA_WAIT seconds of that tie's end."""
        found = []
        for entry in range(len(self.t.entries)):
            ties = sorted((f for f in self.t.fixtures if entry in (f.a, f.b)), key=lambda f: f.key)
            for before, after in itertools.pairwise(ties):
                rival = before.b if before.a == entry else before.a
                if rival not in (after.a, after.b):
                    continue
                start, paired = self.ended[before.key], self.paired[after.key]
                for other in set(range(len(self.t.entries))) - {entry, rival}:
                    for s, e in self.free(other):
                        if s <= start + ARENA_WAIT and e >= start:
                            found.append(f"{entry} and {rival}: ended at {start - START:.0f} s, "
                                         f"met again at {paired - START:.0f} s; {other} free "
                                         f"from {s - START:.0f} s")
        return found

    def met(self) -> set[frozenset[int | None]]:
        return {frozenset((f.a, f.b)) for f in self.t.fixtures}


def test_a_whole_arena_of_four_and_of_six_never_repeats_a_rival_while_another_is_free() -> None:
    """30 minutes of 4 and of 6, many times over with matches of 2 to 5 minutes: nobody meets
    the rival of their last match again while anyone else is free within the wait (ARENA_WAIT,
    60 s), and with six every pair meets (a player waits up to ARENA_FRESH, 5 minutes, for a
    rival never met who is playing)."""
    assert (ARENA_WAIT, ARENA_FRESH) == (60.0, 300.0)
    for n in (4, 6):
        for seed in range(30):
            run = Run(n, seed)
            assert run.repeats_while_another_was_free() == [], (n, seed)
            if n == 6:
                everyone = {frozenset((a, b)) for a in range(6) for b in range(a + 1, 6)}
                assert everyone - run.met() == set(), (seed, len(run.t.fixtures))
