"""One aiosqlite connection, WAL, numbered migrations, explicit transactions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import aiosqlite

from bot.storage.migrations import MIGRATIONS


class DatabaseTooNewError(RuntimeError):
    """The file was written by a newer version of the bot."""


class Database:
    """The only door to SQLite. Writes go through `transaction()`, one at a time."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn
        self._write_lock = asyncio.Lock()

    @staticmethod
    async def open(path: Path | str) -> Database:
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        try:
            conn.row_factory = aiosqlite.Row
            await conn.execute("PRAGMA journal_mode=WAL")
            await conn.execute("PRAGMA foreign_keys=ON")
            await conn.execute("PRAGMA busy_timeout=5000")
            await conn.execute("PRAGMA synchronous=NORMAL")
            db = Database(conn)
            await db.migrate()
        except BaseException:
            await conn.close()  # its thread would keep the process alive
            raise
        return db

    async def close(self) -> None:
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
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._write_lock:
            await self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                await self.conn.execute("ROLLBACK")
                raise
            else:
                await self.conn.execute("COMMIT")

    async def write(
        self, writer: Callable[[aiosqlite.Connection], Awaitable[None]]
    ) -> None:
        """Writes that need no transaction of their own (a single statement, or statements any
        prefix of which is harmless to keep): taken in turn with transactions, autocommitted."""
        async with self._write_lock:
            await writer(self.conn)

    async def fetchone(self, sql: str, *args: object) -> aiosqlite.Row | None:
        async with self.conn.execute(sql, args) as cursor:
            return await cursor.fetchone()

    async def fetchall(self, sql: str, *args: object) -> list[aiosqlite.Row]:
        async with self.conn.execute(sql, args) as cursor:
            return list(await cursor.fetchall())
