"""The outbox on a real SQLite file: rows join their change's transaction, coalesce while they
wait, survive a restart, and each lane has one owner at a time."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from bot.model.outbox import POST, REFRESH, URGENT, Load, Outgoing
from bot.storage.connect import open_database
from bot.storage.db import Database
from bot.storage.outbox import OutboxStore
from tests.pg import Cluster
from tests.waiting import until_async


async def open_store(path: Path | str) -> tuple[Database, OutboxStore]:
    db = await open_database(path)
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


@pytest.mark.postgresql
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


async def test_a_lane_whose_lease_ran_out_stays_with_its_sender_while_it_lives(
    db_target: Path | str,
) -> None:
    """A lane's lease ran out while its sender's heartbeat goes on (a call in flight, a long
    wait for the budget): the lane is still that sender's, until its heartbeat runs out too."""
    db, store = await open_store(db_target)
    try:
        async with db.transaction() as conn:
            await store.enqueue(conn, [Outgoing(9, "text", {"text": "x"}, None, POST)], 0.0)
        assert await store.claim(9, "worker-a", 100.0, 15.0) == 0.0  # the lane until 115
        await store.beat("worker-a", 110.0, 15.0, Load(0.0, ()))  # alive until 125
        assert await store.claim(9, "worker-b", 120.0, 15.0) is None
        assert store.elsewhere[9] == 125.0  # (held until a's heartbeat runs out)
        assert await store.lanes_with_work("worker-b", 120.0) == []
        assert await store.lanes_with_work("worker-a", 120.0) == [9]
        assert await store.claim(9, "worker-b", 126.0, 15.0) == 0.0  # a is gone
    finally:
        await db.close()


async def test_marking_rows_sent_never_deadlocks_with_a_commit_that_bumps_them(
    pg_cluster: Cluster | None,
) -> None:
    """PostgreSQL: the sender marks the rows of several lanes sent in one statement while a
    game's commit bumps the same keyed rows (a new hand for every player). Both lock rows by
    chat, in the same order, so neither waits for the other in a cycle (a deadlock, which
    PostgreSQL breaks by aborting one of them: a player's tap lost, or an error in the log)."""
    assert pg_cluster is not None, "PostgreSQL is part of the suite (.ci/run installs it)"
    db = await open_database(pg_cluster.new_database())
    store = OutboxStore(db)
    try:
        hands = {chat: Outgoing(chat, "hand", {"u": chat}, "hand:1", REFRESH) for chat in (1, 2, 3)}
        for chat in (3, 2, 1):  # the ids run against the chats' order
            async with db.transaction() as conn:
                await store.enqueue(conn, [hands[chat]], 0.0)
        sent = [(await store.lane_rows(chat))[0] for chat in (3, 1, 2)]

        async def marking_blocked() -> bool:
            row = await db.fetchone(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query LIKE '%DELETE FROM outbox%'"
            )
            return row is not None and row["n"] > 0

        async with db.transaction() as conn:
            await store.enqueue(conn, [hands[1]], 1.0)  # the commit holds chat 1's hand
            marking = asyncio.create_task(store.complete_many([(r, None) for r in sent], "main"))
            await until_async(marking_blocked, within=30.0)  # it waits for chat 1's hand
            # ... and the commit goes on to chats 2 and 3: they must not be held by the marking
            await asyncio.wait_for(store.enqueue(conn, [hands[2], hands[3]], 1.0), 30.0)
        await asyncio.wait_for(marking, 30.0)
        rows = {chat: (await store.lane_rows(chat))[0] for chat in (1, 2, 3)}
        # every hand was bumped while it went out: it stays, to go out again as its new version
        assert {chat: r.version for chat, r in rows.items()} == {1: 2, 2: 2, 3: 2}
    finally:
        await db.close()


async def test_a_commit_waiting_for_one_chat_holds_none_after_it(
    pg_cluster: Cluster | None,
) -> None:
    """PostgreSQL: a commit bumps the keyed rows it writes in the order of their chats, whatever
    order it decided them in: waiting for chat 1's row, it holds no row of chat 2 (two commits
    that bump the same rows in opposite orders would otherwise deadlock)."""
    assert pg_cluster is not None, "PostgreSQL is part of the suite (.ci/run installs it)"
    db = await open_database(pg_cluster.new_database())
    store = OutboxStore(db)
    try:
        hands = {chat: Outgoing(chat, "hand", {"u": chat}, "hand:1", REFRESH) for chat in (1, 2)}
        async with db.transaction() as conn:
            await store.enqueue(conn, [hands[1], hands[2]], 0.0)

        async def commit_blocked() -> bool:
            row = await db.fetchone(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query LIKE '%INSERT INTO outbox%'"
            )
            return row is not None and row["n"] > 0

        async def chat_2_is_free() -> bool:
            try:
                async with db.transaction() as conn:
                    await conn.run("SET LOCAL lock_timeout = '100ms'")
                    await conn.run("SELECT id FROM outbox WHERE chat_id = 2 FOR UPDATE")
            except asyncpg.LockNotAvailableError:
                return False
            return True

        async def commit() -> None:  # decided chat 2's hand first
            async with db.transaction() as conn:
                await store.enqueue(conn, [hands[2], hands[1]], 1.0)

        async with db.transaction() as holder:  # another commit holds chat 1's hand
            await holder.run("SELECT id FROM outbox WHERE chat_id = 1 FOR UPDATE")
            bumping = asyncio.create_task(commit())
            await until_async(commit_blocked, within=30.0)
            assert await chat_2_is_free()
        await asyncio.wait_for(bumping, 30.0)
        assert [r.version for r in await store.lane_rows(1) + await store.lane_rows(2)] == [2, 2]
    finally:
        await db.close()
