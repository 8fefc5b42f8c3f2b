"""The lobby: open a table, join and leave it, seat computer players, set its options; cancel
a table and let a lobby nobody filled expire."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from bot.game import MatchConfig
from bot.game.seats import SIDES
from bot.model.options import LOBBY_OPTIONS, Option, bot_level
from bot.model.outcome import Outcome
from bot.model.refusals import Refused
from bot.model.table import BOT_IDS, PlaceKind, Table, TableStatus
from bot.service.admission import Admission
from bot.service.changes import ChangeKind, Refusal, TableChange, TableKind
from bot.service.play import Play
from bot.service.unit import Tables
from bot.storage.db import is_conflict

TABLES_PER_PERSON = 3  # open tables one person may have opened at once (in any chat)


class Lobby:
    def __init__(
        self,
        tables: Tables,
        play: Play,
        *,
        clock: Callable[[], float] = time.time,
        admission: Admission | None = None,
    ) -> None:
        self.tables = tables
        self.play = play
        self.clock = clock
        # whether a full lobby starts now or waits in line (no limit unless given one)
        self.admission = admission or Admission(tables, play, clock=clock)

    async def open(
        self,
        chat_id: int,
        thread_id: int,
        opener_id: int,
        config: MatchConfig,
        language: str,
        turn_seconds: int = 0,
        seat_opener: bool = False,
        hints: bool = False,
        place: PlaceKind = PlaceKind.GROUP,
    ) -> Table:
        """Open a lobby; the opener sits in the first seat (team 1) when they can be messaged
        privately, in the same commit, so the first lobby message already shows them."""
        async with self.tables.open_lock:
            existing = await self.tables.table_in(chat_id, thread_id)
            if existing is not None:
                raise Refusal(Refused.TABLE_ALREADY_OPEN, table=existing)
            # One person cannot keep the computer players busy for everyone with table after
            # table (one per forum topic).
            if await self.tables.store.open_tables_of(opener_id) >= TABLES_PER_PERSON:
                raise Refusal(Refused.TOO_MANY_TABLES, most=TABLES_PER_PERSON)
            now = self.clock()
            table = Table(
                id=0,
                chat_id=chat_id,
                thread_id=thread_id,
                status=TableStatus.LOBBY,
                opener_id=opener_id,
                config=config,
                seats=[None] * config.players,
                language=language,
                created_at=now,
                updated_at=now,
                turn_seconds=turn_seconds,
                hints=hints,
                place=place,
            )
            if seat_opener:
                table.seats[0] = opener_id
            try:
                await self.tables.insert(
                    table, lambda t: TableChange(ChangeKind.OPENED, t, chat_id, actor=opener_id)
                )
            except Exception as error:
                if not is_conflict(error):
                    raise
                # Another process opened one here a moment ago (one open table per topic).
                there = await self.tables.table_in(chat_id, thread_id)
                raise Refusal(Refused.TABLE_ALREADY_OPEN, table=there) from None
            return table

    async def rematch(self, old_id: int, user_id: int) -> TableChange:
        """🔁 Revancha after a finished match: the table kept. A new table in the same place
        with the same options, the tapper in their old seat and the computer players in theirs,
        the same ones (names and characters are drawn from the chain's first table, its
        `lineage`); the others join with a tap (a second tap on Revancha takes that player's
        old seat, else one on the same team)."""
        old = await self.tables.get(old_id)
        if old is None or old.status is not TableStatus.FINISHED:
            raise Refusal(Refused.REMATCH_NOT_OVER)
        seat = old.seat_of(user_id)
        if seat is None:
            raise Refusal(Refused.REMATCH_NOT_YOURS)
        team = old.geometry.side(seat) if old.geometry.partners(seat) else None
        existing = await self.tables.table_in(old.chat_id, old.thread_id)
        if existing is not None:
            if existing.status is TableStatus.LOBBY and existing.rematch_of == old.lineage:
                async with self.tables.locked(existing.id):
                    table = await self._lobby(existing.id)
                    if table.seats[seat] is None and table.seat_of(user_id) is None:
                        table.seats[seat] = user_id
                        return await self._seated(table, user_id)
                return await self.join(existing.id, user_id, team)
            raise Refusal(Refused.TABLE_ALREADY_OPEN, table=existing)
        opened = await self.open(
            old.chat_id,
            old.thread_id,
            user_id,
            old.config,
            old.language,
            old.turn_seconds,
            hints=old.hints,
            place=old.place,
        )
        async with self.tables.locked(opened.id):
            table = await self._lobby(opened.id)
            table.rematch_of = old.lineage
            table.seats[seat] = user_id
            for bot in old.bot_seats:
                table.seats[bot] = old.seats[bot]
            return await self._seated(table, user_id)

    async def last_thread(self, chat_id: int) -> int:
        """The highest topic id any table of this chat had (0 for none)."""
        return await self.tables.store.last_thread(chat_id)

    @staticmethod
    def _team(table: Table, team: int | None) -> tuple[int, ...] | None:
        """The seats of the team asked for (None: any seat; in 1v1 a team means nothing)."""
        if team is not None and team not in SIDES:
            raise Refusal(Refused.BAD_BUTTON)
        if team is None or table.geometry.team_size == 1:
            return None
        return table.geometry.of_side(team)

    async def _lobby(self, table_id: int, in_line: bool = False) -> Table:
        """The lobby (the caller holds its lock); one waiting in line to start is refused,
        its place said, unless `in_line` (leaving it, asking its place)."""
        table = await self.tables.get(table_id)
        if table is None or table.status is not TableStatus.LOBBY:
            raise Refusal(Refused.LOBBY_CLOSED)
        if table.in_line and not in_line:
            raise Refusal(Refused.IN_LINE, place=await self.tables.place_in_line(table))
        return table

    async def place(self, table_id: int) -> int:
        """A lobby's place in the line of tables waiting to start (1: the next); 0: it is not
        in line."""
        table = await self._lobby(table_id, in_line=True)
        return await self.tables.place_in_line(table) if table.in_line else 0

    async def join(self, table_id: int, user_id: int, team: int | None = None) -> TableChange:
        async with self.tables.locked(table_id):
            table = await self._lobby(table_id)
            seat = table.seat_of(user_id)
            wanted = self._team(table, team)
            if seat is not None and (wanted is None or seat in wanted):
                raise Refusal(Refused.ALREADY_JOINED)
            free = [s for s in (wanted or table.geometry.all) if table.seats[s] is None]
            if not free:
                raise Refusal(Refused.TEAM_FULL if wanted is not None else Refused.TABLE_FULL)
            if seat is not None:
                table.seats[seat] = None
            table.seats[free[0]] = user_id
            return await self._seated(table, user_id)

    async def _seated(self, table: Table, user_id: int) -> TableChange:
        """Commit a lobby change; the match starts when the last seat is taken (or the table
        waits in line for it: `Admission`)."""
        if all(s is not None for s in table.seats):
            change = await self.admission.full(table, user_id)
        else:
            change = TableChange(ChangeKind.LOBBY, table, table.chat_id, actor=user_id)
            await self.tables.commit(table, change)
        return change

    async def add_bot(
        self, table_id: int, user_id: int, team: int | None, level: str = "normal"
    ) -> TableChange:
        """The opener seats a computer player (in `team`, for 2v2). Bots at one table share a
        level. A table is never filled by bots alone."""
        async with self.tables.locked(table_id):
            table = await self._lobby(table_id)
            if user_id != table.opener_id:
                raise Refusal(Refused.ONLY_OPENER)
            wanted = self._team(table, team)
            free = [s for s in (wanted or table.geometry.all) if table.seats[s] is None]
            if not free:
                raise Refusal(Refused.TEAM_FULL if wanted is not None else Refused.TABLE_FULL)
            empty = [s for s in table.geometry.all if table.seats[s] is None]
            if len(empty) == 1 and not table.players:
                raise Refusal(Refused.BOT_NEEDS_PEOPLE)
            current = [table.bot_level(s) for s in table.bot_seats]
            level = current[0] or level if current else level
            if level not in BOT_IDS:
                raise Refusal(Refused.BAD_BUTTON)
            table.seats[free[0]] = BOT_IDS[level]
            return await self._seated(table, user_id)

    async def remove_bot(self, table_id: int, user_id: int) -> Table:
        """The opener takes the last computer player out of the lobby."""
        async with self.tables.locked(table_id):
            table = await self._lobby(table_id)
            if user_id != table.opener_id:
                raise Refusal(Refused.ONLY_OPENER)
            if not table.bot_seats:
                raise Refusal(Refused.NO_BOT)
            table.seats[table.bot_seats[-1]] = None
            await self.tables.commit(table, TableChange(ChangeKind.LOBBY, table, actor=user_id))
            return table

    async def leave(self, table_id: int, user_id: int) -> Table:
        """A player leaves the lobby; one waiting in line leaves the line (the tables behind it
        move up) and waits for a player again, its time to fill counted anew."""
        async with self.tables.locked(table_id):
            table = await self._lobby(table_id, in_line=True)
            seat = table.seat_of(user_id)
            if seat is None:
                raise Refusal(Refused.NOT_JOINED)
            table.seats[seat] = None
            if table.in_line:
                table.queued = None
                table.created_at = self.clock()  # (a lobby's time to fill runs from it)
            await self.tables.commit(table, TableChange(ChangeKind.LOBBY, table, actor=user_id))
            return table

    async def set_option(self, table_id: int, user_id: int, option: str) -> Table:
        """The opener taps an option: it moves to its next value (bot/options.py)."""
        async with self.tables.locked(table_id):
            table = await self._lobby(table_id)
            if user_id != table.opener_id:
                raise Refusal(Refused.ONLY_OPENER)
            chosen = next((o for o in LOBBY_OPTIONS if o.value == option), None)
            if chosen is None:
                raise Refusal(Refused.BAD_BUTTON)
            after = table.options.cycled(chosen)
            if chosen is Option.MODE:
                joined = [u for u in table.seats if u is not None]
                if len(joined) > after.config.players:
                    raise Refusal(Refused.TOO_MANY_FOR_1V1)
                table.seats = joined + [None] * (after.config.players - len(joined))
            elif chosen is Option.BOT:
                if not table.bot_seats:
                    raise Refusal(Refused.NO_BOT)
                for seat in table.bot_seats:
                    table.seats[seat] = BOT_IDS[bot_level(after.bot)]
            table.config = replace(after.config)
            table.turn_seconds = after.timer
            table.hints = after.hints
            await self.tables.commit(table, TableChange(ChangeKind.LOBBY, table, actor=user_id))
            return table

    async def cancel(
        self, table_id: int, user_id: int | None, is_admin: bool, chat_gone: bool = False
    ) -> Table:
        """`user_id` None: the bot itself (it left the group)."""
        async with self.tables.locked(table_id):
            table = await self.tables.get(table_id)
            if table is None or not table.is_open:
                raise Refusal(Refused.NO_TABLE)
            if user_id is not None and user_id != table.opener_id and not is_admin:
                raise Refusal(Refused.ONLY_OPENER_OR_ADMIN)
            was = table.status
            table.status = TableStatus.CANCELLED
            table.ended_at = self.clock()
            if was is TableStatus.PLAYING:
                table.outcome = Outcome.cancelled(table.scores)
            kind: TableKind = ChangeKind.CHAT_GONE if chat_gone else ChangeKind.CANCELLED
            await self.tables.commit(table, TableChange(kind, table, actor=user_id, was=was))
            return table

    async def expire(self, table_id: int) -> Table | None:
        """A lobby nobody filled in time closes (never one full and waiting in line)."""
        async with self.tables.locked(table_id):
            table = await self.tables.get(table_id)
            if table is None or table.status is not TableStatus.LOBBY or table.in_line:
                return None
            table.status = TableStatus.CANCELLED
            table.ended_at = self.clock()
            await self.tables.commit(table, TableChange(ChangeKind.EXPIRED, table))
            return table
