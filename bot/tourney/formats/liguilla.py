"""Liguilla: everyone against everyone, round by round (one rests when the number is odd);
its table of standings decides the champion."""

from __future__ import annotations

from bot.tourney.bracket import Bracket, Fixture, Format, Line
from bot.tourney.formats.base import Rules

LEAGUE_MOST = 8  # a liguilla of 8 is 28 fixtures: about the most a night holds


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
    format = Format("liga")
    offered = 1
    words = ("liga", "liguilla", "todoscontratodos")
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
