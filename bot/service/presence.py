"""Who has a table's web page open: a page's live stream is a person looking at the table, so
a front end need not refresh that person's other view of it (Telegram's private hand message)
while the page stays open; when it closes, one refresh brings that view up to date.

Kept as records in the database (front `FRONT`: table -> person -> open until, wall clock),
written when a page opens, renewed while it stays open and deleted when it closes, so every
worker sharing a PostgreSQL sees who watches whatever process serves the page. A page whose
process died is forgotten when its record runs out (`LEASE`): the next change refreshes that
person's view as if the page had never been open.

The narrow interface: `opened`/`closed` (the web table's streams), `watching(table)` (a front
end planning its rows asks), `converge` (the front end's refresh, given when a page closes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from typing import Any

from bot.model.occupants import is_person
from bot.model.outbox import Record
from bot.service.unit import Records
from bot.storage.db import Conn

log = logging.getLogger(__name__)

FRONT = "watch"
LEASE = 60.0  # seconds a page's record lasts unless renewed (renewed every third of it)

Writer = Callable[[Conn], Awaitable[None]]
# A front end's refresh of `user`'s view of `table_id`, with `also`'s writes in its transaction
Converge = Callable[[int, int, Writer], Awaitable[None]]


class Presence:
    def __init__(
        self, records: Records, clock: Callable[[], float] = time.time, lease: float = LEASE
    ) -> None:
        self.records = records
        self.clock = clock
        self.lease = lease
        self.enabled = False  # a front end that cares runs (`start`): else nothing is kept
        self.converge: Converge | None = None
        self._open: Counter[tuple[int, int]] = Counter()  # this process's pages, by count
        self._renewer: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._turn = asyncio.Lock()

    def start(self) -> None:
        """Keep who watches (the web table runs alongside a front end that reads it)."""
        self.enabled = True
        if self._renewer is None:
            self._renewer = asyncio.get_running_loop().create_task(self._renew())

    async def stop(self) -> None:
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
            self._renewer = None
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    @contextlib.contextmanager
    def page(self, table_id: int, user_id: int) -> Iterator[None]:
        """While the block runs, `user_id` has `table_id`'s page open (0: nobody to keep, an
        onlooker's page). Its writes are tasks of their own, made in the order the pages
        opened and closed (a stream's end may be a cancellation: nothing awaits in it)."""
        if not self.enabled or not is_person(user_id):
            yield
            return
        self._spawn(self.opened(table_id, user_id))
        try:
            yield
        finally:
            self._spawn(self.closed(table_id, user_id))

    def _spawn(self, step: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(self._in_turn(step))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _in_turn(self, step: Coroutine[Any, Any, None]) -> None:
        async with self._turn:  # (FIFO: the tasks take it in the order they were made)
            await step

    async def opened(self, table_id: int, user_id: int) -> None:
        if not self.enabled or not is_person(user_id):
            return
        key = (table_id, user_id)
        self._open[key] += 1
        if self._open[key] == 1:
            try:
                await self._keep([key])
            except Exception:  # renewed within a third of the lease
                log.warning("could not keep table %s's page of %s", table_id, user_id,
                            exc_info=True)  # fmt: skip

    async def closed(self, table_id: int, user_id: int) -> None:
        """A page closed: when it was the person's last one here, their record goes and the
        front end refreshes their view, in one transaction."""
        key = (table_id, user_id)
        if not self.enabled or self._open[key] <= 0:
            return
        self._open[key] -= 1
        if self._open[key] > 0:
            return
        del self._open[key]
        gone = [Record(FRONT, table_id, str(user_id), None)]

        async def forget(conn: Conn) -> None:
            await self.records.store.write(conn, gone)

        try:
            if self.converge is None:
                await self.records.put(gone)
            else:
                await self.converge(table_id, user_id, forget)
                self.records.written(gone)
        except Exception:  # its record runs out by itself; the next change refreshes
            log.warning("could not close table %s's page of %s", table_id, user_id,
                        exc_info=True)  # fmt: skip

    async def watching(self, table_id: int) -> frozenset[int]:
        """The people who have the table's page open now (on any worker)."""
        if not self.enabled:
            return frozenset()
        now = self.clock()
        found = await self.records.of(FRONT, table_id)
        return frozenset(
            int(user) for user, until in found.items() if user.isdigit() and float(until) > now
        )

    async def _keep(self, keys: list[tuple[int, int]]) -> None:
        until = repr(self.clock() + self.lease)
        await self.records.put([Record(FRONT, t, str(u), until) for t, u in keys])

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(self.lease / 3)
            if not self._open:
                continue
            try:
                await self._keep(list(self._open))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("could not renew the open pages' records", exc_info=True)
