"""The only door to the database: SQLite (aiosqlite, the default) or PostgreSQL (asyncpg).

Everything above this module writes one dialect: SQLite's, with `?` placeholders, restricted to
what PostgreSQL also understands (`INSERT ... ON CONFLICT`, `RETURNING`, `CASE`, no `OR IGNORE`,
no sums of booleans). For PostgreSQL the placeholders become `$1, $2, ...` and the migrations'
column types are widened (`INTEGER` to `BIGINT`: Telegram's ids do not fit 32 bits; `REAL` to
`DOUBLE PRECISION`; an autoincrement key to `BIGSERIAL`). Callers get a `Conn` either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import aiosqlite

from bot.storage.migrations import MIGRATIONS


class DatabaseTooNewError(RuntimeError):
    """The database was written by a newer version of the bot."""


class Row(Protocol):
    """A result row: by column name or position (aiosqlite.Row and asyncpg.Record both)."""

    def __getitem__(self, key: str | int) -> Any: ...

    def keys(self) -> Iterable[str]: ...


class Conn(Protocol):
    """One connection inside a transaction (or autocommitting, in `Database.write`)."""

    # False for a `Database.write` writer on SQLite: its statements go later, batched with
    # other writers', so it can state (`run`, `executemany`) but read nothing back.
    answers: bool

    async def execute(self, sql: str, args: Sequence[object] = ()) -> int: ...

    async def run(self, sql: str, args: Sequence[object] = ()) -> None:
        """A statement whose result nobody reads: SQLite may hold it to go out with the next one
        (by the transaction's end at the latest); an error in it may surface there."""

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None: ...

    async def fetchall(self, sql: str, args: Sequence[object] = ()) -> list[Row]: ...

    async def fetchone(self, sql: str, args: Sequence[object] = ()) -> Row | None: ...

    async def lock(self, space: int, key: int) -> None:
        """Serialize this transaction with every other that locks (space, key), until it ends
        (SQLite's writes are one at a time already; PostgreSQL takes an advisory lock)."""


Writer = Callable[[Conn], Awaitable[None]]


def is_conflict(error: BaseException) -> bool:
    """A unique constraint refused a row (SQLite's or PostgreSQL's error)."""
    if isinstance(error, sqlite3.IntegrityError):
        return "UNIQUE" in str(error)
    return type(error).__name__ == "UniqueViolationError"


def is_postgres(url: str | Path) -> bool:
    return isinstance(url, str) and url.startswith(("postgresql://", "postgres://"))


class Database:
    """Writes go through `transaction()` (or `write()`); reads through `fetchone`/`fetchall`."""

    dialect = "sqlite"
    # Other processes may write to it too (PostgreSQL): nothing read from it stays true.
    shared = False

    @staticmethod
    async def open(where: str | Path) -> Database:
        """A file path (SQLite) or a `postgresql://` URL."""
        if is_postgres(where):
            return await PostgresDatabase.connect(str(where))
        return await SqliteDatabase.connect(where)

    async def close(self) -> None:
        raise NotImplementedError

    def transaction(self) -> Any:  # an async context manager yielding a Conn
        raise NotImplementedError

    async def write(self, writer: Writer) -> None:
        raise NotImplementedError

    async def fetchone(self, sql: str, *args: object) -> Row | None:
        raise NotImplementedError

    async def fetchall(self, sql: str, *args: object) -> list[Row]:
        raise NotImplementedError


# -- SQLite --------------------------------------------------------------------------------------
_ONE, _MANY, _FETCH = 0, 1, 2
_Op = tuple[str, Any, int]


def _run_ops(db: sqlite3.Connection, ops: list[_Op]) -> Any:
    """In aiosqlite's thread: the statements in order; what the last one returns (its rows,
    or the number of rows it changed)."""
    result: Any = None
    for sql, args, how in ops:
        if how == _MANY:
            db.executemany(sql, args)
            result = None
        else:
            cursor = db.execute(sql, args)
            result = cursor.fetchall() if how == _FETCH else cursor.rowcount
    return result


async def _in_thread(conn: aiosqlite.Connection, call: Callable[[sqlite3.Connection], Any]) -> Any:
    """Run `call` on the connection in aiosqlite's thread, after what is queued there: the way
    each of its public methods goes, which have no form for several statements at once."""
    return await conn._execute(call, conn._conn)  # type: ignore[no-untyped-call]


def _run_each(db: sqlite3.Connection, batches: list[list[_Op]]) -> list[BaseException | None]:
    """In aiosqlite's thread: several writers' statements, autocommitted, each writer's error
    kept for it alone (what one writer got wrong does not stop the next)."""
    outcomes: list[BaseException | None] = []
    for ops in batches:
        try:
            _run_ops(db, ops)
            outcomes.append(None)
        except Exception as error:  # handed to the writer that caused it
            outcomes.append(error)
    return outcomes


_READS_NOTHING = "Database.write: a writer states (run, executemany), it reads nothing"


class _Statements:
    """The Conn a `Database.write` writer gets: it only collects statements, to be run later
    with other writers' in one go. Reading here is a mistake (the writer would read before
    its own statements ran), so it raises."""

    answers = False

    def __init__(self) -> None:
        self.ops: list[_Op] = []

    async def run(self, sql: str, args: Sequence[object] = ()) -> None:
        self.ops.append((sql, tuple(args), _ONE))

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self.ops.append((sql, [tuple(r) for r in rows], _MANY))

    async def execute(self, sql: str, args: Sequence[object] = ()) -> int:
        raise TypeError(_READS_NOTHING)

    async def fetchall(self, sql: str, args: Sequence[object] = ()) -> list[Row]:
        raise TypeError(_READS_NOTHING)

    async def fetchone(self, sql: str, args: Sequence[object] = ()) -> Row | None:
        raise TypeError(_READS_NOTHING)

    async def lock(self, space: int, key: int) -> None:
        raise TypeError("Database.write: no transaction to lock in; use Database.transaction")


def _rollback(db: sqlite3.Connection) -> None:
    if db.in_transaction:  # a BEGIN that never went out left nothing to undo
        db.execute("ROLLBACK")


class _SqliteConn:
    """Statements whose result nobody reads (`run`, `executemany`, a transaction's BEGIN) wait
    and go to aiosqlite's thread with the next statement that answers something, or with the
    COMMIT: each trip to that thread costs more CPU than the statement it carries (a move's
    transaction went from five trips to two)."""

    answers = True

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        self._pending: list[_Op] = []

    def defer(self, sql: str, args: Any = (), how: int = _ONE) -> None:
        self._pending.append((sql, args, how))

    async def trip(self, sql: str | None = None, args: Any = (), how: int = _ONE) -> Any:
        """The waiting statements and this one, in one trip."""
        ops, self._pending = self._pending, []
        if sql is not None:
            ops.append((sql, args, how))
        if not ops:
            return None
        return await _in_thread(self._conn, lambda db: _run_ops(db, ops))

    async def execute(self, sql: str, args: Sequence[object] = ()) -> int:
        return int(await self.trip(sql, tuple(args)))

    async def run(self, sql: str, args: Sequence[object] = ()) -> None:
        self.defer(sql, tuple(args))

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self.defer(sql, [tuple(r) for r in rows], _MANY)

    async def fetchall(self, sql: str, args: Sequence[object] = ()) -> list[Row]:
        return list(await self.trip(sql, tuple(args), _FETCH))

    async def fetchone(self, sql: str, args: Sequence[object] = ()) -> Row | None:
        found = await self.fetchall(sql, args)  # the queries here read one row, or a few
        return found[0] if found else None

    async def lock(self, space: int, key: int) -> None:
        return None  # BEGIN IMMEDIATE: one writer at a time


class SqliteDatabase(Database):
    """One aiosqlite connection, WAL; writes one at a time (`BEGIN IMMEDIATE`)."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn
        self._reader = _SqliteConn(conn)  # reads defer nothing: it never holds a statement
        self._write_lock = asyncio.Lock()
        self._writes: list[tuple[list[_Op], asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None

    @staticmethod
    async def connect(path: str | Path) -> SqliteDatabase:
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            conn.row_factory = aiosqlite.Row
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute("PRAGMA foreign_keys=ON")
            await conn.execute("PRAGMA busy_timeout=5000")
            await conn.execute("PRAGMA synchronous=NORMAL")
            db = SqliteDatabase(conn)
            await db.migrate()
        except BaseException:
            await conn.close()  # its thread would keep the process alive
            raise
        return db

    async def close(self) -> None:
        if self._flusher is not None and not self._flusher.done():
            with contextlib.suppress(Exception):
                await self._flusher  # the writes already asked for still go
        await self.conn.close()

    async def migrate(self) -> None:
        async with self.conn.execute("PRAGMA user_version") as cursor:
            row = await cursor.fetchone()
        current = int(row[0]) if row else 0
        if current > len(MIGRATIONS):
            raise DatabaseTooNewError(
                f"database schema {current} is newer than this code ({len(MIGRATIONS)})"
            )
        for number, script in enumerate(MIGRATIONS[current:], start=current + 1):
            async with self._write_lock:
                await self.conn.execute("BEGIN IMMEDIATE")
                try:
                    for statement in script.split(";\n"):
                        if statement.strip():
                            await self.conn.execute(statement)
                    await self.conn.execute(f"PRAGMA user_version={number}")
                    await self.conn.execute("COMMIT")
                except BaseException:
                    await self.conn.execute("ROLLBACK")
                    raise

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        async with self._write_lock:
            conn = _SqliteConn(self.conn)
            conn.defer("BEGIN IMMEDIATE")  # goes out with the first statement
            try:
                yield conn
                await conn.trip("COMMIT")
            except BaseException:
                # Queued behind whatever is still running in aiosqlite's thread.
                await _in_thread(self.conn, _rollback)
                raise

    async def write(self, writer: Writer) -> None:
        """Writes that need no transaction of their own (a single statement, or statements any
        prefix of which is harmless to keep), autocommitted, taken in turn with transactions.
        The writes that arrive while the connection is busy go together in one trip to
        aiosqlite's thread (the outbox marks a call done after each of a thousand calls a
        second: one trip each kept every other write waiting in line)."""
        collected = _Statements()
        await writer(collected)
        if not collected.ops:
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._writes.append((collected.ops, done))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush())
        await done

    async def _flush(self) -> None:
        while self._writes:
            async with self._write_lock:
                batch, self._writes = self._writes, []
                run = functools.partial(_run_each, batches=[ops for ops, _ in batch])
                try:
                    outcomes = await _in_thread(self.conn, run)
                except Exception as error:  # the connection itself failed: all of them hear
                    outcomes = [error] * len(batch)
                except BaseException:  # cancelled (we stop): so are the writers waiting here
                    for _, done in batch:
                        done.cancel()
                    raise
            for (_, done), outcome in zip(batch, outcomes, strict=True):
                if done.done():
                    continue  # its writer was cancelled; the statements ran all the same
                if outcome is None:
                    done.set_result(None)
                else:
                    done.set_exception(outcome)

    async def fetchone(self, sql: str, *args: object) -> Row | None:
        return await self._reader.fetchone(sql, args)

    async def fetchall(self, sql: str, *args: object) -> list[Row]:
        return await self._reader.fetchall(sql, args)


# -- PostgreSQL ----------------------------------------------------------------------------------
_PLACEHOLDER = re.compile(r"'(?:[^']|'')*'|\?")  # a string literal, or a placeholder


def to_postgres(sql: str) -> str:
    """`?` placeholders become `$1, $2, ...`; a `?` inside a string literal stays."""
    count = 0

    def number(match: re.Match[str]) -> str:
        nonlocal count
        if match.group(0) != "?":
            return match.group(0)
        count += 1
        return f"${count}"

    return _cached(sql, number)


_translated: dict[str, str] = {}


def _cached(sql: str, number: Callable[[re.Match[str]], str]) -> str:
    found = _translated.get(sql)
    if found is None:
        if len(_translated) > 4096:
            _translated.clear()
        found = _translated[sql] = _PLACEHOLDER.sub(number, sql)
    return found


def postgres_ddl(script: str) -> str:
    """A migration written for SQLite, with PostgreSQL's column types."""
    script = re.sub(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b", "BIGSERIAL PRIMARY KEY", script)
    script = re.sub(r"\bINTEGER\b", "BIGINT", script)
    return re.sub(r"\bREAL\b", "DOUBLE PRECISION", script)


def _rowcount(status: str) -> int:
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class _PgConn:
    answers = True

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def execute(self, sql: str, args: Sequence[object] = ()) -> int:
        return _rowcount(await self._conn.execute(to_postgres(sql), *args))

    async def run(self, sql: str, args: Sequence[object] = ()) -> None:
        await self._conn.execute(to_postgres(sql), *args)

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        await self._conn.executemany(to_postgres(sql), [tuple(r) for r in rows])

    async def fetchall(self, sql: str, args: Sequence[object] = ()) -> list[Row]:
        return list(await self._conn.fetch(to_postgres(sql), *args))

    async def fetchone(self, sql: str, args: Sequence[object] = ()) -> Row | None:
        found: Row | None = await self._conn.fetchrow(to_postgres(sql), *args)
        return found

    async def lock(self, space: int, key: int) -> None:
        # Two 32-bit keys: the space, and the key folded into 32 bits (a collision only
        # makes two unrelated transactions wait for each other).
        folded = (key ^ (key >> 32)) & 0x7FFF_FFFF
        await self._conn.execute("SELECT pg_advisory_xact_lock($1::int, $2::int)", space, folded)


MIGRATION_LOCK = 0x7472_7563  # "truc": one process migrates at a time


class PostgresDatabase(Database):
    """A pool of asyncpg connections; each transaction on a connection of its own."""

    dialect = "postgresql"
    shared = True

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    @staticmethod
    async def connect(url: str) -> PostgresDatabase:
        import asyncpg  # only needed with PostgreSQL

        pool = await asyncpg.create_pool(url, min_size=1, max_size=10)
        db = PostgresDatabase(pool)
        try:
            await db.migrate()
        except BaseException:
            await pool.close()
            raise
        return db

    async def close(self) -> None:
        await self.pool.close()

    async def migrate(self) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT)")
            current = await conn.fetchval("SELECT max(version) FROM schema_version") or 0
            if current > len(MIGRATIONS):
                raise DatabaseTooNewError(
                    f"database schema {current} is newer than this code ({len(MIGRATIONS)})"
                )
            for number, script in enumerate(MIGRATIONS[current:], start=current + 1):
                for statement in postgres_ddl(script).split(";\n"):
                    if statement.strip():
                        await conn.execute(statement)
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", number)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        async with self.pool.acquire() as conn, conn.transaction():
            yield _PgConn(conn)

    async def write(self, writer: Writer) -> None:
        async with self.pool.acquire() as conn:
            await writer(_PgConn(conn))  # each statement is a round trip: it may read, too

    async def fetchone(self, sql: str, *args: object) -> Row | None:
        found: Row | None = await self.pool.fetchrow(to_postgres(sql), *args)
        return found

    async def fetchall(self, sql: str, *args: object) -> list[Row]:
        return list(await self.pool.fetch(to_postgres(sql), *args))
