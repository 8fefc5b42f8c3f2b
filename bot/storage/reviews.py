"""Each person's review of a match (`bot.ai.review`), as JSON: written once (a second writer,
another process that computed it too, keeps the first), read by match and by person."""

from __future__ import annotations

from bot.storage.db import Database


class ReviewStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, game_id: int, user_id: int) -> str | None:
        row = await self.db.fetchone(
            "SELECT data FROM reviews WHERE game_id = ? AND user_id = ?", game_id, user_id
        )
        return str(row["data"]) if row else None

    async def save(self, game_id: int, user_id: int, seat: int, data: str, at: float) -> str:
        """Keep a review (the first one kept wins); the review now stored."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO reviews (game_id, user_id, seat, data, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, user_id) DO NOTHING",
                (game_id, user_id, seat, data, at),
            )
        stored = await self.get(game_id, user_id)
        assert stored is not None
        return stored

    async def of_person(self, user_id: int, limit: int = 50) -> list[str]:
        """A person's latest reviews, newest first."""
        rows = await self.db.fetchall(
            "SELECT data FROM reviews WHERE user_id = ? ORDER BY created_at DESC, game_id DESC"
            " LIMIT ?",
            user_id,
            limit,
        )
        return [str(r["data"]) for r in rows]

    async def count(self, game_id: int) -> int:
        row = await self.db.fetchone("SELECT COUNT(*) AS n FROM reviews WHERE game_id = ?", game_id)
        return int(row["n"]) if row else 0
