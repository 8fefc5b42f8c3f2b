"""What difícil learned of each person, per group (`rivals`): a belief about their habits as
JSON, kept with the league and bounded: the RIVALS_PER_GROUP people seen most recently in a
group, and RIVALS_KEPT in all groups together (about 4 kB each: some 80 MB at most)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.model.occupants import people
from bot.storage.db import Database

RIVALS_PER_GROUP = 500  # a group's people remembered at most (the longest unseen go first)
RIVALS_KEPT = 20_000  # people remembered in all groups together (the longest unseen go first)


class RivalStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def load(self, chat_id: int, users: Sequence[int]) -> dict[int, str]:
        """The stored beliefs of `users` in group `chat_id` (who has none is left out)."""
        users = people(users)
        if not users:
            return {}
        marks = ",".join("?" * len(users))
        rows = await self.db.fetchall(
            f"SELECT user_id, belief FROM rivals WHERE chat_id = ? AND user_id IN ({marks})",
            chat_id,
            *users,
        )
        return {int(r["user_id"]): str(r["belief"]) for r in rows}

    async def save(self, chat_id: int, beliefs: dict[int, str], at: float) -> None:
        """Store what a match taught (one transaction), then keep the group within its bound."""
        if not beliefs:
            return
        async with self.db.transaction() as conn:
            await conn.executemany(
                "INSERT INTO rivals (chat_id, user_id, belief, matches, seen_at)"
                " VALUES (?, ?, ?, 1, ?) ON CONFLICT (chat_id, user_id) DO UPDATE SET"
                " belief = excluded.belief, matches = rivals.matches + 1,"
                " seen_at = excluded.seen_at",
                [(chat_id, user, belief, at) for user, belief in beliefs.items()],
            )
            await conn.execute(
                "DELETE FROM rivals WHERE chat_id = ? AND user_id NOT IN (SELECT user_id FROM"
                " rivals WHERE chat_id = ? ORDER BY seen_at DESC, user_id LIMIT ?)",
                (chat_id, chat_id, RIVALS_PER_GROUP),
            )
            row = await conn.fetchone("SELECT COUNT(*) AS n FROM rivals")
            over = int(row["n"]) - RIVALS_KEPT if row else 0
            if over > 0:  # the longest unseen of any group go (ties: as within a group)
                await conn.execute(
                    "DELETE FROM rivals WHERE (chat_id, user_id) IN (SELECT chat_id, user_id"
                    " FROM rivals ORDER BY seen_at, user_id DESC, chat_id DESC LIMIT ?)",
                    (over,),
                )

    async def count(self, chat_id: int) -> int:
        row = await self.db.fetchone("SELECT COUNT(*) AS n FROM rivals WHERE chat_id = ?", chat_id)
        return int(row["n"]) if row else 0

    async def matches(self, chat_id: int, user_id: int) -> int:
        """How many matches taught what is stored of a person (0: nothing is)."""
        row = await self.db.fetchone(
            "SELECT matches FROM rivals WHERE chat_id = ? AND user_id = ?", chat_id, user_id
        )
        return int(row["matches"]) if row else 0
