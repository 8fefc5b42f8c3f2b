"""The outbox on a real SQLite file: rows join their change's transaction, coalesce while they
wait, survive a restart, and each lane has one owner at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage.db import Database
from bot.storage.outbox import POST, REFRESH, URGENT, OutboxStore, Outgoing


async def open_store(path: Path | str) -> tuple[Database, OutboxStore]:
    db = await Database.open(path)
    return db, OutboxStore(db)


async def test_rows_are_part_of_the_transaction_that_decided_them(db_target: Path | str) -> None:
    db, store = await open_store(db_target)
    try:
        with pytest.raises(RuntimeError):
            async with db.transaction() as conn:
                await store.enqueue(conn, [Outgoing(-1, "text", {"text": "hola"})], 0.0)
                raise RuntimeError("the change failed")
        assert await store.waiting() == 0  # rolled back with it
        async with db.transaction() as conn:
            await store.enqueue(conn, [Outgoing(-1, "text", {"text": "hola"})], 0.0)
    finally:
        await db.close()
    db, store = await open_store(db_target)  # a restart finds it
    try:
        rows = await store.lane_rows(-1)
        assert [r.payload for r in rows] == [{"text": "hola"}]
    finally:
        await db.close()


async def test_keyed_rows_coalesce_and_a_bump_during_delivery_sends_again(
    db_target: Path | str,
) -> None:
    db, store = await open_store(db_target)
    try:
        board = Outgoing(-5, "board", {"t": 1}, "board:1", REFRESH)
        async with db.transaction() as conn:
            await store.enqueue(conn, [Outgoing(-5, "text", {"text": "a"}), board, board], 0.0)
        rows = await store.lane_rows(-5)
        assert [(r.kind, r.version) for r in rows] == [("text", 1), ("board", 2)]
        taken = rows[1]
        async with db.transaction() as conn:  # a new state while the board is being sent
            await store.enqueue(conn, [board], 0.0)
        async with db.transaction() as conn:
            await store.complete(conn, taken, "me", None)
        again = [r for r in await store.lane_rows(-5) if r.kind == "board"]
        assert len(again) == 1 and again[0].version == 3  # goes out once more
        async with db.transaction() as conn:
            await store.complete(conn, again[0], "me", None)
        assert [r.kind for r in await store.lane_rows(-5)] == ["text"]
    finally:
        await db.close()


async def test_loud_is_remembered_until_a_loud_delivery(db_target: Path | str) -> None:
    db, store = await open_store(db_target)
    try:
        quiet = Outgoing(7, "hand", {"t": 1, "u": 7}, "hand:1", REFRESH)
        loud = Outgoing(7, "hand", {"t": 1, "u": 7}, "hand:1", URGENT, loud=True)
        async with db.transaction() as conn:
            await store.enqueue(conn, [quiet], 0.0)
        (row,) = await store.lane_rows(7)
        assert not row.loud and row.priority == REFRESH
        async with db.transaction() as conn:
            await store.enqueue(conn, [loud, quiet], 0.0)
        (row,) = await store.lane_rows(7)
        assert row.loud and row.priority == URGENT  # a later quiet one does not undo it
        async with db.transaction() as conn:
            await store.enqueue(conn, [quiet], 0.0)  # bumped while the loud one goes out
            await store.complete(conn, row, "me", None)
        (row,) = await store.lane_rows(7)
        assert not row.loud  # the loud delivery happened: the next one only edits
    finally:
        await db.close()


async def test_a_lane_has_one_owner_until_its_lease_ends(db_target: Path | str) -> None:
    db, store = await open_store(db_target)
    try:
        async with db.transaction() as conn:
            await store.enqueue(conn, [Outgoing(-9, "text", {"text": "x"}, None, POST)], 0.0)
        assert await store.claim(-9, "worker-a", 100.0, 15.0) == 0.0
        assert await store.claim(-9, "worker-b", 110.0, 15.0) is None  # a holds it
        assert await store.lanes_with_work("worker-b", 110.0) == []
        assert await store.lanes_with_work("worker-a", 110.0) == [-9]
        assert await store.claim(-9, "worker-a", 110.0, 15.0) == 0.0  # a restarted a: at once
        assert await store.claim(-9, "worker-b", 126.0, 15.0) == 0.0  # a's lease ran out
        assert await store.lanes_with_work("worker-a", 130.0) == []
    finally:
        await db.close()
