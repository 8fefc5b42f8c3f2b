"""Eliminación directa: a bracket seeded so that the best meet as late as they can, byes to
the best seeds, each tie's winner carried into the next round; its rounds are named from the
final back (the final, the semifinals, the quarterfinals...), and the page draws its bracket."""

from __future__ import annotations

from collections.abc import Sequence

from bot.tourney.bracket import Bracket, Fixture, Format
from bot.tourney.formats.base import Page, Rules

KNOCKOUT_MOST = 32


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
    format = Format("ko")
    offered = 0
    words = ("ko", "eliminacion", "eliminación", "directa", "copa")
    page = Page(view="bracket")
    eliminates = True
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
