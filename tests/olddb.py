"""A database as an older schema left it: the migrations up to one, then rows in that schema's
shape, on SQLite or PostgreSQL, the way the code of then made it (the tests of a migration open
it with today's code, which migrates it)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bot.storage.migrations import MIGRATIONS, script_of
from bot.storage.postgres import postgres_ddl, to_postgres


async def database_before(
    target: Path | str,
    migration: int,
    rows: Sequence[tuple[str, Sequence[Any]]],
    also_on_postgresql: Sequence[str] = (),
) -> None:
    """`target` at the schema of MIGRATIONS[:migration], holding `rows` (each an INSERT in
    SQLite's placeholders and its values); `also_on_postgresql`: statements PostgreSQL needs
    after explicit ids (a sequence moved past them)."""
    old = MIGRATIONS[:migration]
    if isinstance(target, Path):
        raw = sqlite3.connect(target)
        raw.execute("PRAGMA synchronous=OFF")  # (a test's file: no power cut to outlive)
        for step in old:
            raw.executescript(script_of(step, "sqlite"))
        raw.execute(f"PRAGMA user_version={len(old)}")
        for sql, args in rows:
            raw.execute(sql, tuple(args))
        raw.commit()
        raw.close()
        return
    import asyncpg

    conn = await asyncpg.connect(target)
    try:
        async with conn.transaction():
            await conn.execute("CREATE TABLE schema_version (version BIGINT)")
            for number, step in enumerate(old, start=1):
                for statement in postgres_ddl(script_of(step, "postgresql")).split(";\n"):
                    if statement.strip():
                        await conn.execute(statement)
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", number)
            for sql, args in rows:
                await conn.execute(to_postgres(sql), *args)
            for statement in also_on_postgresql:
                await conn.execute(statement)
    finally:
        await conn.close()
