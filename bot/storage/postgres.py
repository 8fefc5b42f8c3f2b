"""PostgreSQL through asyncpg (imported only when it is used): a pool of connections, each
transaction on one of its own, and one more that LISTENs for other processes' notices. The
callers' SQL is SQLite's: its placeholders and the migrations' column types are translated
here. Every connection names itself `APPLICATION`; the processes sharing the database share
its clock (`DatabaseClock`), not their machines'."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from bot.model.errors import Unavailable
from bot.storage.db import (
    APPLICATION,
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

# Every connection of the bot names itself (over any name the URL gives): see `APPLICATION`
SERVER_SETTINGS = {"application_name": APPLICATION}

CLOCK_EVERY = 5.0  # seconds between two readings of the database's clock
CLOCK_KEPT = 6  # the last readings kept: the one of the shortest round trip is believed
CLOCK_FIRST = 3  # readings when the database is opened


class DatabaseClock:
    """The database server's clock, read from here: `now()` is this process's monotonic clock
    plus the offset last measured against the server's `clock_timestamp()`. Each reading is
    bracketed by the monotonic clock before and after its round trip, so the server's moment
    lies within it and the offset is off by half the round trip at most; of the last few
    readings the one with the shortest round trip is believed (a busy loop or a slow network
    only lengthens a reading, and that one is not believed). The machine's wall clock is never
    read: a worker whose clock is off by minutes, or stepped while it runs, stamps the same
    times as every other worker. The monotonic clock's own drift (parts per million) is
    corrected at each reading."""

    def __init__(self) -> None:
        # (round trip, offset): the offset is the server's epoch less the monotonic clock
        self.readings: deque[tuple[float, float]] = deque(maxlen=CLOCK_KEPT)
        self.offset = time.time() - time.monotonic()  # (until the first reading: the machine's)

    def now(self) -> float:
        return time.monotonic() + self.offset

    def reading(self, before: float, server: float, after: float) -> None:
        """The server said `server` (epoch seconds) between `before` and `after` (monotonic)."""
        self.readings.append((after - before, server - (before + after) / 2))
        self.offset = min(self.readings)[1]


async def preflight_postgres(url: str) -> str | None:
    """Whether this code can use the PostgreSQL database at `url` (as `preflight_sqlite`)."""
    import asyncpg

    try:
        conn = await asyncpg.connect(url, timeout=10, server_settings=SERVER_SETTINGS)
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
        self.clock = DatabaseClock()
        self._clock_reader: asyncio.Task[None] | None = None

    @staticmethod
    async def connect(url: str, size: int = 10) -> PostgresDatabase:
        import asyncpg  # only needed with PostgreSQL

        pool = await asyncpg.create_pool(
            url, min_size=1, max_size=size, reset=_nothing_to_reset,
            server_settings=SERVER_SETTINGS,
        )  # fmt: skip
        db = PostgresDatabase(pool, url)
        try:
            await db.migrate()
            for _ in range(CLOCK_FIRST):
                await db.read_clock()
        except BaseException:
            await pool.close()
            raise
        db._clock_reader = asyncio.get_running_loop().create_task(db._read_clock_often())
        skew = time.time() - db.now()
        if abs(skew) > 1.0:  # (told, not corrected: the bot goes by the database's clock)
            log.warning(
                "this machine's clock is %.1f s %s the database's; the bot keeps the database's",
                abs(skew), "ahead of" if skew > 0 else "behind",
            )  # fmt: skip
        return db

    async def close(self) -> None:
        for task in (self._listener, self._clock_reader):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.pool.close()

    def now(self) -> float:
        return self.clock.now()

    async def read_clock(self) -> None:
        """Measure this process's offset to the server's clock once (`DatabaseClock`)."""
        async with self.pool.acquire() as conn:
            self.meter.clock_reads += 1
            before = time.monotonic()
            server = await conn.fetchval("SELECT extract(epoch FROM clock_timestamp())::float8")
            after = time.monotonic()
        self.clock.reading(before, float(server), after)

    async def _read_clock_often(self) -> None:
        """The offset measured again every `CLOCK_EVERY` seconds (both clocks drift a little;
        the server's may be set right meanwhile). A reading that fails keeps the last offset."""
        while True:
            await asyncio.sleep(CLOCK_EVERY)
            try:
                await self.read_clock()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("could not read the database's clock (%s)", error)

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
                conn = await asyncpg.connect(self.url, server_settings=SERVER_SETTINGS)
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
