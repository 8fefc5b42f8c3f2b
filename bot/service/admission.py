"""Admission: no more matches in play at once than Telegram's budget carries.

A tap at a person's pace costs about three Bot API calls and the bot may make about 30 a second
in all (docs/operations.md, "Watching Telegram's limits"): past some tens of matches no pacing
keeps every player's turn quick, so a lobby that fills while `capacity` matches are in play
waits in line (`Table.queued`, in the database: a restart or another worker keeps the line)
and starts by itself, first come first served, when a match ends. Every match in play counts
(a practice's and a tournament's too); a tournament's matches start on its own clock and never
wait in line. `capacity` 0: no limit.

Several workers on one database: each decides under its own lock, so two lobbies filling at
the same instant on two workers may start one match over the capacity (the next in line then
waits for two to end); a table in line is started once (its version is the guard).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from bot.model.errors import Unavailable
from bot.model.outbox import Outgoing, Planned
from bot.model.table import Table
from bot.service.changes import Change, ChangeKind, Conflict, Refusal, TableChange
from bot.service.play import Play
from bot.service.unit import Tables

log = logging.getLogger(__name__)

TRIES = 20  # tables an admission looks at before it leaves the rest to the next sweep


class Admission:
    def __init__(
        self,
        tables: Tables,
        play: Play,
        *,
        capacity: int = 0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.tables = tables
        self.play = play
        self.capacity = capacity
        self.clock = clock
        self._lock = asyncio.Lock()  # one decision at a time in this process
        self._tasks: set[asyncio.Task[None]] = set()

    # -- a subscriber of the core: a match that ended makes room -----------------------------
    async def plan(self, change: Change) -> Sequence[Planned]:
        return []

    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        table = change.table
        if not self.capacity or table is None or table.is_open or table.started_at is None:
            return
        self._wake()

    async def admit_quietly(self) -> None:
        """`admit`, what stops it logged (the next sweep comes back to the line)."""
        try:
            await self.admit()
        except (Refusal, Conflict, Unavailable) as error:  # the sweep comes back to it
            log.info("the line not moved now: %s", error)

    def busy(self) -> bool:
        return bool(self._tasks)

    async def idle(self) -> None:
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def waits(self) -> bool:
        """Whether a lobby that filled now would wait in line (tables wait already, or
        `capacity` matches are in play): a guess, the line may move meanwhile."""
        if not self.capacity:
            return False
        if await self.tables.store.last_in_line() is not None:
            return True
        return await self.tables.store.live_matches() >= self.capacity

    # -- the lobby's last seat ---------------------------------------------------------------
    async def full(self, table: Table, actor: int | None) -> TableChange:
        """The lobby's last seat was just taken (the caller holds its lock): the match starts,
        or, with `capacity` matches in play or tables already waiting, the table joins the end
        of the line. Committed."""
        async with self._lock:
            last = await self.tables.store.last_in_line() if self.capacity else None
            waits = bool(self.capacity) and (
                last is not None or await self.tables.store.live_matches() >= self.capacity
            )
            if not waits:
                return await self._start(table, actor)
            # (after the last in line, even on a clock that did not move: first come, first
            # served)
            now = self.clock()
            table.queued = now if last is None or now > last else last + 0.001
            place = await self.tables.place_in_line(table)
            change = TableChange(ChangeKind.QUEUED, table, actor=actor, place=place)
            await self.tables.commit(table, change)
        # (room may have come meanwhile, on another worker: the line moves once the caller
        # lets this table go)
        self._wake()
        return change

    def _wake(self) -> None:
        """The line moves in a task of its own (after the caller's locks are let go)."""
        task = asyncio.get_running_loop().create_task(self.admit_quietly())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _start(self, table: Table, actor: int | None) -> TableChange:
        events, entries = self.play.start(table)
        change = TableChange(ChangeKind.STARTED, table, table.chat_id, tuple(events), actor=actor)
        await self.tables.commit(table, change, entries, 0)
        return change

    # -- the line moves ----------------------------------------------------------------------
    async def admit(self) -> int:
        """Start the tables first in line while fewer than `capacity` matches are in play (a
        match ended, the sweep, a restart); how many started."""
        if not self.capacity:
            return 0
        started = 0
        for _ in range(TRIES):
            head = await self.tables.store.first_in_line()
            if head is None or await self.tables.store.live_matches() >= self.capacity:
                break
            async with self.tables.locked(head), self._lock:
                if await self.tables.store.live_matches() >= self.capacity:
                    break
                table = await self.tables.get(head)
                if table is None or not table.in_line:
                    continue  # it left the line meanwhile (cancelled, a player left)
                try:
                    await self._start(table, None)
                except Conflict:
                    continue  # another worker started it (or changed it) a moment ago
                started += 1
        return started
