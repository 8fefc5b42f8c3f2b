"""SQLite, the default dialect: one connection in WAL on the event loop's own thread, and
aiosqlite's, in its thread, for what may take long (checkpoints, reports)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

from bot.model.errors import Unavailable
from bot.storage.db import (
    Conn,
    Database,
    DatabaseTooNewError,
    Meter,
    Row,
    Writer,
    check_schema,
    kind_of,
)
from bot.storage.migrations import MIGRATIONS, script_of

log = logging.getLogger(__name__)


def preflight_sqlite(where: str | Path) -> str | None:
    """Whether this code can use the SQLite file: open it, see that it knows its schema, and
    write to it (a throw-away connection: nothing to clean up when it fails). None, or what is
    wrong."""
    try:
        conn = sqlite3.connect(str(where), isolation_level=None, timeout=5)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            check_schema(int(conn.execute("PRAGMA user_version").fetchone()[0]))
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("CREATE TABLE IF NOT EXISTS write_check (x INTEGER)")
            conn.execute("DROP TABLE write_check")
            conn.execute("COMMIT")
        finally:
            conn.close()
    except DatabaseTooNewError as error:
        return f"{error} ({where})"
    except (sqlite3.Error, OSError) as error:
        return f"cannot use the database {where}: {error}"
    return None


class _SqliteConn:
    """Statements on the event loop's own thread (see `SqliteDatabase`)."""

    def __init__(self, db: sqlite3.Connection, meter: Meter) -> None:
        self._db = db
        self._meter = meter

    async def execute(self, sql: str, args: Sequence[object] = ()) -> int:
        self._meter.trip(kind_of(sql))
        return self._db.execute(sql, args).rowcount

    async def run(self, sql: str, args: Sequence[object] = ()) -> None:
        self._meter.trip(kind_of(sql))
        self._db.execute(sql, args)

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self._meter.trip(kind_of(sql))
        self._db.executemany(sql, rows)

    async def fetchall(self, sql: str, args: Sequence[object] = ()) -> list[Row]:
        self._meter.trip(kind_of(sql))
        return self._db.execute(sql, args).fetchall()

    async def fetchone(self, sql: str, args: Sequence[object] = ()) -> Row | None:
        self._meter.trip(kind_of(sql))
        found: Row | None = self._db.execute(sql, args).fetchone()
        return found

    async def lock(self, space: int, key: int) -> None:
        return None  # BEGIN IMMEDIATE: one writer at a time


LOOP_BUSY_MS = 20  # what SQLite itself waits for a lock on the loop's connection, at most
LOCK_WAIT = 30.0  # how long a write waits (without blocking) for another process's lock


def _is_locked(error: sqlite3.OperationalError) -> bool:
    text = str(error).lower()
    return "locked" in text or "busy" in text


def _rollback(db: sqlite3.Connection) -> None:
    if db.in_transaction:
        db.execute("ROLLBACK")


class SqliteDatabase(Database):
    """One SQLite connection, WAL, used on the event loop's own thread; writes one at a time
    (`BEGIN IMMEDIATE`).

    The bot's statements are short (a table's row, a few outbox rows, an indexed read) and,
    in WAL with synchronous=NORMAL, a commit writes to the log without waiting for the disk.
    Sent to a thread (aiosqlite's), each such statement cost more than it did: a hop there and
    back, two wake-ups, and the two threads taking the GIL from each other under load
    (docs/performance.md).

    What may take long is not done here but on a second connection, aiosqlite's, in its own
    thread: copying the log into the database file (a checkpoint, with its fsyncs; SQLite's
    automatic one is off on the loop's connection), after writes and at most once every
    `checkpoint_every` seconds (see `_checkpoints`); and `report`, the league's sums over a
    group's history."""

    def __init__(self, db: sqlite3.Connection, path: str, checkpoint_every: float = 1.0) -> None:
        self.db = db
        self.lock_wait = LOCK_WAIT
        self.meter = Meter()
        self._conn = _SqliteConn(db, self.meter)
        self._path = path
        self._write_lock = asyncio.Lock()
        self.checkpoint_every = checkpoint_every
        self.rounds = 0  # checkpoint rounds done
        self._written = asyncio.Event()
        self._side: aiosqlite.Connection | None = None
        self._checkpointer: asyncio.Task[None] | None = None

    @staticmethod
    async def connect(path: str | Path, checkpoint_every: float = 1.0) -> SqliteDatabase:
        db = sqlite3.connect(str(path), isolation_level=None)
        side: aiosqlite.Connection | None = None
        try:
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA foreign_keys=ON")
            # The loop's connection never waits long for a lock (it would freeze every table):
            # a write that finds the database locked tries again later, without blocking.
            db.execute(f"PRAGMA busy_timeout={LOOP_BUSY_MS}")
            db.execute("PRAGMA synchronous=NORMAL")
            database = SqliteDatabase(db, str(path), checkpoint_every)
            await database.migrate()
            if str(path) != ":memory:":
                db.execute("PRAGMA wal_autocheckpoint=0")
                db.execute(f"PRAGMA journal_size_limit={64 << 20}")  # cut back after a burst
                side = database._side = await aiosqlite.connect(str(path))
                side.row_factory = aiosqlite.Row
                await side.execute("PRAGMA busy_timeout=5000")
                loop = asyncio.get_running_loop()
                database._checkpointer = loop.create_task(database._checkpoints(side))
        except BaseException:
            if side is not None:
                await side.close()  # its thread would keep the process alive
            db.close()
            raise
        return database

    async def _checkpoints(self, side: aiosqlite.Connection) -> None:
        """Copy the log into the database file after writes, in aiosqlite's thread. A
        checkpoint copies what the log held when it began; while the loop keeps writing, the
        log is never all copied, so it never starts over and would grow without end
        (docs/performance.md). So, each round, a first pass copies the
        bulk while writes go on, and a second pass, with the writers held off (they wait on
        the write lock; the loop itself goes on), copies the little written meanwhile: then the
        next write starts the log over from its beginning."""
        while True:
            await self._written.wait()
            self._written.clear()
            try:
                await self._checkpoint(side)
                async with self._write_lock:
                    await self._checkpoint(side)
                self.rounds += 1
            except Exception:  # a full disk, say: the bot goes on, the log waits for the next
                log.warning("checkpoint failed; the log grows until the next", exc_info=True)
            await asyncio.sleep(self.checkpoint_every)

    @staticmethod
    async def _checkpoint(side: aiosqlite.Connection) -> None:
        await side.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)")

    async def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpointer
        if self._side is not None:
            await self._side.close()
        self.db.close()  # the last connection: SQLite checkpoints what is left

    async def migrate(self) -> None:
        row = self.db.execute("PRAGMA user_version").fetchone()
        current = int(row[0]) if row else 0
        check_schema(current)
        for number, migration in enumerate(MIGRATIONS[current:], start=current + 1):
            async with self.transaction():
                for statement in script_of(migration, "sqlite").split(";\n"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version={number}")

    async def _begin(self) -> None:
        """BEGIN IMMEDIATE, waiting without blocking the loop while another process holds the
        write lock (SQLite's own wait, `busy_timeout`, would block the whole bot)."""
        deadline = time.monotonic() + self.lock_wait
        pause = 0.01
        while True:
            try:
                self.db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as error:
                if not _is_locked(error) or time.monotonic() + pause > deadline:
                    raise Unavailable(f"{type(error).__name__}: {error}") from error
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.25)

    @asynccontextmanager
    async def transaction(self, durable: bool = False) -> AsyncIterator[Conn]:
        async with self._write_lock:
            if durable:  # this commit waits for the disk (once a match, at its end)
                self.db.execute("PRAGMA synchronous=FULL")
            try:
                await self._begin()
                self.meter.transactions += 1
                self.meter.trip("BEGIN")
                try:
                    yield self._conn
                    self.meter.trip("COMMIT")
                    self.db.execute("COMMIT")
                except (sqlite3.OperationalError, sqlite3.DatabaseError) as error:
                    _rollback(self.db)
                    if isinstance(error, sqlite3.IntegrityError):
                        raise
                    raise Unavailable(f"{type(error).__name__}: {error}") from error
                except BaseException:
                    _rollback(self.db)
                    raise
            finally:
                if durable:
                    self.db.execute("PRAGMA synchronous=NORMAL")
            self._written.set()

    async def write(self, writer: Writer) -> None:
        """A writer's statements, in a transaction of their own. (Committing the writes of one
        turn of the loop together, each in a savepoint, was no cheaper: docs/performance.md.)"""
        async with self.transaction() as conn:
            await writer(conn)

    async def fetchone(self, sql: str, *args: object) -> Row | None:
        return await self._conn.fetchone(sql, args)

    async def fetchall(self, sql: str, *args: object) -> list[Row]:
        return await self._conn.fetchall(sql, args)

    async def report(self, sql: str, *args: object) -> list[Row]:
        if self._side is None:
            return await self.fetchall(sql, *args)
        return list(await self._side.execute_fetchall(sql, args))
