"""A tournament's format, one class each: the fixtures it lays out at the start, what a decided
tie opens next (a winner carried into the next round, the next round paired), when it is over
and who won it, its table of standings, and the names of its rounds. Everything else about a
tournament (sign-ups, seeds, series, the tables its matches are played at, walkovers) is the
same for every format and lives in `bot.league.tournament`; the service and the views ask the
format (`Tournament.rules`) and never branch on its name. A format reads and moves what
of a tournament `Bracket` names.

A format that pairs round by round (the Swiss) lays out its first round only and appends the
next one in `advance`, in the same step that counts the result that closed a round, so it is
stored with that result and a crash repeats neither.
"""

from __future__ import annotations

import functools
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

from bot.league.bracket import Bracket, Fixture, Format, Line

LEAGUE_MOST = 8  # a liguilla of 8 is 28 fixtures: about the most a night holds
KNOCKOUT_MOST = 32
SWISS_MOST = 32
PAIRING_BUDGET = 20_000  # steps of the search for a round without rematches before it gives up


class Rules(ABC):
    """What a format decides. `least`/`most`: the entries it can start with."""

    format: Format
    least: int = 2
    most: int = KNOCKOUT_MOST
    bye_scores = False  # a bye counts as a tie won (the Swiss), or only lets an entry through
    pairs_as_it_goes = False  # each round paired when the one before it ends (the Swiss)
    runs_on_time = False  # pairs whoever is free until its time is up (the arena): its table
    # is a leaderboard, its matches are listed only while in play, and it ends with a podium

    @abstractmethod
    def lay_out(self, t: Bracket) -> list[Fixture]:
        """The fixtures known when the tournament starts (its entries seeded)."""

    def advance(self, t: Bracket) -> None:
        """A tie of `t` was just decided: what that opens (nothing, by default)."""
        return None

    def over(self, t: Bracket, now: float | None = None) -> bool:
        """Whether it is over (`now`: the clock, for a format that runs on time)."""
        return all(f.decided for f in t.fixtures)

    def tick(self, t: Bracket, now: float) -> bool:
        """The clock says `now`: what a format that runs on time does (pairs whoever is free);
        True if it changed `t`. Nothing, by default."""
        return False

    @abstractmethod
    def champion(self, t: Bracket) -> int:
        """The winning entry (`over` said yes)."""

    def standings(self, t: Bracket) -> list[Line] | None:
        """The format's table, best first (None: it has none, as a knockout)."""
        return None

    def total_rounds(self, t: Bracket) -> int:
        """How many rounds it plays (the ones laid out, unless it pairs round by round)."""
        return t.rounds

    def rounds_told(self, t: Bracket) -> int | None:
        """The number of rounds its rules line tells (None: nothing to tell)."""
        return None

    def minutes_told(self, t: Bracket) -> int | None:
        """The minutes it lasts, told in its rules line (None: it runs to its last tie)."""
        return None

    def ends_at(self, t: Bracket) -> float | None:
        """When its time is up (None: it runs to its last tie)."""
        return None

    def doubled(self, t: Bracket, fixture: Fixture) -> bool:
        """Whether the win that decided `fixture` scored double (an arena's streak)."""
        return False

    @abstractmethod
    def round_key(self, t: Bracket, round_: int) -> str:
        """The locale key (under `tourney.`) naming round `round_`."""

    def next_round(self, t: Bracket, fixture: Fixture) -> int | None:
        """The round the winner of a decided tie goes on to (told with the result), or None."""
        return None


# -- eliminación directa ------------------------------------------------------------------------
def seed_positions(size: int) -> list[int]:
    """The seeds (1-based) down a bracket of `size` (a power of two), so that the best two
    can meet only in the final, the best four only in the semifinals, and so on:
    8 -> [1, 8, 4, 5, 2, 7, 3, 6]."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for s in order for x in (s, total - s)]
    return order


def knockout(entries: int) -> list[Fixture]:
    """An eliminación directa's fixtures: the first round with its byes decided (the best
    seeds have them), the later rounds waiting for winners."""
    size = 1
    while size < entries:
        size *= 2
    order = seed_positions(size)
    fixtures = []
    for slot in range(size // 2):
        a, b = (order[2 * slot] - 1, order[2 * slot + 1] - 1)
        fixture = Fixture(0, slot, a if a < entries else None, b if b < entries else None)
        fixtures.append(fixture)
    round_, count = 1, size // 4
    while count >= 1:
        fixtures += [Fixture(round_, slot) for slot in range(count)]
        round_, count = round_ + 1, count // 2
    for fixture in fixtures[: size // 2]:
        if fixture.a is None or fixture.b is None:  # a bye
            fixture.winner = fixture.a if fixture.a is not None else fixture.b
            fixture.bye = True
    carry(fixtures)
    return fixtures


def carry(fixtures: Sequence[Fixture]) -> None:
    """Eliminación: each decided tie's winner into its place in the next round."""
    by_key = {f.key: f for f in fixtures}
    for fixture in fixtures:
        if not fixture.decided:
            continue
        after = by_key.get((fixture.round + 1, fixture.slot // 2))
        if after is None:
            continue
        if fixture.slot % 2 == 0:
            after.a = fixture.winner
        else:
            after.b = fixture.winner


class Knockout(Rules):
    format = Format.KNOCKOUT
    most = KNOCKOUT_MOST

    def lay_out(self, t: Bracket) -> list[Fixture]:
        return knockout(len(t.entries))

    def advance(self, t: Bracket) -> None:
        carry(t.fixtures)

    def champion(self, t: Bracket) -> int:
        final = max(t.fixtures, key=lambda f: f.round)
        assert final.winner is not None
        return final.winner

    def round_key(self, t: Bracket, round_: int) -> str:
        left = t.rounds - round_
        return {1: "round.final", 2: "round.semi", 3: "round.quarter", 4: "round.eighth"}.get(
            left, "round.nth"
        )

    def next_round(self, t: Bracket, fixture: Fixture) -> int | None:
        after = fixture.round + 1
        return after if fixture.decided and after < t.rounds else None


# -- liguilla -----------------------------------------------------------------------------------
def round_robin(entries: int) -> list[Fixture]:
    """A liguilla's fixtures, round by round (the circle method: each entry plays once a round,
    one rests when the number is odd)."""
    ring: list[int | None] = list(range(entries))
    if entries % 2:
        ring.append(None)
    count = len(ring)
    fixtures = []
    for round_ in range(count - 1):
        slot = 0
        for i in range(count // 2):
            a, b = ring[i], ring[count - 1 - i]
            if a is not None and b is not None:
                fixtures.append(Fixture(round_, slot, a, b))
                slot += 1
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return fixtures


def league_table(t: Bracket) -> list[Line]:
    """A liguilla's table: ties won, then the difference of points, then points for, then the
    tie between two entries level on all that, then the seed."""
    lines = {e: [0, 0, 0, 0] for e in range(len(t.entries))}
    for fixture in t.fixtures:
        if not fixture.decided or fixture.a is None or fixture.b is None:
            continue
        points = fixture.points()
        for side, entry in enumerate((fixture.a, fixture.b)):
            line = lines[entry]
            line[0] += 1
            line[1] += fixture.winner == entry
            line[2] += points[side]
            line[3] += points[1 - side]

    def level(entry: int) -> tuple[int, int, int]:
        _, won, pf, pa = lines[entry]
        return (won, pf - pa, pf)

    def head_to_head(entry: int) -> int:
        """1 if `entry` beat the only other entry level with it."""
        others = [e for e in lines if e != entry and level(e) == level(entry)]
        if len(others) != 1:
            return 0
        for fixture in t.fixtures:
            if {fixture.a, fixture.b} == {entry, others[0]} and fixture.decided:
                return int(fixture.winner == entry)
        return 0

    order = sorted(lines, key=lambda e: (*(-x for x in level(e)), -head_to_head(e), e))
    return [Line(e, lines[e][0], lines[e][1], lines[e][2], lines[e][3]) for e in order]


class League(Rules):
    format = Format.LEAGUE
    least = 3
    most = LEAGUE_MOST

    def lay_out(self, t: Bracket) -> list[Fixture]:
        return round_robin(len(t.entries))

    def champion(self, t: Bracket) -> int:
        return league_table(t)[0].entry

    def standings(self, t: Bracket) -> list[Line] | None:
        return league_table(t)

    def round_key(self, t: Bracket, round_: int) -> str:
        return "round.league"


# -- Swiss ------------------------------------------------------------------------------------
def swiss_table(t: Bracket) -> list[Line]:
    """A Swiss's table: the score (ties won, a bye counting as one), then Buchholz (the sum of
    the scores of the rivals met, a bye adding nothing), then the difference of points (a bye
    adding nothing), then the seed."""
    count = len(t.entries)
    played, won, byes = [0] * count, [0] * count, [0] * count
    made, let = [0] * count, [0] * count
    met: list[list[int]] = [[] for _ in range(count)]
    for fixture in t.fixtures:
        if not fixture.decided or fixture.winner is None:
            continue
        if fixture.bye:
            byes[fixture.winner] += 1
            continue
        assert fixture.a is not None and fixture.b is not None
        points = fixture.points()
        for side, (entry, rival) in enumerate(((fixture.a, fixture.b), (fixture.b, fixture.a))):
            played[entry] += 1
            won[entry] += fixture.winner == entry
            made[entry] += points[side]
            let[entry] += points[1 - side]
            met[entry].append(rival)
    score = [won[e] + byes[e] for e in range(count)]
    lines = [
        Line(e, played[e], won[e], made[e], let[e], byes[e], sum(score[r] for r in met[e]))
        for e in range(count)
    ]
    return sorted(lines, key=lambda x: (-x.score, -(x.buchholz or 0), -x.diff, x.entry))


def _pairs(
    ranked: Sequence[int], met: Sequence[set[int]], budget: list[int]
) -> list[tuple[int, int]] | None:
    """The best placed entry left against the next best placed it has not met, and so on down
    (backing up where the rest cannot be paired): None when no such pairing exists, or the
    search ran out of `budget`."""
    if not ranked:
        return []
    first, others = ranked[0], ranked[1:]
    for index, other in enumerate(others):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if other in met[first]:
            continue
        tail = _pairs([*others[:index], *others[index + 1 :]], met, budget)
        if tail is not None:
            return [(first, other), *tail]
    return None


def swiss_round(t: Bracket, round_: int) -> list[Fixture]:
    """Round `round_` of a Swiss, paired by the table as it stands: when the number is odd, a
    bye to the lowest placed entry that has not had one; then, down the table, each entry
    against the next one it has not met (a rematch only when no round without one exists).
    Of the two, the one that sat on side 0 (`a`: first to play) fewer times so far takes it;
    level on that, the one that did not last time; level again, the better placed."""
    ranked = [line.entry for line in swiss_table(t)]
    count = len(ranked)
    met: list[set[int]] = [set() for _ in range(count)]
    balance = [0] * count  # times at side 0 minus times at side 1
    last: dict[int, int] = {}  # entry -> the side it sat at in its last tie
    had_bye: set[int] = set()
    for fixture in sorted(t.fixtures, key=lambda f: f.key):
        if fixture.bye and fixture.winner is not None:
            had_bye.add(fixture.winner)
        elif fixture.a is not None and fixture.b is not None:
            met[fixture.a].add(fixture.b)
            met[fixture.b].add(fixture.a)
            balance[fixture.a] += 1
            balance[fixture.b] -= 1
            last[fixture.a], last[fixture.b] = 0, 1
    candidates: list[int | None] = [None]
    if count % 2:
        candidates = [e for e in reversed(ranked) if e not in had_bye] or list(reversed(ranked))
    pairs: list[tuple[int, int]] | None = None
    bye: int | None = None
    for strict in (True, False):
        for bye in candidates:
            rest = [e for e in ranked if e != bye]
            pairs = _pairs(rest, met if strict else [set() for _ in range(count)], [PAIRING_BUDGET])
            if pairs is not None:
                break
        if pairs is not None:
            break
    assert pairs is not None  # (without the no-rematch rule any even list pairs)
    place = {entry: index for index, entry in enumerate(ranked)}
    fixtures = []
    for slot, (x, y) in enumerate(pairs):
        a, b = sorted((x, y), key=lambda e: (balance[e], -last.get(e, 0), place[e]))
        fixtures.append(Fixture(round_, slot, a, b))
    if bye is not None:
        fixtures.append(Fixture(round_, len(pairs), bye, None, winner=bye, bye=True))
    return fixtures


class Swiss(Rules):
    format = Format.SWISS
    least = 3
    most = SWISS_MOST
    bye_scores = True
    pairs_as_it_goes = True

    def lay_out(self, t: Bracket) -> list[Fixture]:
        return swiss_round(t, 0)

    def advance(self, t: Bracket) -> None:
        """The last tie of a round decided: the next round paired (until the last one)."""
        if all(f.decided for f in t.fixtures) and t.rounds < self.total_rounds(t):
            t.fixtures += swiss_round(t, t.rounds)

    def over(self, t: Bracket, now: float | None = None) -> bool:
        return super().over(t) and t.rounds >= self.total_rounds(t)

    def champion(self, t: Bracket) -> int:
        return swiss_table(t)[0].entry

    def standings(self, t: Bracket) -> list[Line] | None:
        return swiss_table(t)

    def total_rounds(self, t: Bracket) -> int:
        """The rounds asked for, or the number that separates a winner (log2 of the entries,
        rounded up); never more than there are rivals to meet without a rematch."""
        count = len(t.entries)
        if count < 2:
            return t.planned or 1
        asked = t.planned or max(1, math.ceil(math.log2(count)))
        return min(asked, count - 1 if count % 2 == 0 else count)

    def rounds_told(self, t: Bracket) -> int | None:
        return self.total_rounds(t) if t.entries else t.planned or None

    def round_key(self, t: Bracket, round_: int) -> str:
        return "round.swiss"


# -- arena (relámpago) -----------------------------------------------------------------------
ARENA_MINUTES = (30, 60, 90)
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
    format = Format.ARENA
    least = 2
    most = SWISS_MOST
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


RULES: dict[Format, Rules] = {
    rules.format: rules for rules in (Knockout(), League(), Swiss(), Arena())
}
FORMATS = tuple(RULES)  # (the order the sign-up message's button goes round)
SWISS_ROUNDS = range(1, 10)  # the rounds a Swiss may be asked for
