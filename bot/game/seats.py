"""Who sits where: the one place that knows how seats make sides (R4, R28).

Seats are numbered 0.. n-1 in playing order (counter-clockwise, as the cards go round). Sides
alternate, so a seat's side is its parity; partners are the other seats of its side, rivals
the seats of the other; the seat opposite is half the table away (in 2v2 that is one's
partner, in 1v1 and 3v3 a rival: the two faces of a pica-pica duel). Everything outside the
engine asks `seats(n)` rather than doing arithmetic on seat numbers, so 2, 4 and 6 seats are
one code path.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

SEAT_COUNTS = (2, 4, 6)  # 1v1, 2v2, 3v3
MAX_SEATS = max(SEAT_COUNTS)
SIDES = (0, 1)


def side_of(seat: int) -> int:
    """R4: seats alternate sides."""
    return seat % 2


@dataclass(frozen=True, slots=True)
class Seats:
    """The geometry of a table of `count` seats. Build it with `seats(count)` (cached)."""

    count: int
    all: tuple[int, ...]
    sides: tuple[tuple[int, ...], tuple[int, ...]]  # the seats of side 0 and of side 1

    @property
    def team_size(self) -> int:
        """Players a side: 1, 2 or 3."""
        return self.count // 2

    @property
    def mode(self) -> str:
        """ "1v1", "2v2" or "3v3"."""
        return f"{self.team_size}v{self.team_size}"

    def side(self, seat: int) -> int:
        return seat % 2

    def of_side(self, side: int) -> tuple[int, ...]:
        """The seats of `side`, in seat order: the seats that may answer for it (R10)."""
        return self.sides[side]

    def partners(self, seat: int) -> tuple[int, ...]:
        """The other seats of `seat`'s side (none in 1v1), in playing order after it."""
        return tuple(s for s in self.order_from(seat) if s != seat and s % 2 == seat % 2)

    def rivals(self, seat: int) -> tuple[int, ...]:
        """The seats of the other side, in playing order after `seat`."""
        return tuple(s for s in self.order_from(seat) if s % 2 != seat % 2)

    def opposite(self, seat: int) -> int:
        """The seat across the table."""
        return (seat + self.count // 2) % self.count

    def next(self, seat: int) -> int:
        """Who plays after `seat` (R5: the turn goes round)."""
        return (seat + 1) % self.count

    def order_from(self, first: int) -> tuple[int, ...]:
        """Every seat, in playing order from `first`."""
        return tuple((first + i) % self.count for i in range(self.count))

    def team_of(self, seat: int) -> int:
        """A seat's team in the lobby (0 or 1): its side."""
        return seat % 2


@cache
def seats(count: int) -> Seats:
    """The table of `count` seats (2, 4 or 6)."""
    if count not in SEAT_COUNTS:
        raise ValueError(f"a table has 2, 4 or 6 seats, not {count}")
    every = tuple(range(count))
    return Seats(count, every, (every[0::2], every[1::2]))


@dataclass(frozen=True, slots=True)
class Duel(Seats):
    """A pica-pica duel (R39): two seats facing each other at a table of six, played as a 1v1
    hand; the other four take no part. Its sides are the two seats' own."""

    def next(self, seat: int) -> int:
        first, second = self.all
        return second if seat == first else first

    def order_from(self, first: int) -> tuple[int, ...]:
        return (first, self.next(first))

    def opposite(self, seat: int) -> int:
        return self.next(seat)


@cache
def duel(first: int, second: int) -> Duel:
    """The duel between seats `first` and `second` (of opposite sides)."""
    if first % 2 == second % 2:
        raise ValueError(f"seats {first} and {second} are partners: no duel")
    even, odd = (first, second) if first % 2 == 0 else (second, first)
    return Duel(2, (min(first, second), max(first, second)), ((even,), (odd,)))


def duel_pair(count: int, dealer: int, number: int) -> tuple[int, int]:
    """Duel `number` (0, 1, 2) of a pica-pica hand dealt by `dealer` (R39): the seat `number`
    places after the mano, and its opposite; the first of the two is the duel mano."""
    full = seats(count)
    first = full.order_from(full.next(dealer))[number]
    return first, full.opposite(first)


def mode_of(count: int) -> str:
    return seats(count).mode


def players_of(mode: str) -> int:
    """The seats of a mode named "1v1", "2v2" or "3v3" (ValueError for anything else)."""
    for count in SEAT_COUNTS:
        if seats(count).mode == mode:
            return count
    raise ValueError(f"not a mode: {mode!r}")
