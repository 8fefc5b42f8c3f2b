"""Chats: a group's language and defaults for new tables, a group that became a supergroup,
and a group the bot was removed from."""

from __future__ import annotations

from collections.abc import Sequence

from bot.model.options import TableOptions
from bot.model.outbox import Outgoing
from bot.model.table import Table
from bot.service.changes import ChangeKind, ChatChange, Refusal, TableChange
from bot.service.lobby import Lobby
from bot.service.unit import Tables, split
from bot.storage.db import Conn


class Chats:
    def __init__(
        self,
        tables: Tables,
        lobby: Lobby,
        *,
        language: str = "es",
        turn_seconds: int = 0,
        bot_level: str = "normal",
    ) -> None:
        self.tables = tables
        self.store = tables.store
        self.lobby = lobby
        self.language_default = language  # the operator's
        self.turn_seconds = turn_seconds
        self.bot_level = bot_level

    # -- settings --------------------------------------------------------------------------------
    async def language(self, chat_id: int) -> str:
        return await self.store.chat_language(chat_id) or self.language_default

    async def defaults(self, chat_id: int) -> TableOptions:
        """The group's defaults for new tables, over the operator's."""
        stored = await self.store.chat_defaults(chat_id)
        return stored.options(self.turn_seconds, self.bot_level)

    async def set_language(
        self, chat_id: int, language: str, rows: Sequence[Outgoing] = ()
    ) -> None:
        """`rows`: what the caller's front end says about it, in the same commit."""

        async def write(conn: Conn) -> None:
            await self.store.set_chat_language(conn, chat_id, language)

        await self.tables.announce(ChatChange(chat_id), write, rows)

    async def set_defaults(
        self, chat_id: int, options: TableOptions, rows: Sequence[Outgoing] = ()
    ) -> None:
        stored = await self.store.chat_defaults(chat_id)
        # Only what the group changed is its own: the rest follows the operator's settings.
        chosen = stored.choosing(options, self.turn_seconds, self.bot_level)
        before = stored.options(self.turn_seconds, self.bot_level).daily

        async def write(conn: Conn) -> None:
            await self.store.set_chat_defaults(conn, chat_id, chosen)
            # (la mano del día's hour beside the defaults, where the sweep finds it)
            await self.store.set_daily_hour(
                conn, chat_id, options.daily, self.tables.clock(), options.daily != before
            )

        await self.tables.announce(ChatChange(chat_id), write, rows)

    # -- chats that change -----------------------------------------------------------------------
    async def move(self, old: int, new: int) -> list[Table]:
        """The group was upgraded to a supergroup: open tables go on in the new chat."""
        async with self.tables.open_lock:
            moved = self.tables.cached_in(old)
            for found in await self.store.open_tables():
                if found.chat_id == old and found.id not in {t.id for t in moved}:
                    loaded = await self.tables.get(found.id)
                    if loaded is not None:
                        moved.append(loaded)
            for table in moved:
                table.chat_id = new
            changes = [TableChange(ChangeKind.MOVED, t) for t in moved]
            planned = [split(await self.tables.changes.plan(c)) for c in changes]
            rows = [r for some, _ in planned for r in some]
            records = [r for _, some in planned for r in some]

            async def also(conn: Conn) -> None:
                await self.tables.outbox.enqueue(conn, rows)
                await self.tables.records.store.write(conn, records)

            try:
                await self.store.move_chat(old, new, also)
            except BaseException:
                for table in moved:
                    self.tables.forget(table.id)
                raise
            self.tables.records.written(records)
            for change, (some, _) in zip(changes, planned, strict=True):
                self.tables.changes.committed(change, some)
            return moved

    async def close(self, chat_id: int) -> list[Table]:
        """The bot left or was removed from a group: its open tables are cancelled."""
        closed = []
        for table in await self.store.open_tables():
            if table.chat_id == chat_id:
                try:
                    closed.append(await self.lobby.cancel(table.id, None, True, chat_gone=True))
                except Refusal:
                    continue
        return closed
