"""The door to the database: a file path opens SQLite, a `postgresql://` URL PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from bot.storage.db import Database, is_postgres
from bot.storage.postgres import PostgresDatabase, preflight_postgres
from bot.storage.sqlite import SqliteDatabase, preflight_sqlite


async def open_database(where: str | Path, pool: int = 10) -> Database:
    """A file path (SQLite) or a `postgresql://` URL (`pool`: its connections at most)."""
    if is_postgres(where):
        return await PostgresDatabase.connect(str(where), pool)
    return await SqliteDatabase.connect(where)


async def preflight(where: str | Path) -> str | None:
    """Whether this code can use the database: open it, see that it knows its schema, and write
    to it (throw-away connections: nothing to clean up when it fails). None, or what is wrong."""
    if is_postgres(where):
        return await preflight_postgres(str(where))
    return preflight_sqlite(where)
