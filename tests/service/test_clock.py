"""The database's clock (`Database.now`), which every worker stamps and compares shared times
with: on PostgreSQL the server's, read from a process whose own wall clock is 5 minutes off;
of several readings, the one of the shortest round trip is believed."""

from __future__ import annotations

import time

import pytest

from bot.storage.connect import open_database
from bot.storage.postgres import DatabaseClock
from tests.pg import INSTALL_HINT, Cluster


def test_the_reading_of_the_shortest_round_trip_is_believed() -> None:
    clock = DatabaseClock()
    clock.reading(10.0, 1_000.5, 11.0)  # a round trip of 1 s: the server said it at 10.5
    assert clock.offset == 990.0
    clock.reading(20.0, 1_012.0, 24.0)  # 4 s (a busy loop): off by 2 s at most, not believed
    assert clock.offset == 990.0
    clock.reading(30.0, 1_020.1, 30.2)  # 0.2 s: the best bound, believed
    assert clock.offset == pytest.approx(990.0)
    for at in range(40, 100, 10):  # the short one ages out of the readings kept
        clock.reading(float(at), at + 991.0, at + 0.5)
    assert clock.offset == pytest.approx(990.75)


async def test_a_process_whose_clock_is_off_reads_the_servers(
    pg_cluster: Cluster | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if pg_cluster is None:
        pytest.skip(INSTALL_HINT)
    url = pg_cluster.new_database()
    wall = time.time
    monkeypatch.setattr(time, "time", lambda: wall() + 300.0)  # this machine 5 minutes ahead
    db = await open_database(url)
    try:
        before = db.now()
        found = await db.fetchone("SELECT extract(epoch FROM clock_timestamp())::float8 AS t")
        after = db.now()
        assert found is not None
        # (the server's moment lies inside the round trip; a reading's error is half of one)
        assert before - 0.25 <= found["t"] <= after + 0.25, (before, found["t"], after)
    finally:
        await db.close()
        pg_cluster.release(url)
