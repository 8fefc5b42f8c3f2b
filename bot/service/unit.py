"""The unit of work: tables as committed, one lock per table, and the one commit every change
goes through (state, action log, league, and the rows every front end plans, together)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from bot.service.changes import Change, ChangeKind, Changes, Conflict, Refusal
from bot.storage.db import Conn, Unavailable
from bot.storage.league import record_league
from bot.storage.outbox import OutboxStore, Outgoing
from bot.storage.repo import Note, Store, Table, TableStatus

LANGUAGES_KEPT = 50_000  # tables whose language is remembered (then forgotten all at once)
RECENT_KEPT = 20_000  # tables of which a copy to show is kept (then all forgotten at once)
RETRIES = 5  # a save that lost a race with another process (message ids only) is redone

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
                if table.chat_id == chat_id and table.thread_id == thread_id and table.is_open:
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

    @staticmethod
    def waiting_users(table: Table) -> set[int]:
        """The people the game waits on now."""
        if table.state is None or table.status is not TableStatus.PLAYING:
            return set()
        seats = {a.seat for a in table.state.legal_actions()}
        return {u for s, u in enumerate(table.seats) if s in seats and u is not None and u > 0}

    # -- writing ---------------------------------------------------------------------------------
    async def commit(
        self,
        table: Table,
        change: Change,
        actions: Sequence[tuple[int | None, str]] = (),
        first_seq: int = 0,
        also: Also | None = None,
        messages_only: bool = False,
    ) -> list[Outgoing]:
        """Save the table, its new actions, the finished match, and what every front end will
        say about it (the subscribers' rows), in one transaction; then tell the subscribers."""
        at = table.updated_at = self.clock()
        table.version += 1
        try:
            rows = await self.changes.plan(change)
            # The commit that ends a match is on disk before its seed is revealed: a power
            # cut must not bring back to life a match whose every deal is now public.
            ends = not table.is_open and not messages_only
            vacated = change.kind is ChangeKind.VACATED and change.seat is not None
            cancelled = table.status is TableStatus.CANCELLED and table.started_at is not None
            if not (ends or vacated or cancelled or also is not None):
                # The ordinary change (a move, a join, a message id): the storage's own commit
                # (on PostgreSQL one statement).
                saved = await self.store.save_change(
                    table, table.version - 1, actions, first_seq, rows, self.outbox, at,
                    messages_only,
                )  # fmt: skip
                if not saved:
                    self.store.db.meter.conflicts += 1
                    raise Conflict("stale")
            else:
                await self._commit_whole(
                    table, change, actions, first_seq, also, ends, rows, at, messages_only
                )
        except Unavailable as error:
            self._cache.pop(table.id, None)  # memory is ahead of the database: reload
            raise Refusal("db_busy") from error
        except BaseException:
            self._cache.pop(table.id, None)  # memory may be ahead of the database: reload
            raise
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
        change: Change,
        actions: Sequence[tuple[int | None, str]],
        first_seq: int,
        also: Also | None,
        ends: bool,
        rows: list[Outgoing],
        at: float,
        messages_only: bool,
    ) -> None:
        """A commit with more in it than the table, its actions and rows: a match recorded in
        the league, a front end's own writes (`also`)."""
        async with self.store.db.transaction(durable=ends) as conn:
            save = self.store.save_messages if messages_only else self.store.save_table
            if not await save(conn, table, table.version - 1):
                # Another process changed the table since we read it: nothing of this
                # commit happens (its action was decided on a state that is gone).
                self.store.db.meter.conflicts += 1
                raise Conflict("stale")
            if not messages_only:  # (a page shows no message ids)
                await self.store.tell_table(conn, table.id)
            if actions:
                await self.store.append_actions(
                    conn, table.id, first_seq, list(actions), table.updated_at
                )
            if table.status is TableStatus.FINISHED and table.state is not None:
                outcome = "won" if table.state.is_over else "conceded"
                winner = table.state.winner if table.state.is_over else conceded_to(table)
                if await self.store.record_match(conn, table, outcome, winner, at):
                    await record_league(conn, table, winner)
            elif change.kind is ChangeKind.VACATED and change.seat is not None:
                # A side left a 2v2 match: it is recorded (and rated) as it stands, the
                # leaving side losing, whatever a bot in the empty seat plays afterwards.
                winner = 1 - change.seat % 2
                if await self.store.record_match(conn, table, "conceded", winner, at):
                    await record_league(conn, table, winner)
            elif table.status is TableStatus.CANCELLED and table.started_at is not None:
                await self.store.record_match(conn, table, "cancelled", None, at)
            if rows:
                await self.outbox.enqueue(conn, rows, time.time(), table.version)
            if also is not None:
                await also(conn)

    async def insert(self, table: Table, change_of: Callable[[Table], Change]) -> None:
        """A new table, with what the front ends say about it, in one transaction."""
        try:
            async with self.store.db.transaction() as conn:
                table.id = await self.store.insert_table(conn, table)
                change = change_of(table)
                rows = await self.changes.plan(change)
                await self.outbox.enqueue(conn, rows, time.time(), table.version)
        except Unavailable as error:
            raise Refusal("db_busy") from error
        self._cache[table.id] = table
        self.changes.committed(change, rows)

    async def announce(
        self, change: Change, also: Also | None = None, given: Sequence[Outgoing] = ()
    ) -> list[Outgoing]:
        """A change that saves no table (a chat's settings, a seña): the subscribers' rows, the
        `given` rows (the caller's front end's) and `also`'s writes, in one transaction."""
        rows = await self.changes.plan(change) + list(given)
        try:
            if also is None:
                if rows:  # one statement: no transaction of its own needed (PostgreSQL)
                    await self.store.db.write(self._enqueue(rows))
            else:
                async with self.store.db.transaction() as conn:
                    await also(conn)
                    if rows:
                        await self.outbox.enqueue(conn, rows, time.time())
        except Unavailable as error:
            raise Refusal("db_busy") from error
        self.changes.committed(change, rows)
        return rows

    def _enqueue(self, rows: list[Outgoing]) -> Also:
        async def writer(conn: Conn) -> None:
            await self.outbox.enqueue(conn, rows, time.time())

        return writer

    # -- a front end's bookkeeping on the table: its messages' ids --------------------------------
    async def set_message(self, table_id: int, message_id: int | None, also: Also | None) -> None:
        """The table's group message (lobby or board); `also` joins the same transaction."""

        def change(table: Table) -> None:
            table.message_id = message_id

        await self._save_message_ids(table_id, change, also)

    async def set_hand_message(
        self, table_id: int, user_id: int, message_id: int | None, also: Also | None = None
    ) -> None:
        def change(table: Table) -> None:
            if message_id is None:
                table.hand_messages.pop(user_id, None)
            else:
                table.hand_messages[user_id] = message_id

        await self._save_message_ids(table_id, change, also)

    async def _save_message_ids(
        self, table_id: int, change: Callable[[Table], None], also: Also | None
    ) -> None:
        """Message ids change after a call, whatever the game did meanwhile: a save that lost a
        race with another process is simply done again on the table as it is now."""
        for attempt in range(RETRIES):
            async with self.locked(table_id):
                table = await self.get(table_id)
                if table is None or not table.is_open:
                    if also is not None:
                        async with self.store.db.transaction() as conn:
                            await also(conn)
                    return
                change(table)
                try:
                    await self.commit(
                        table, Change(ChangeKind.MESSAGES, table), also=also, messages_only=True
                    )
                    return
                except Conflict:
                    if attempt == RETRIES - 1:
                        raise


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
        hand_messages=dict(table.hand_messages),
        calls=list(table.calls),
        strikes=list(table.strikes),
        acted=dict(table.acted),
    )


def conceded_to(table: Table) -> int | None:
    """The side a conceded match went to (the last concession in the table's calls)."""
    for call in reversed(table.calls):
        if call.what is Note.CONCEDE and call.seat is not None:
            return 1 - call.seat % 2
    return None
