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

    # -- a review answered first ----------------------------------------------------------------
    async def answered(
        self, user_id: int, game_id: int, step: int
    ) -> tuple[int, float | None] | None:
        """A moment's place among the person's answers: (its box, when it is due), or None if
        never answered."""
        row = await self.db.fetchone(
            "SELECT box, due_at FROM review_answers WHERE user_id = ? AND game_id = ? AND step = ?",
            user_id, game_id, step,
        )  # fmt: skip
        if row is None:
            return None
        return int(row["box"]), None if row["due_at"] is None else float(row["due_at"])

    async def answer(
        self, user_id: int, game_id: int, step: int, right: bool, box: int,
        due_at: float | None, at: float,
    ) -> None:  # fmt: skip
        """Keep an answer: its box and due time (the first answer's rightness stays)."""
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO review_answers (user_id, game_id, step, first_right, box, due_at,"
                " answered_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, game_id, step)"
                " DO UPDATE SET box = excluded.box, due_at = excluded.due_at,"
                " answered_at = excluded.answered_at",
                (user_id, game_id, step, 1 if right else 0, box, due_at, at),
            )

    async def due(self, user_id: int, now: float, most: int) -> list[tuple[int, int]]:
        """A person's missed moments due again, the longest due first: (match, step)."""
        rows = await self.db.fetchall(
            "SELECT game_id, step FROM review_answers WHERE user_id = ? AND due_at IS NOT NULL"
            " AND due_at <= ? ORDER BY due_at, game_id, step LIMIT ?",
            user_id, now, most,
        )  # fmt: skip
        return [(int(r["game_id"]), int(r["step"])) for r in rows]

    async def first_answers(self, user_id: int, game_id: int) -> dict[int, bool]:
        """A person's first answers to a match's moments: step -> right."""
        rows = await self.db.fetchall(
            "SELECT step, first_right FROM review_answers WHERE user_id = ? AND game_id = ?",
            user_id, game_id,
        )  # fmt: skip
        return {int(r["step"]): bool(r["first_right"]) for r in rows}

    async def of_person_since(self, user_id: int, since: float) -> list[str]:
        """A person's reviews of the matches that ended since `since`."""
        rows = await self.db.fetchall(
            "SELECT r.data FROM reviews r JOIN games g ON g.id = r.game_id"
            " WHERE r.user_id = ? AND g.ended_at >= ? ORDER BY g.ended_at, r.game_id",
            user_id, since,
        )  # fmt: skip
        return [str(r["data"]) for r in rows]

    async def count(self, game_id: int) -> int:
        row = await self.db.fetchone("SELECT COUNT(*) AS n FROM reviews WHERE game_id = ?", game_id)
        return int(row["n"]) if row else 0
