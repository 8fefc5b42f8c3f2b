"""The unit of work: tables as committed, one lock per table, and the one commit every change
goes through (state, action log, league, and the rows every front end plans, together)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from bot.model.errors import Unavailable
from bot.model.occupants import people
from bot.model.outbox import Outgoing, Planned, Record
from bot.model.refusals import Refused
from bot.model.table import Table, TableStatus
from bot.service.changes import Change, Changes, Conflict, Refusal, SignChange, TableChange
from bot.service.league import record_league

# (re-exported: the typed connection a front end's own writes get inside a commit; front ends
# do not import the storage)
from bot.storage.db import Conn as Conn
from bot.storage.outbox import OutboxStore
from bot.storage.records import RecordStore
from bot.storage.repo import TABLES_CHANNEL, Store

LANGUAGES_KEPT = 50_000  # tables whose language is remembered (then forgotten all at once)
RECENT_KEPT = 20_000  # tables of which a copy to show is kept (then all forgotten at once)
RETRIES = 5  # a change that lost a race with another process is decided again, this often
RECORDS_KEPT = 50_000  # tables whose front end records are kept in memory (then all forgotten)

Also = Callable[[Conn], Awaitable[None]]  # more writes that join a commit's transaction


class Tables:
    def __init__(
        self,
        store: Store,
        changes: Changes,
        *,
        clock: Callable[[], float] = time.time,
        worker: str = "main",
    ) -> None:
        self.store = store
        self.changes = changes
        self.clock = clock
        # the rows every front end sends, written as this process (`worker`) in each commit
        self.outbox = OutboxStore(store.db, worker)
        self.records = Records(RecordStore(store.db), store.db.shared)
        # PostgreSQL may be shared by several processes: read tables afresh, save them only
        # over the version read (see `commit`). SQLite belongs to this process alone.
        self.shared = store.db.shared
        self._cache: dict[int, Table] = {}
        self._languages: dict[int, str] = {}  # table -> its language (it never changes)
        # Shared database: the newest version of each table this process committed or read for
        # a front end to show (never handed to a change: changes read the table afresh).
        self._recent: dict[int, Table] = {}
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}  # lock, how many hold or wait
        self.open_lock = asyncio.Lock()  # opening a table, moving a chat's tables

    # -- locking ---------------------------------------------------------------------------------
    def locked(self, table_id: int) -> _Held:
        """The table's lock. It exists while someone holds it or waits for it, and no longer:
        taps naming tables that do not exist leave nothing behind."""
        return _Held(self._locks, table_id)

    def locks(self) -> int:
        return len(self._locks)

    # -- reading ---------------------------------------------------------------------------------
    async def get(self, table_id: int) -> Table | None:
        """The table as committed. With a shared database (PostgreSQL: other processes may
        change it) it is read afresh every time; otherwise this process's copy is the truth."""
        table = None if self.shared else self._cache.get(table_id)
        if table is None:
            table = await self.store.table(table_id)
            if table is not None:
                if len(self._languages) > LANGUAGES_KEPT:
                    self._languages.clear()
                self._languages[table_id] = table.language
            if table is not None and table.is_open:
                self._cache[table_id] = table
            else:
                self._cache.pop(table_id, None)
        return table

    async def to_show(self, table_id: int, stamp: int) -> Table | None:
        """The table for a front end to show a row written at version `stamp`: this process's
        copy if it is that version or newer (it committed it: no read), else as committed.
        Only for showing: a change must `get` the table it decides on."""
        if not self.shared:
            return await self.get(table_id)
        recent = self._recent.get(table_id)
        if recent is not None and stamp and recent.version >= stamp:
            return recent
        table = await self.store.table(table_id)
        if table is None or not table.is_open:
            self._recent.pop(table_id, None)
        else:
            self._remember(table)
        return table

    def _remember(self, table: Table) -> None:
        recent = self._recent.get(table.id)
        if recent is None or table.version > recent.version:
            if len(self._recent) > RECENT_KEPT:
                self._recent.clear()
            self._recent[table.id] = table

    async def language_of(self, table_id: int) -> str | None:
        """A table's language (set when it is made, never changed: remembered, not read)."""
        found = self._languages.get(table_id)
        if found is None:
            table = await self.get(table_id)
            if table is None:
                return None
            found = table.language
        return found

    async def table_in(self, chat_id: int, thread_id: int) -> Table | None:
        if not self.shared:
            for table in self._cache.values():
                if (
                    table.chat_id == chat_id and table.thread_id == thread_id and table.is_open
                    and table.tournament is None
                ):  # fmt: skip
                    return table
        found = await self.store.open_table_in(chat_id, thread_id)
        return await self.get(found.id) if found else None

    def lobbies(self) -> list[Table]:
        return [t for t in self._cache.values() if t.status is TableStatus.LOBBY]

    def playing(self) -> list[Table]:
        """Open matches in play (every open table is cached from start-up on)."""
        return [t for t in self._cache.values() if t.status is TableStatus.PLAYING]

    def cached_in(self, chat_id: int) -> list[Table]:
        return [t for t in self._cache.values() if t.chat_id == chat_id]

    def forget(self, table_id: int) -> None:
        """Memory may be ahead of the database: read the table again next time."""
        self._cache.pop(table_id, None)

    async def open_tables(self) -> list[Table]:
        """Every open table, now in this process's view (the sweep and the computer players
        look at that view; with a shared database this also finds other processes' tables)."""
        found = await self.store.open_tables()
        if self.shared:
            self._cache = {t.id: t for t in found}
            return found
        return [t for t in [await self.get(t.id) for t in found] if t]

    async def due_tables(self, now: float, lobby_seconds: float, stalled: float) -> list[Table]:
        """Shared database: the open tables a sweep must look at now (not every open table:
        the cost of a sweep follows what is due, not how many tables are live)."""
        found = await self.store.due_tables(now, lobby_seconds, stalled)
        self._cache = {t.id: t for t in found}
        return found

    async def place_in_line(self, table: Table) -> int:
        """A full lobby's place in the line of tables waiting to start (1: the next; a table
        not in line yet: the place it would take)."""
        return 1 + await self.store.ahead_in_line(table.id, table.queued)

    @staticmethod
    def waiting_users(table: Table) -> set[int]:
        """The people the game waits on now."""
        if table.state is None or table.status is not TableStatus.PLAYING:
            return set()
        seats = {a.seat for a in table.state.legal_actions()}
        return set(people(u for s, u in enumerate(table.seats) if s in seats))

    # -- writing ---------------------------------------------------------------------------------
    async def commit(
        self,
        table: Table,
        change: TableChange | SignChange,
        actions: Sequence[tuple[int | None, str]] = (),
        first_seq: int = 0,
        also: Also | None = None,
    ) -> list[Outgoing]:
        """Save the table, its new actions, the finished match, and what every front end will
        say about it (the subscribers' rows and records), in one transaction; then tell the
        subscribers."""
        at = table.updated_at = self.clock()
        table.version += 1
        try:
            rows, records = split(await self.changes.plan(change))
            # The commit that ends a match is on disk before its seed is revealed: a power
            # cut must not bring back to life a match whose every deal is now public.
            ends = not table.is_open
            credited = change.credited if isinstance(change, TableChange) else None
            if not (ends or credited is not None or also is not None):
                # The ordinary change (a move, a join): the storage's own commit (on PostgreSQL
                # one statement).
                saved = await self.store.save_change(
                    table, table.version - 1, actions, first_seq, rows, self.outbox, at,
                    records, self.records.store,
                )  # fmt: skip
                if not saved:
                    self.store.db.meter.conflicts += 1
                    raise Conflict(Refused.STALE)
            else:
                await self._commit_whole(table, change, actions, first_seq, also, rows, records)
        except Unavailable as error:
            self._cache.pop(table.id, None)  # memory is ahead of the database: reload
            raise Refusal(Refused.DB_BUSY) from error
        except BaseException:
            self._cache.pop(table.id, None)  # memory may be ahead of the database: reload
            raise
        self.records.written(records)
        if not table.is_open:
            self._cache.pop(table.id, None)
            self._recent.pop(table.id, None)
        elif self.shared:
            self._remember(snapshot(table))
        self.changes.committed(change, rows)
        return rows

    async def _commit_whole(
        self,
        table: Table,
        change: TableChange | SignChange,
        actions: Sequence[tuple[int | None, str]],
        first_seq: int,
        also: Also | None,
        rows: list[Outgoing],
        records: list[Record],
    ) -> None:
        """A commit with more in it than the table, its actions and rows: a match recorded in
        the league (it ended, or a side left it), a front end's own writes (`also`)."""
        at = table.updated_at
        async with self.store.db.transaction(durable=not table.is_open) as conn:
            if not await self.store.save_table(conn, table, table.version - 1):
                # Another process changed the table since we read it: nothing of this
                # commit happens (its action was decided on a state that is gone).
                self.store.db.meter.conflicts += 1
                raise Conflict(Refused.STALE)
            await self.store.tell_table(conn, table.id)
            if actions:
                await self.store.append_actions(conn, table.id, first_seq, list(actions), at)
            # The league's result, written once: a side that left a 2v2 match (recorded as it
            # stands, the leaving side losing, whatever a computer player in the empty seat
            # plays afterwards), else the game's end when it ends (a cancelled lobby never
            # began: no result).
            credited = (change.credited if isinstance(change, TableChange) else None) or (
                table.outcome
            )
            if credited is not None and table.started_at is not None:
                recorded = await self.store.record_match(conn, table, credited, at)
                if recorded:  # (the league counts it or not: `record_league` decides)
                    await record_league(conn, table, credited, at)
            if rows:
                await self.outbox.enqueue(conn, rows, stamp=table.version)
            if records:
                await self.records.store.write(conn, records)
            if also is not None:
                await also(conn)

    async def insert(self, table: Table, change_of: Callable[[Table], TableChange]) -> None:
        """A new table, with what the front ends plan for it, in one transaction."""
        try:
            async with self.store.db.transaction() as conn:
                table.id = await self.store.insert_table(conn, table)
                change = change_of(table)
                rows, records = split(await self.changes.plan(change))
                await self.outbox.enqueue(conn, rows, stamp=table.version)
                await self.records.store.write(conn, records)
        except Unavailable as error:
            raise Refusal(Refused.DB_BUSY) from error
        self.records.written(records)
        self._cache[table.id] = table
        self.changes.committed(change, rows)

    async def announce(
        self, change: Change, also: Also | None = None, given: Sequence[Outgoing] = ()
    ) -> list[Outgoing]:
        """A change that saves no table (a chat's settings, a seña): the subscribers' rows, the
        `given` rows (the caller's front end's) and `also`'s writes, in one transaction."""
        rows, records = split(await self.changes.plan(change))
        rows += given
        try:
            if also is None and not records:
                if rows:  # one statement: no transaction of its own needed (PostgreSQL)
                    await self.store.db.write(self._enqueue(rows))
            else:
                async with self.store.db.transaction() as conn:
                    if also is not None:
                        await also(conn)
                    if rows:
                        await self.outbox.enqueue(conn, rows)
                    await self.records.store.write(conn, records)
        except Unavailable as error:
            raise Refusal(Refused.DB_BUSY) from error
        self.records.written(records)
        self.changes.committed(change, rows)
        return rows

    def _enqueue(self, rows: list[Outgoing]) -> Also:
        async def writer(conn: Conn) -> None:
            await self.outbox.enqueue(conn, rows)

        return writer

    # -- what other processes committed ----------------------------------------------------------
    async def version_of(self, table_id: int) -> int | None:
        """A table's committed version (one small query: a watcher asks it often)."""
        return await self.store.version_of(table_id)

    @property
    def listening(self) -> bool:
        """Other workers' notices of their commits are heard now."""
        return self.store.db.listening

    def listen(self, heard: Callable[[int], None], again: Callable[[], None]) -> None:
        """Several workers: `heard(table_id)` whenever any of them commits a change of a table,
        and `again()` when such notices may have been missed (the listening was lost)."""
        if not self.shared:
            return

        def notice(payload: str) -> None:
            if payload.isdigit():
                heard(int(payload))

        self.store.notify_tables = True
        self.store.db.listen(TABLES_CHANNEL, notice, again)


def split(planned: Sequence[Planned]) -> tuple[list[Outgoing], list[Record]]:
    """What the subscribers planned, as the outbox's rows and the front ends' records."""
    rows = [p for p in planned if isinstance(p, Outgoing)]
    return rows, [p for p in planned if isinstance(p, Record)]


class Records:
    """Each front end's own records of a table (Telegram: its messages' ids and join token),
    kept by table id; written in a change's commit (a subscriber plans them) or in the front
    end's own transaction (`put`). With the database to itself (SQLite) this process's copy is
    the truth; shared (PostgreSQL), they are read afresh."""

    def __init__(self, store: RecordStore, shared: bool) -> None:
        self.store = store
        self.shared = shared
        self._cache: dict[tuple[str, int], dict[str, str]] = {}

    async def of(self, front: str, table_id: int) -> dict[str, str]:
        key = (front, table_id)
        found = None if self.shared else self._cache.get(key)
        if found is None:
            found = await self.store.of(front, table_id)
            if not self.shared:
                if len(self._cache) > RECORDS_KEPT:
                    self._cache.clear()
                self._cache[key] = found
        return found

    async def find(self, front: str, name: str, value: str) -> int | None:
        return await self.store.find(front, name, value)

    async def put(self, records: Sequence[Record], also: Also | None = None) -> None:
        """Write these records (and `also`'s writes) in one transaction of their own."""
        async with self.store.db.transaction() as conn:
            await self.store.write(conn, records)
            if also is not None:
                await also(conn)
        self.written(records)

    def written(self, records: Sequence[Record]) -> None:
        """These records are committed: the copy in memory follows."""
        if self.shared:
            return
        for record in records:
            known = self._cache.get((record.front, record.table_id))
            if known is None:
                continue
            if record.value is None:
                known.pop(record.name, None)
            else:
                known[record.name] = record.value


class _Held:
    """`async with tables.locked(id)`: a per-table lock, counted so that it can be dropped."""

    __slots__ = ("_locks", "_id", "_lock")

    def __init__(self, locks: dict[int, tuple[asyncio.Lock, int]], table_id: int) -> None:
        self._locks = locks
        self._id = table_id

    async def __aenter__(self) -> None:
        lock, users = self._locks.get(self._id) or (asyncio.Lock(), 0)
        self._locks[self._id] = (lock, users + 1)
        self._lock = lock
        try:
            await lock.acquire()
        except BaseException:
            self._release_count()
            raise

    async def __aexit__(self, *_: object) -> None:
        self._lock.release()
        self._release_count()

    def _release_count(self) -> None:
        lock, users = self._locks[self._id]
        if users <= 1:
            del self._locks[self._id]
        else:
            self._locks[self._id] = (lock, users - 1)


def snapshot(table: Table) -> Table:
    """A copy that nothing else changes (the caller may go on changing its own)."""
    return replace(
        table,
        state=table.state.copy() if table.state is not None else None,
        seats=list(table.seats),
        calls=list(table.calls),
        strikes=list(table.strikes),
        acted=dict(table.acted),
        came=list(table.came),
    )
