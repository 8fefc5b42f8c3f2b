"""Front ends' records of a table (`front_records`): a front end's own names and values, kept by
table id beside the table (Telegram: its messages' ids and join token). The core writes them in
a change's commit or in a front end's own transaction; the storage only maps them."""

from __future__ import annotations

from collections.abc import Iterable

from bot.model.outbox import Record
from bot.storage.db import Conn, Database


class RecordStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def of(self, front: str, table_id: int) -> dict[str, str]:
        rows = await self.db.fetchall(
            "SELECT name, value FROM front_records WHERE front = ? AND table_id = ?",
            front,
            table_id,
        )
        return {r["name"]: r["value"] for r in rows}

    async def find(self, front: str, name: str, value: str) -> int | None:
        """The table whose record `name` holds `value` (the newest, if several)."""
        row = await self.db.fetchone(
            "SELECT max(table_id) AS found FROM front_records"
            " WHERE front = ? AND name = ? AND value = ?",
            front,
            name,
            value,
        )
        return int(row["found"]) if row and row["found"] is not None else None

    async def write(self, conn: Conn, records: Iterable[Record]) -> None:
        """Inside the caller's transaction: a value set (or deleted, for None), in order."""
        for record in records:
            if record.value is None:
                await conn.execute(
                    "DELETE FROM front_records WHERE front = ? AND table_id = ? AND name = ?",
                    (record.front, record.table_id, record.name),
                )
            else:
                await conn.execute(
                    "INSERT INTO front_records (front, table_id, name, value) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (front, table_id, name) DO UPDATE SET value = excluded.value",
                    (record.front, record.table_id, record.name, record.value),
                )
