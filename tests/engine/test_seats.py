"""Who sits where, for 2, 4 and 6 seats: sides alternate (R4, R28), partners are the other
seats of one's side, rivals the other side's, each in playing order after the seat; the seat
opposite is half the table away (one's partner in 2v2, a rival in 1v1 and 3v3)."""

from __future__ import annotations

import pytest

from bot.game.seats import SEAT_COUNTS, mode_of, players_of, seats, side_of


def test_two_seats() -> None:
    table = seats(2)
    assert table.mode == "1v1" and table.team_size == 1
    assert table.sides == ((0,), (1,))
    assert table.partners(0) == () and table.partners(1) == ()
    assert table.rivals(0) == (1,) and table.rivals(1) == (0,)
    assert table.opposite(0) == 1 and table.opposite(1) == 0
    assert table.next(1) == 0
    assert table.order_from(1) == (1, 0)


def test_four_seats() -> None:
    table = seats(4)
    assert table.mode == "2v2" and table.team_size == 2
    assert table.of_side(0) == (0, 2) and table.of_side(1) == (1, 3)
    assert [table.partners(s) for s in range(4)] == [(2,), (3,), (0,), (1,)]
    assert [table.rivals(s) for s in range(4)] == [(1, 3), (2, 0), (3, 1), (0, 2)]
    assert [table.opposite(s) for s in range(4)] == [2, 3, 0, 1]  # one's partner
    assert table.order_from(2) == (2, 3, 0, 1)


def test_six_seats() -> None:
    table = seats(6)
    assert table.mode == "3v3" and table.team_size == 3
    assert table.of_side(0) == (0, 2, 4) and table.of_side(1) == (1, 3, 5)
    assert table.partners(0) == (2, 4) and table.partners(4) == (0, 2)
    assert table.partners(3) == (5, 1)
    assert table.rivals(0) == (1, 3, 5) and table.rivals(3) == (4, 0, 2)
    # Pica-pica's duels: each seat against the one across the table, always a rival.
    assert [table.opposite(s) for s in range(6)] == [3, 4, 5, 0, 1, 2]
    assert all(side_of(table.opposite(s)) != side_of(s) for s in range(6))
    assert table.next(5) == 0


@pytest.mark.parametrize("count", SEAT_COUNTS)
def test_every_table_is_made_the_same_way(count: int) -> None:
    table = seats(count)
    assert table.all == tuple(range(count))
    assert sorted(table.of_side(0) + table.of_side(1)) == list(range(count))
    for seat in table.all:
        assert table.side(seat) == side_of(seat) == seat % 2
        assert seat not in table.partners(seat)
        assert set(table.partners(seat)) | {seat} == set(table.of_side(side_of(seat)))
        assert set(table.rivals(seat)) == set(table.of_side(1 - side_of(seat)))
        assert len(table.partners(seat)) == table.team_size - 1
        assert table.order_from(seat)[0] == seat
        assert len(set(table.order_from(seat))) == count
    assert players_of(mode_of(count)) == count
    assert seats(count) is seats(count)  # built once


@pytest.mark.parametrize("count", [0, 1, 3, 5, 8])
def test_no_other_table(count: int) -> None:
    with pytest.raises(ValueError):
        seats(count)


@pytest.mark.parametrize("mode", ["0v0", "4v4", "1v2", "2x2", ""])
def test_no_other_mode(mode: str) -> None:
    with pytest.raises(ValueError):
        players_of(mode)
