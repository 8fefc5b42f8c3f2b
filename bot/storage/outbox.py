"""The outbox: what the bot decided to say, written in the transaction that decided it.

A row is one call to make in one chat (its *lane*). Rows with a `key` coalesce while they
wait: enqueuing the same key again bumps the row's `version` instead of adding a row, and a
delivery that rendered version v deletes the row only if nobody bumped it meanwhile (else it
records `done = v` and the row goes out once more, rendering the newer state). `loud` remembers
the version at which a notifying delivery (a hand message sent anew) was last asked for.

`lanes` says which sender owns a chat's lane (a lease, so several processes can share one
database, each lane run by one sender at a time) and when the lane may call next (pacing that
survives a restart).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot import codec
from bot.storage.db import Conn, Database


class RowKind(StrEnum):
    """What a row asks a front end to do (stored as these strings)."""

    TEXT = "text"  # a new message, its text rendered when decided
    EDIT = "edit"  # a new text for a message of ours (a /config panel, a page of a reading)
    LOBBY = "lobby"  # the lobby message, rendered when it goes out
    BOARD = "board"  # the group's board, rendered when it goes out
    HAND = "hand"  # a player's private hand message, rendered when it goes out
    CLOSE = "close"  # the lobby or board of a table that ended without a winner
    MATCH_END = "match_end"  # the end of a match: final score, ratings, the seed


def row_kind(text: str) -> RowKind | None:
    """A stored kind; None for one this code no longer makes."""
    try:
        return RowKind(text)
    except ValueError:
        return None


POST = 0  # new messages and announcements: in the order they were decided
URGENT = 1  # the tapper's own hand, the hand of whoever must act now, a hand that notifies
REFRESH = 2  # edits that only need their latest version


@dataclass(frozen=True)
class Outgoing:
    """Something to send, edit or delete in `chat_id`, decided by a change of state."""

    chat_id: int
    kind: RowKind
    payload: dict[str, Any] = field(default_factory=dict)
    key: str | None = None  # same key, same chat, still waiting: one row
    priority: int = POST
    loud: bool = False


@dataclass(frozen=True)
class Pending:
    """A row waiting in a lane, as its sender reads it."""

    id: int
    chat_id: int
    kind: RowKind | None  # None: a kind this code no longer makes (dropped, logged)
    key: str | None
    payload: dict[str, Any]
    version: int
    priority: int
    loud: bool  # a notifying delivery was asked for since the last delivery


class OutboxStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def enqueue(self, conn: Conn, rows: list[Outgoing], now: float) -> None:
        """Inside the caller's transaction."""
        plain: list[tuple[object, ...]] = []
        keyed: list[tuple[object, ...]] = []
        for row in rows:
            payload = codec.dumps(row.payload)
            values = (row.chat_id, row.priority, row.kind, row.key, payload, int(row.loud), now)
            (plain if row.key is None else keyed).append(values)
        if plain:
            await conn.executemany(
                "INSERT INTO outbox (chat_id, priority, kind, key, payload, loud, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                plain,
            )
        if keyed:
            await conn.executemany(
                "INSERT INTO outbox (chat_id, priority, kind, key, payload, loud, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (chat_id, key) WHERE key IS NOT NULL DO UPDATE SET"
                " version = outbox.version + 1,"
                " loud = CASE WHEN excluded.loud > 0 THEN outbox.version + 1 ELSE outbox.loud END,"
                " priority = CASE WHEN excluded.priority < outbox.priority"
                " THEN excluded.priority ELSE outbox.priority END",
                keyed,
            )

    async def lane_rows(
        self, chat_id: int, limit: int = 16, posts_last: bool = False
    ) -> list[Pending]:
        """The lane's waiting rows, in the order they go out: new messages first, in the order
        they were decided, then refreshes. `posts_last`: refreshes first (a board must not wait
        behind a flood of new messages)."""
        order = "priority = 0, priority, id" if posts_last else "priority, id"
        rows = await self.db.fetchall(
            "SELECT id, chat_id, kind, key, payload, version, priority, loud > done AS is_loud"
            f" FROM outbox WHERE chat_id = ? ORDER BY {order} LIMIT ?",
            chat_id,
            limit,
        )
        return [
            Pending(
                id=row["id"],
                chat_id=row["chat_id"],
                kind=row_kind(row["kind"]),
                key=row["key"],
                payload=codec.loads(row["payload"]),
                version=row["version"],
                priority=row["priority"],
                loud=bool(row["is_loud"]),
            )
            for row in rows
        ]

    async def complete(
        self,
        conn: Conn,
        row: Pending,
        owner: str,
        next_at: float | None,
    ) -> None:
        """The row went out as `row.version`: gone, unless it was bumped meanwhile. Any prefix
        of these statements is harmless to keep (the lane's pace first: a row sent again after a
        crash still keeps it), so they need no transaction of their own."""
        if next_at is not None:
            await conn.run(
                "UPDATE lanes SET next_at = ? WHERE chat_id = ? AND owner = ?",
                (next_at, row.chat_id, owner),
            )
        # Gone; or, bumped meanwhile, marked done as `row.version` (the newer one still goes).
        deleted = await conn.execute(
            "DELETE FROM outbox WHERE id = ? AND version = ?", (row.id, row.version)
        )
        if not deleted:
            await conn.run("UPDATE outbox SET done = ? WHERE id = ?", (row.version, row.id))

    async def claim(self, chat_id: int, owner: str, now: float, lease: float) -> float | None:
        """Own the lane until now + lease, if it is free, expired or already ours: the time of
        its next call; None if another sender holds it."""
        async with self.db.transaction() as conn:
            await conn.run(
                "INSERT INTO lanes (chat_id, owner, lease_until) VALUES (?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET owner = excluded.owner,"
                " lease_until = excluded.lease_until"
                " WHERE lanes.owner = excluded.owner OR lanes.lease_until < ?",
                (chat_id, owner, now + lease, now),
            )
            found = await conn.fetchone(
                "SELECT owner, next_at FROM lanes WHERE chat_id = ?", (chat_id,)
            )
        if found is None or found["owner"] != owner:
            return None
        return float(found["next_at"])

    async def release(self, chat_id: int, owner: str) -> None:
        """An idle lane: its lease ends now (its pace, `next_at`, stays)."""

        async def writer(conn: Conn) -> None:
            await conn.run(
                "UPDATE lanes SET lease_until = 0 WHERE chat_id = ? AND owner = ?",
                (chat_id, owner),
            )

        await self.db.write(writer)

    async def lanes_with_work(self, owner: str, now: float) -> list[int]:
        """Chats with rows waiting whose lane is free, expired, or ours."""
        rows = await self.db.fetchall(
            "SELECT DISTINCT o.chat_id FROM outbox o LEFT JOIN lanes l ON l.chat_id = o.chat_id"
            " WHERE l.chat_id IS NULL OR l.owner = ? OR l.lease_until < ?",
            owner,
            now,
        )
        return [r["chat_id"] for r in rows]

    async def waiting(self) -> int:
        row = await self.db.fetchone("SELECT count(*) AS n FROM outbox")
        return int(row["n"]) if row else 0
