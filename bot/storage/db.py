"""The database as every caller sees it, whichever its dialect: `Database` (opened by
`bot.storage.connect.open_database`), a `Conn` inside a transaction, its `Row`s, the `Meter` of
what it did.

Everything above the storage writes one dialect: SQLite's, with `?` placeholders, restricted to
what PostgreSQL also understands (`INSERT ... ON CONFLICT`, `RETURNING`, `CASE`, no `OR IGNORE`,
no sums of booleans). The dialects are rooms of their own: `sqlite.py` (the default: one
connection on the event loop's thread, aiosqlite's for checkpoints) and `postgres.py` (asyncpg:
the placeholders become `$1, $2, ...` and the migrations' column types are widened, `INTEGER`
to `BIGINT`: Telegram's ids do not fit 32 bits; `REAL` to `DOUBLE PRECISION`; an autoincrement
key to `BIGSERIAL`). Callers get a `Conn` either way.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bot.storage.migrations import MIGRATIONS

# The name the bot's sessions give themselves on a database server (PostgreSQL's
# `application_name`, over any the URL gives): what tells them from other programs' in
# `pg_stat_activity`, and the only sessions the heartbeat's cut may end, in its own database
# (bot/storage/outbox.py).
APPLICATION = "truco-bot"


class DatabaseTooNewError(RuntimeError):
    """The database was written by a newer version of the bot."""


def check_schema(version: int) -> None:
    """Refuse a database whose schema this code does not know (a newer bot wrote it)."""
    if version > len(MIGRATIONS):
        raise DatabaseTooNewError(
            f"the database was written by a newer truco-bot (schema {version},"
            f" this one knows {len(MIGRATIONS)})"
        )



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
    # readings of the server's clock (PostgreSQL, every few seconds, off the taps: round trips
    # of their own, not counted in `trips`, which a tap's cost is measured by)
    clock_reads: int = 0
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
            "clock_reads": self.clock_reads,
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
    outer = sql
    while "(" in outer:  # the table the statement itself reads, not a subquery's
        bare = _PARENTHESES.sub("", outer)
        if bare == outer:
            break
        outer = bare
    table = outer.split(" FROM ", 1)[1].split(None, 1)[0] if " FROM " in outer else ""
    return f"{verb} {table}".strip()


_PARENTHESES = re.compile(r"\([^()]*\)")


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

    async def close(self) -> None:
        raise NotImplementedError

    def now(self) -> float:
        """The time every process that shares this database stamps and compares what they
        share with (leases, heartbeats, a lane's pace, shares, deadlines), in seconds since
        the epoch: one clock for all, whatever each machine's own says. Here (SQLite: one
        process) this process's clock is the only one."""
        return time.time()

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
