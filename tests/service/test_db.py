"""The database door on both backends: transactions commit or roll back as one, writes at once
all land, and (SQLite) the write-ahead log is copied into the database file off the loop."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bot.storage.connect import open_database
from bot.storage.db import Conn, Database, Writer, is_conflict, is_postgres
from bot.storage.sqlite import SqliteDatabase
from tests.pg import Cluster


async def _names(db: Database) -> list[str]:
    return [r["name"] for r in await db.fetchall("SELECT name FROM players ORDER BY user_id")]


async def _add(conn: Conn, user_id: int, name: str) -> None:
    await conn.run(
        "INSERT INTO players (user_id, name, username, can_dm, updated_at)"
        " VALUES (?, ?, NULL, 1, 0)",
        (user_id, name),
    )


@pytest.mark.postgresql
async def test_a_transaction_commits_or_rolls_back_as_one(
    db_target: Path | str,
) -> None:
    db = await open_database(db_target)
    try:
        async with db.transaction() as conn:
            await _add(conn, 1, "Ana")
            await conn.executemany(
                "INSERT INTO players (user_id, name, username, can_dm, updated_at)"
                " VALUES (?, ?, NULL, 1, 0)",
                [(2, "Beto")],
            )
            # A read inside the transaction sees its own statements.
            found = await conn.fetchall("SELECT name FROM players ORDER BY user_id")
            assert [r["name"] for r in found] == ["Ana", "Beto"]
        assert await _names(db) == ["Ana", "Beto"]

        # A statement that fails undoes the ones before it.
        with pytest.raises(Exception) as refused:
            async with db.transaction() as conn:
                changed = await conn.execute("UPDATE players SET name = 'Ana M.' WHERE user_id = 1")
                assert changed == 1
                await _add(conn, 2, "Beto otra vez")  # the key is taken
        assert is_conflict(refused.value)
        assert await _names(db) == ["Ana", "Beto"]

        # A transaction given up by its caller leaves none open.
        with pytest.raises(RuntimeError):
            async with db.transaction() as conn:
                await _add(conn, 3, "Caro")
                raise RuntimeError("changed my mind")
        async with db.transaction() as conn:
            await _add(conn, 4, "Dani")
        assert await _names(db) == ["Ana", "Beto", "Dani"]

        # A writer (Database.write): its statements land when it ends.
        async def writer(conn: Conn) -> None:
            await _add(conn, 5, "Eva")

        await db.write(writer)
        assert await _names(db) == ["Ana", "Beto", "Dani", "Eva"]
    finally:
        await db.close()


@pytest.mark.postgresql
async def test_writes_at_once_all_land_and_each_hears_only_of_its_own_error(
    db_target: Path | str,
) -> None:
    db = await open_database(db_target)
    try:

        def adding(user_id: int, name: str) -> Writer:
            async def writer(conn: Conn) -> None:
                await _add(conn, user_id, name)
                await conn.run("UPDATE players SET can_dm = 0 WHERE user_id = ?", (user_id,))

            return writer

        # Two hundred writers at once, a move's transaction among them, and one writer whose
        # second statement breaks a key.
        async def move() -> None:
            async with db.transaction() as conn:
                await _add(conn, 1000, "Mano")

        # (the key it breaks was written before: were it one of the two hundred's, which of the
        # two came first would be the scheduler's choice, and the other would hear the error)
        await db.write(adding(9999, "Antes"))

        async def clash(conn: Conn) -> None:
            await _add(conn, 500, "Doble")
            await _add(conn, 9999, "otra vez 9999")

        names = {i: f"J{i}" for i in range(200)}
        outcomes = await asyncio.gather(
            *(db.write(adding(i, n)) for i, n in names.items()),
            move(),
            db.write(clash),
            return_exceptions=True,
        )
        assert outcomes[:201] == [None] * 201
        assert is_conflict(outcomes[201])  # type: ignore[arg-type]
        rows = await db.fetchall("SELECT user_id, name, can_dm FROM players ORDER BY user_id")
        landed = {r["user_id"]: (r["name"], r["can_dm"]) for r in rows}
        assert {i: landed[i] for i in names} == {i: (n, 0) for i, n in names.items()}
        assert landed[1000] == ("Mano", 1)
        assert landed[9999] == ("Antes", 0)
        if is_postgres(db_target):  # each statement commits: a failed writer's prefix stays
            assert landed[500] == ("Doble", 1)
        else:  # a writer is a transaction: all or nothing
            assert 500 not in landed
    finally:
        await db.close()


async def test_sqlite_log_starts_over_while_writes_go_on(tmp_path: Path) -> None:
    """The loop's connection never checkpoints (its fsyncs would stop the loop): a second
    connection does, in aiosqlite's thread, while the loop goes on writing. The log must still
    start over from its beginning now and then: a log that never did held every page ever
    written (2.4 GB after two minutes of the stack benchmark)."""
    db = await SqliteDatabase.connect(tmp_path / "wal.db", checkpoint_every=0.01)
    log_file = tmp_path / "wal.db-wal"
    try:
        (automatic,) = db.db.execute("PRAGMA wal_autocheckpoint").fetchone()
        assert automatic == 0
        commits, rounds = 0, db.rounds

        def log_holds_them_all() -> bool:
            # Each commit writes a page at least: a log that never started over holds them all.
            return log_file.stat().st_size >= commits * 4096 / 2

        deadline = time.monotonic() + 90
        # On a busy machine the checkpointer's first turns may come late (the log grows until
        # then), so the writes go on until the log is seen to have started over, or 90 s.
        while db.rounds < rounds + 5 or commits < 1000 or log_holds_them_all():
            assert time.monotonic() < deadline, (
                f"{db.rounds - rounds} rounds in 90 s, {commits} commits, "
                f"log {log_file.stat().st_size} bytes"
            )
            async with db.transaction() as conn:
                await _add(conn, commits, "x" * 500)
            commits += 1
            await asyncio.sleep(0)  # the checkpointer's turns come in between
        assert len(await _names(db)) == commits
    finally:
        await db.close()


async def test_a_report_reads_what_is_committed(db_target: Path | str) -> None:
    """The league's long reads go on a connection of their own (SQLite: aiosqlite's thread, off
    the loop): they see every commit, and nothing of a transaction still open."""
    db = await open_database(db_target)

    async def reported() -> list[str]:
        return [r["name"] for r in await db.report("SELECT name FROM players ORDER BY user_id")]

    try:
        async with db.transaction() as conn:
            await _add(conn, 1, "Ana")
        assert await reported() == ["Ana"]
        async with db.transaction() as conn:
            await _add(conn, 2, "Beto")
            found = await conn.fetchall("SELECT name FROM players ORDER BY user_id")
            assert [r["name"] for r in found] == ["Ana", "Beto"]
            assert await reported() == ["Ana"]
        assert await reported() == ["Ana", "Beto"]
    finally:
        await db.close()


async def test_a_full_disk_is_unavailable_rolls_back_whole_and_passes(tmp_path: Path) -> None:
    """SQLite's `max_page_count` caps the file: a write that needs another page fails as on a
    full disk. The transaction is refused whole (Unavailable: "try again in a moment"), and
    once there is room the same write goes through."""
    from bot.model.errors import Unavailable

    db = await open_database(tmp_path / "full.db")
    assert isinstance(db, SqliteDatabase)
    try:
        pages = db.db.execute("PRAGMA page_count").fetchone()[0]
        db.db.execute(f"PRAGMA max_page_count={pages}")

        async def big(conn: Conn) -> None:
            await _add(conn, 1, "Ana")
            await _add(conn, 2, "x" * 200_000)  # many pages' worth: the disk has none

        with pytest.raises(Unavailable, match="full"):
            await db.write(big)
        assert await _names(db) == []  # Ana's row went with it: nothing in part
        db.db.execute("PRAGMA max_page_count=1073741823")  # room again
        await db.write(big)
        assert await _names(db) == ["Ana", "x" * 200_000]
    finally:
        await db.close()


async def test_a_deadlock_postgresql_breaks_is_unavailable(pg_cluster: Cluster | None) -> None:
    """Two transactions that each wait for a row the other holds: PostgreSQL aborts one. That
    one is refused whole as Unavailable (a player is told to try again, not shown an internal
    error), and the other commits."""
    from bot.model.errors import Unavailable

    assert pg_cluster is not None, "PostgreSQL is part of the suite (.ci/run installs it)"
    db = await open_database(pg_cluster.new_database())
    try:
        for user_id, name in ((1, "Ana"), (2, "Beto")):
            async with db.transaction() as conn:
                await _add(conn, user_id, name)
        both_hold = asyncio.Barrier(2)

        async def rename(first: int, then: int) -> None:
            async with db.transaction() as conn:
                await conn.run("UPDATE players SET name = name || '+' WHERE user_id = ?", (first,))
                await both_hold.wait()
                await conn.run("UPDATE players SET name = name || '+' WHERE user_id = ?", (then,))

        done = await asyncio.wait_for(
            asyncio.gather(rename(1, 2), rename(2, 1), return_exceptions=True), 60.0
        )
        refused = [r for r in done if isinstance(r, Exception)]
        assert len(refused) == 1 and isinstance(refused[0], Unavailable), done
        assert "Deadlock" in str(refused[0])
        assert await _names(db) == ["Ana+", "Beto+"]  # the other one whole, the refused none
    finally:
        await db.close()
