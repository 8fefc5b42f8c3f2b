"""Sistema suizo: a few rounds, each paired by the score so far without rematches, laid out
one at a time (the next paired in the step that counts the result closing a round, so that it
is stored with that result and a crash repeats neither); a bye scores; the table's tie-break is
the Buchholz."""

from __future__ import annotations

import math
from collections.abc import Sequence

from bot.tourney.bracket import Bracket, Fixture, Format, Line
from bot.tourney.formats.base import Count, Page, Rules

SWISS_MOST = 32
PAIRING_BUDGET = 20_000  # steps of the search for a round without rematches before it gives up
SWISS_ROUNDS = range(1, 10)  # the rounds a Swiss may be asked for


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
    format = Format("suizo")
    offered = 2
    words = ("suizo", "swiss")
    count = Count("planned", SWISS_ROUNDS)
    page = Page(columns=("played", "points", "buchholz", "diff"))
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
