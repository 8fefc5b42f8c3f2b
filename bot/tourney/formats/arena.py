"""Relámpago (an arena): a fixed time in which whoever is free is paired again at once; a
win scores, a streak's scores double; its leaderboard decides the podium, and the page shows
only the matches in play and those played."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence

from bot.tourney.bracket import Bracket, Fixture, Format, Line
from bot.tourney.formats.base import Count, Page, Rules

ARENA_MINUTES = (30, 60, 90)
ARENA_MOST = 32
ARENA_WIN = 2
ARENA_STREAK = 2  # wins in a row after which a win scores double
ARENA_WAIT = 60.0  # seconds two who just met wait for anyone else to free up before they
# meet again: about a hand, so a match about to end elsewhere is waited for
ARENA_FRESH = 300.0  # seconds a player waits for a rival never met, while one plays, rather
# than meet one met before: so that in half an hour of six everyone meets everyone


def arena_doubled(t: Bracket) -> set[tuple[int, int]]:
    """The ties whose win scored double: won by an entry on a streak (ARENA_STREAK wins in a
    row before it)."""
    streak = [0] * len(t.entries)
    doubled = set()
    for fixture in sorted(t.fixtures, key=lambda f: f.key):
        if not fixture.decided or fixture.a is None or fixture.b is None:
            continue
        winner = fixture.winner
        loser = fixture.b if winner == fixture.a else fixture.a
        assert winner is not None
        if streak[winner] >= ARENA_STREAK:
            doubled.add(fixture.key)
        streak[winner] += 1
        streak[loser] = 0
    return doubled


def arena_table(t: Bracket) -> list[Line]:
    """An arena's leaderboard: points (a win 2, a loss 0; a win after two wins in a row 4, the
    streak kept until a loss), then ties won, then the difference of points, then the seed.
    `fire`: on a streak (its next win scores double)."""
    count = len(t.entries)
    played, won, made, let = [0] * count, [0] * count, [0] * count, [0] * count
    scored, streak = [0] * count, [0] * count
    for fixture in sorted(t.fixtures, key=lambda f: f.key):
        if not fixture.decided or fixture.a is None or fixture.b is None:
            continue
        points = fixture.points()
        for side, entry in enumerate((fixture.a, fixture.b)):
            played[entry] += 1
            made[entry] += points[side]
            let[entry] += points[1 - side]
            if fixture.winner == entry:
                won[entry] += 1
                scored[entry] += ARENA_WIN * (2 if streak[entry] >= ARENA_STREAK else 1)
                streak[entry] += 1
            else:
                streak[entry] = 0
    lines = [
        Line(e, played[e], won[e], made[e], let[e], scored=scored[e],
             fire=streak[e] >= ARENA_STREAK)
        for e in range(count)
    ]  # fmt: skip
    return sorted(lines, key=lambda x: (-x.score, -x.won, -x.diff, x.entry))


def arena_pairs(t: Bracket, now: float) -> list[Fixture]:
    """Whoever is free (in no tie undecided, not paused) paired now: as many ties as can be
    made, each between rivals met least, then least recently, then closest on the leaderboard.
    Two rules make a player wait rather than meet the wrong rival (each wait counted from the
    end of their last tie, and only while someone they could meet instead is playing):
    - the rival of their last tie: not again while anyone else is free within ARENA_WAIT
      seconds (nor after, if someone else was);
    - a rival met before: not while one never met is free or playing, for ARENA_FRESH
      seconds.
    Of the two, the one that sat first fewer times sits first. Each tie is a round of its own
    (its number: the order it was paired in)."""
    table = arena_table(t)
    busy = {e for f in t.fixtures if not f.decided for e in (f.a, f.b) if e is not None}
    free = [x.entry for x in table if x.entry not in busy and x.entry not in t.paused]
    coming = busy - set(t.paused)  # who will be free when their match ends
    place = {x.entry: index for index, x in enumerate(table)}
    start = t.started_at if t.started_at is not None else -math.inf
    last: dict[int, int] = {}  # entry -> the rival of its last tie
    since: dict[int, float] = {}  # entry -> when its last tie ended
    spans: dict[int, list[tuple[float, float]]] = {}  # entry -> when it was free
    met: dict[frozenset[int], int] = {}  # two entries -> their ties so far
    lately: dict[frozenset[int], int] = {}  # two entries -> 1 + the order of their last tie
    balance = [0] * len(t.entries)
    for order, fixture in enumerate(sorted(t.fixtures, key=lambda f: f.key), start=1):
        if fixture.a is None or fixture.b is None:
            continue
        a, b = fixture.a, fixture.b
        for e in (a, b):  # (a tie stored without its times: long ago, nothing to wait for)
            spans.setdefault(e, []).append((since.get(e, start), fixture.at or -math.inf))
            since[e] = fixture.ended_at if fixture.ended_at is not None else -math.inf
        last[a], last[b] = b, a
        pair = frozenset((a, b))
        met[pair] = met.get(pair, 0) + 1
        lately[pair] = order
        balance[a] += 1
        balance[b] -= 1
    for e in free:
        spans.setdefault(e, []).append((since.get(e, start), math.inf))

    def someone_else_was_free(e: int, rival: int) -> bool:
        """Anyone but `e` and `rival` (not paused) free while `e` waited for another rival."""
        begin = since.get(e, start)
        end = min(now, begin + ARENA_WAIT)
        return any(
            s <= end and f >= begin
            for other, free_at in spans.items() if other not in (e, rival, *t.paused)
            for s, f in free_at
        )  # fmt: skip

    def allowed(x: int, y: int) -> bool:
        for e, rival in ((x, y), (y, x)):
            waited = now - since.get(e, start)
            if last.get(e) == rival and (
                someone_else_was_free(e, rival) or (coming and waited < ARENA_WAIT)
            ):
                return False
            if (
                frozenset((e, rival)) in met and waited < ARENA_FRESH
                and any(frozenset((e, z)) not in met for z in (*free, *coming) if z != e)
            ):  # fmt: skip
                return False
        return True

    def cost(x: int, y: int) -> Cost:
        pair = frozenset((x, y))
        again = int(last.get(x) == y or last.get(y) == x)
        return (again, met.get(pair, 0), lately.get(pair, 0), abs(place[x] - place[y]))

    fixtures = []
    for round_, (x, y) in enumerate(_matching(free, allowed, cost), start=t.rounds):
        a, b = sorted((x, y), key=lambda e: (balance[e], place[e]))
        fixtures.append(Fixture(round_, 0, a, b, at=now))
    return fixtures


Cost = tuple[int, int, int, int]
EXACT_MOST = 12  # free entries paired by the exact search (more: greedily, best placed first)


def _matching(
    free: Sequence[int], allowed: Callable[[int, int], bool], cost: Callable[[int, int], Cost]
) -> list[tuple[int, int]]:
    """The most pairs of `free` that `allowed` lets meet, of the least total `cost` (its parts
    summed, compared in order), `free` in leaderboard order. Exact up to EXACT_MOST entries
    (all at once happens at the start only, when nobody has met anybody); beyond, each in
    turn down the leaderboard takes its cheapest allowed rival."""
    allowed, cost = functools.cache(allowed), functools.cache(cost)  # (asked again and again)
    if len(free) > EXACT_MOST:
        rest, pairs = list(free), []
        while rest:
            first = rest.pop(0)
            options = [e for e in rest if allowed(first, e)]
            if options:
                rival = min(options, key=lambda e: cost(first, e))
                rest.remove(rival)
                pairs.append((first, rival))
        return pairs

    @functools.cache
    def best(rest: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
        if len(rest) < 2:
            return (0, 0, 0, 0, 0), ()
        first, others = rest[0], rest[1:]
        options = [best(others)]  # (the first sits out)
        for index, other in enumerate(others):
            if not allowed(first, other):
                continue
            score, pairs = best(others[:index] + others[index + 1 :])
            paid = cost(first, other)
            options.append(((score[0] - 1, *(s + c for s, c in zip(score[1:], paid, strict=True))),
                            ((first, other), *pairs)))  # fmt: skip
        return min(options)

    return list(best(tuple(free))[1])


class Arena(Rules):
    format = Format("relampago")
    offered = 3
    words = ("relampago", "relámpago", "arena")
    count = Count("minutes", ARENA_MINUTES, right_after=True)
    page = Page(view="live", columns=("points", "streak", "games", "in_play"), board="leaderboard")
    least = 2
    most = ARENA_MOST
    runs_on_time = True

    def ends_at(self, t: Bracket) -> float:
        return (t.started_at or 0.0) + 60.0 * (t.minutes or ARENA_MINUTES[0])

    def doubled(self, t: Bracket, fixture: Fixture) -> bool:
        return fixture.key in arena_doubled(t)

    def minutes_told(self, t: Bracket) -> int | None:
        return t.minutes or ARENA_MINUTES[0]

    def lay_out(self, t: Bracket) -> list[Fixture]:
        return arena_pairs(t, t.started_at or 0.0)

    def tick(self, t: Bracket, now: float) -> bool:
        if now >= self.ends_at(t):
            return False
        fixtures = arena_pairs(t, now)
        t.fixtures += fixtures
        return bool(fixtures)

    def over(self, t: Bracket, now: float | None = None) -> bool:
        """Its time is up and the matches in play then have ended (they count)."""
        return now is not None and now >= self.ends_at(t) and super().over(t)

    def champion(self, t: Bracket) -> int:
        return arena_table(t)[0].entry

    def standings(self, t: Bracket) -> list[Line] | None:
        return arena_table(t)

    def round_key(self, t: Bracket, round_: int) -> str:
        return "round.arena"
