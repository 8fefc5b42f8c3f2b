"""The only door to the database: SQLite (the default) or PostgreSQL (asyncpg).

Everything above this module writes one dialect: SQLite's, with `?` placeholders, restricted to
what PostgreSQL also understands (`INSERT ... ON CONFLICT`, `RETURNING`, `CASE`, no `OR IGNORE`,
no sums of booleans). For PostgreSQL the placeholders become `$1, $2, ...` and the migrations'
column types are widened (`INTEGER` to `BIGINT`: Telegram's ids do not fit 32 bits; `REAL` to
`DOUBLE PRECISION`; an autoincrement key to `BIGSERIAL`). Callers get a `Conn` either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import sqlite3
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import aiosqlite

from bot.model.errors import Unavailable
from bot.storage.migrations import MIGRATIONS, script_of

log = logging.getLogger(__name__)


class DatabaseTooNewError(RuntimeError):
    """The database was written by a newer version of the bot."""


def check_schema(version: int) -> None:
    """Refuse a database whose schema this code does not know (a newer bot wrote it)."""
    if version > len(MIGRATIONS):
        raise DatabaseTooNewError(
            f"the database was written by a newer truco-bot (schema {version},"
            f" this one knows {len(MIGRATIONS)})"
        )


async def preflight(where: str | Path) -> str | None:
    """Whether this code can use the database: open it, see that it knows its schema, and write
    to it (throw-away connections: nothing to clean up when it fails). None, or what is wrong."""
    if is_postgres(where):
        return await _preflight_postgres(str(where))
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


async def _preflight_postgres(url: str) -> str | None:
    import asyncpg

    try:
        conn = await asyncpg.connect(url, timeout=10)
    except (TimeoutError, OSError, asyncpg.PostgresError) as error:
        return f"cannot connect to the database: {error}"
    try:
        if await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL"):
            check_schema(await conn.fetchval("SELECT max(version) FROM schema_version") or 0)
        async with conn.transaction():
            await conn.execute("CREATE TABLE IF NOT EXISTS write_check (x BIGINT)")
            await conn.execute("DROP TABLE write_check")
    except DatabaseTooNewError as error:
        return str(error)
    except asyncpg.PostgresError as error:
        return f"cannot use the database: {error}"
    finally:
        await conn.close()
    return None


class Row(Protocol):
    """A result row: by column name or position (aiosqlite.Row and asyncpg.Record both)."""

    def __getitem__(self, key: str | int) -> Any: ...

    def keys(self) -> Iterable[str]: ...


class Conn(Protocol):
    """One connection inside a transaction (or, in `Database.write` on PostgreSQL,
    autocommitting)."""

    async def execute(self, sql: str, args: Sequence[object] = ()) -> int: ...

    async def run(self, sql: str, args: Sequence[object] = ()) -> None:
        """A statement whose result nobody reads."""

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None: ...

    async def fetchall(self, sql: str, args: Sequence[object] = ()) -> list[Row]: ...

    async def fetchone(self, sql: str, args: Sequence[object] = ()) -> Row | None: ...

    async def lock(self, space: int, key: int) -> None:
        """Serialize this transaction with every other that locks (space, key), until it ends
        (SQLite's writes are one at a time already; PostgreSQL takes an advisory lock)."""


Writer = Callable[[Conn], Awaitable[None]]


@dataclass
class Meter:
    """What the storage door did, counted (the benchmark reads it per tap; see `as_dict`).

    `trips` are round trips to the database server: every statement sent and answered, and a
    transaction's BEGIN and COMMIT (PostgreSQL; SQLite has no server: its statements are counted
    as trips too, so the two can be compared). `kinds` counts them by what they were."""

    trips: int = 0
    transactions: int = 0
    conflicts: int = 0  # saves refused because another process changed the row first
    lock_waits: int = 0  # advisory locks found taken (the transaction waited for another)
    notices: int = 0  # wake-ups received from other processes (PostgreSQL LISTEN)
    kinds: Counter[str] = field(default_factory=Counter)

    def trip(self, kind: str, count: int = 1) -> None:
        self.trips += count
        self.kinds[kind] += count

    def as_dict(self) -> dict[str, object]:
        return {
            "trips": self.trips,
            "transactions": self.transactions,
            "conflicts": self.conflicts,
            "lock_waits": self.lock_waits,
            "notices": self.notices,
            "kinds": dict(self.kinds),
        }


_kinds: dict[str, str] = {}


def kind_of(sql: str) -> str:
    """A statement's kind for the meter: its verb and the table it names first."""
    found = _kinds.get(sql)
    if found is None:
        if len(_kinds) > 4096:
            _kinds.clear()
        found = _kinds[sql] = _kind_of(sql)
    return found


def _kind_of(sql: str) -> str:
    words = sql.split(None, 4)
    verb = words[0].upper() if words else "?"
    if verb == "WITH":
        return "WITH"
    for word in words[1:]:
        if word.upper() not in ("INTO", "FROM", "*", "DISTINCT") and word[0].isalpha():
            if verb == "SELECT":
                break
            return f"{verb} {word.lower()}"
    table = sql.split(" FROM ", 1)[1].split(None, 1)[0] if " FROM " in sql else ""
    return f"{verb} {table}".strip()


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
    meter: Meter

    @staticmethod
    async def open(where: str | Path, pool: int = 10) -> Database:
        """A file path (SQLite) or a `postgresql://` URL (`pool`: its connections at most)."""
        if is_postgres(where):
            return await PostgresDatabase.connect(str(where), pool)
        return await SqliteDatabase.connect(where)

    async def close(self) -> None:
        raise NotImplementedError

    def transaction(self, durable: bool = False) -> Any:  # an async context manager: a Conn
        """`durable`: the commit is on disk before this returns, even where ordinary commits
        may be lost to a power cut (SQLite's synchronous=NORMAL); PostgreSQL's always are."""
        raise NotImplementedError

    async def write(self, writer: Writer) -> None:
        raise NotImplementedError

    async def fetchone(self, sql: str, *args: object) -> Row | None:
        raise NotImplementedError

    async def fetchall(self, sql: str, *args: object) -> list[Row]:
        raise NotImplementedError

    async def report(self, sql: str, *args: object) -> list[Row]:
        """A read that may take long (a sum over a group's whole history): what is committed,
        read without holding up the bot's other work."""
        return await self.fetchall(sql, *args)

    def listen(
        self, channel: str, on_notice: Callable[[str], None], on_ready: Callable[[], None]
    ) -> None:
        """Call `on_notice(payload)` for every notice other processes send on `channel`, and
        `on_ready()` each time listening (re)starts: anything sent while it was down was missed,
        look for it. Nothing to hear from where nobody else writes (SQLite)."""

    @property
    def listening(self) -> bool:
        """Notices from the other processes arrive now (they are not missed)."""
        return False


# -- SQLite --------------------------------------------------------------------------------------
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
    def __init__(self, conn: Any, meter: Meter) -> None:
        self._conn = conn
        self._meter = meter

    async def execute(self, sql: str, args: Sequence[object] = ()) -> int:
        self._meter.trip(kind_of(sql))
        return _rowcount(await self._conn.execute(to_postgres(sql), *args))

    async def run(self, sql: str, args: Sequence[object] = ()) -> None:
        self._meter.trip(kind_of(sql))
        await self._conn.execute(to_postgres(sql), *args)

    async def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self._meter.trip(kind_of(sql))  # asyncpg sends every row and then waits: one trip
        await self._conn.executemany(to_postgres(sql), [tuple(r) for r in rows])

    async def fetchall(self, sql: str, args: Sequence[object] = ()) -> list[Row]:
        self._meter.trip(kind_of(sql))
        return list(await self._conn.fetch(to_postgres(sql), *args))

    async def fetchone(self, sql: str, args: Sequence[object] = ()) -> Row | None:
        self._meter.trip(kind_of(sql))
        found: Row | None = await self._conn.fetchrow(to_postgres(sql), *args)
        return found

    async def lock(self, space: int, key: int) -> None:
        # Two 32-bit keys: the space, and the key folded into 32 bits (a collision only
        # makes two unrelated transactions wait for each other).
        folded = (key ^ (key >> 32)) & 0x7FFF_FFFF
        self._meter.trip("LOCK")
        got = await self._conn.fetchval(
            "SELECT pg_try_advisory_xact_lock($1::int, $2::int)", space, folded
        )
        if not got:  # another transaction holds it: wait (counted: contention shows)
            self._meter.lock_waits += 1
            self._meter.trip("LOCK")
            await self._conn.execute(
                "SELECT pg_advisory_xact_lock($1::int, $2::int)", space, folded
            )


MIGRATION_LOCK = 0x7472_7563  # "truc": one process migrates at a time


LISTEN_RETRY = (0.1, 5.0)  # the listening connection, lost, is opened again: first and last pause


async def _nothing_to_reset(conn: Any) -> None:
    """A connection given back to the pool needs no reset: the bot sets no session state (its
    advisory locks end with their transactions; it listens on a connection of its own). asyncpg's
    default reset is a round trip on every release."""


@contextlib.contextmanager
def _aborted_is_unavailable() -> Iterator[None]:
    """A transaction (or statement) the server aborted, a deadlock it broke or a serialization
    failure, is Unavailable: nothing of it happened, and it may well go through in a moment."""
    import asyncpg

    try:
        yield
    except asyncpg.TransactionRollbackError as error:
        raise Unavailable(f"{type(error).__name__}: {error}") from error


class PostgresDatabase(Database):
    """A pool of asyncpg connections; each transaction on a connection of its own. One more
    connection, kept apart, listens for other processes' notices (`listen`)."""

    dialect = "postgresql"
    shared = True

    def __init__(self, pool: Any, url: str = "") -> None:
        self.pool = pool
        self.url = url
        self.meter = Meter()
        self._listeners: dict[str, tuple[Callable[[str], None], Callable[[], None]]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._listening = False
        self.listens = 0  # times listening began (a reconnection counts again)

    @staticmethod
    async def connect(url: str, size: int = 10) -> PostgresDatabase:
        import asyncpg  # only needed with PostgreSQL

        pool = await asyncpg.create_pool(url, min_size=1, max_size=size, reset=_nothing_to_reset)
        db = PostgresDatabase(pool, url)
        try:
            await db.migrate()
        except BaseException:
            await pool.close()
            raise
        return db

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        await self.pool.close()

    def listen(
        self, channel: str, on_notice: Callable[[str], None], on_ready: Callable[[], None]
    ) -> None:
        self._listeners[channel] = (on_notice, on_ready)
        if self._listener is None:
            self._listener = asyncio.get_running_loop().create_task(self._listen())

    @property
    def listening(self) -> bool:
        return self._listening

    async def _listen(self) -> None:
        """Keep one connection LISTENing; lost (a restarted server, a network fault), open it
        again with a growing pause; each time it is ready again, say so (`on_ready`)."""
        import asyncpg

        pause = LISTEN_RETRY[0]
        while True:
            conn = None
            try:
                conn = await asyncpg.connect(self.url)
                lost = asyncio.Event()
                conn.add_termination_listener(lambda _conn, lost=lost: lost.set())
                for channel, (on_notice, _) in self._listeners.items():
                    await conn.add_listener(channel, self._heard(on_notice))
                self._listening = True
                self.listens += 1
                pause = LISTEN_RETRY[0]
                for _, on_ready in self._listeners.values():
                    on_ready()
                await lost.wait()
                log.warning("the listening connection to PostgreSQL was lost; opening it again")
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("cannot listen to PostgreSQL (%s); again in %.1f s", error, pause)
            finally:
                self._listening = False
                if conn is not None and not conn.is_closed():
                    with contextlib.suppress(Exception):
                        await asyncio.shield(conn.close(timeout=1))
            await asyncio.sleep(pause)
            pause = min(pause * 2, LISTEN_RETRY[1])

    def _heard(self, on_notice: Callable[[str], None]) -> Callable[..., None]:
        def heard(_conn: object, _pid: int, _channel: str, payload: str) -> None:
            self.meter.notices += 1
            try:
                on_notice(payload)
            except Exception:
                log.exception("a notice from PostgreSQL could not be handled")

        return heard

    async def migrate(self) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT)")
            current = await conn.fetchval("SELECT max(version) FROM schema_version") or 0
            check_schema(current)
            for number, migration in enumerate(MIGRATIONS[current:], start=current + 1):
                script = postgres_ddl(script_of(migration, "postgresql"))
                for statement in script.split(";\n"):
                    if statement.strip():
                        await conn.execute(statement)
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", number)

    @asynccontextmanager
    async def transaction(self, durable: bool = False) -> AsyncIterator[Conn]:
        # synchronous_commit is on (the server's default): every commit is durable already
        meter = self.meter
        meter.transactions += 1
        with _aborted_is_unavailable():
            async with self.pool.acquire() as conn, conn.transaction():
                meter.trip("BEGIN")
                yield _PgConn(conn, meter)
                meter.trip("COMMIT")

    async def write(self, writer: Writer) -> None:
        with _aborted_is_unavailable():
            async with self.pool.acquire() as conn:
                # each statement autocommits, a round trip of its own: it may read, too
                await writer(_PgConn(conn, self.meter))

    async def fetchone(self, sql: str, *args: object) -> Row | None:
        self.meter.trip(kind_of(sql))
        found: Row | None = await self.pool.fetchrow(to_postgres(sql), *args)
        return found

    async def fetchall(self, sql: str, *args: object) -> list[Row]:
        self.meter.trip(kind_of(sql))
        return list(await self.pool.fetch(to_postgres(sql), *args))
