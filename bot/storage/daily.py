"""La mano del día's rows: the groups that want one, each hand posted (one a group and day: a
second worker's insert finds it there and does nothing), the answers (the first of each person
counts), the reads of a close and of /yo, and who lets their decisions be shown by name."""

from __future__ import annotations

from collections.abc import Sequence

from bot import codec
from bot.model.daily import Answer, DailyHand, Standing
from bot.storage.db import Conn, Database, Row

HANDS_READ = 400  # a group's closed hands read for a streak (more than a year of them)


def _hand(row: Row, answers: int = 0) -> DailyHand:
    return DailyHand(
        int(row["id"]), int(row["chat_id"]), str(row["day"]), str(row["source"]),
        None if row["game_id"] is None else int(row["game_id"]),
        None if row["user_id"] is None else int(row["user_id"]),
        codec.loads(row["data"]), str(row["language"]), float(row["posted_at"]),
        float(row["closes_at"]), None if row["closed_at"] is None else float(row["closed_at"]),
        answers,
    )  # fmt: skip


class DailyStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- the groups that want one --------------------------------------------------------------
    async def groups(self) -> list[tuple[int, int, float, str, str | None]]:
        """Every group with la mano del día on: (chat, hour, when it was chosen, its defaults
        as stored, language)."""
        rows = await self.db.fetchall(
            "SELECT chat_id, daily_hour, daily_set_at, defaults, language FROM chats"
            " WHERE daily_hour IS NOT NULL"
        )
        return [
            (int(r["chat_id"]), int(r["daily_hour"]), float(r["daily_set_at"] or 0.0),
             str(r["defaults"]), r["language"])
            for r in rows
        ]  # fmt: skip

    # -- hands ---------------------------------------------------------------------------------
    async def get(self, hand_id: int) -> DailyHand | None:
        row = await self.db.fetchone(
            "SELECT h.*, (SELECT COUNT(*) FROM daily_answers a WHERE a.hand_id = h.id) AS n"
            " FROM daily_hands h WHERE h.id = ?",
            hand_id,
        )
        return _hand(row, int(row["n"])) if row else None

    async def of_day(self, chat_id: int, day: str) -> int | None:
        row = await self.db.fetchone(
            "SELECT id FROM daily_hands WHERE chat_id = ? AND day = ?", chat_id, day
        )
        return int(row["id"]) if row else None

    async def used(self, chat_id: int) -> set[str]:
        """Where the group's hands of the day came from (a position is never posed twice)."""
        rows = await self.db.fetchall("SELECT source FROM daily_hands WHERE chat_id = ?", chat_id)
        return {str(r["source"]) for r in rows}

    async def insert(self, conn: Conn, hand: DailyHand) -> int | None:
        """The new hand's id; None if the group has one for that day already."""
        row = await conn.fetchone(
            "INSERT INTO daily_hands (chat_id, day, source, game_id, user_id, data, language,"
            " posted_at, closes_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (chat_id, day) DO NOTHING RETURNING id",
            (
                hand.chat_id, hand.day, hand.source, hand.game_id, hand.user_id,
                codec.dumps(dict(hand.data)), hand.language, hand.posted_at, hand.closes_at,
            ),
        )  # fmt: skip
        return int(row["id"]) if row else None

    async def due(self, now: float) -> list[int]:
        """The hands whose time to answer is over and are not closed yet."""
        rows = await self.db.fetchall(
            "SELECT id FROM daily_hands WHERE closed_at IS NULL AND closes_at <= ? ORDER BY id",
            now,
        )
        return [int(r["id"]) for r in rows]

    async def close(self, conn: Conn, hand_id: int, at: float) -> bool:
        """Mark it closed; False if another worker did first."""
        changed = await conn.execute(
            "UPDATE daily_hands SET closed_at = ? WHERE id = ? AND closed_at IS NULL",
            (at, hand_id),
        )
        return changed == 1

    # -- answers -------------------------------------------------------------------------------
    async def answer(
        self, conn: Conn, hand_id: int, user_id: int, choice: int, right: bool, at: float
    ) -> bool:
        """Take a person's answer while the hand is open (its time not over, not closed): False
        if they answered before, or it is closed (one statement: a close cannot slip between
        the check and the write)."""
        changed = await conn.execute(
            "INSERT INTO daily_answers (hand_id, user_id, choice, right_choice, answered_at)"
            " SELECT id, ?, ?, ?, ? FROM daily_hands"
            " WHERE id = ? AND closed_at IS NULL AND closes_at > ?"
            " ON CONFLICT (hand_id, user_id) DO NOTHING",
            (user_id, choice, 1 if right else 0, at, hand_id, at),
        )
        return changed == 1

    async def choice_of(self, hand_id: int, user_id: int) -> int | None:
        row = await self.db.fetchone(
            "SELECT choice FROM daily_answers WHERE hand_id = ? AND user_id = ?", hand_id, user_id
        )
        return int(row["choice"]) if row else None

    async def answers(self, conn: Conn, hand_id: int) -> list[Answer]:
        rows = await conn.fetchall(
            "SELECT user_id, choice, right_choice FROM daily_answers WHERE hand_id = ?"
            " ORDER BY answered_at, user_id",
            (hand_id,),
        )
        return [Answer(int(r["user_id"]), int(r["choice"]), bool(r["right_choice"])) for r in rows]

    # -- tallies -------------------------------------------------------------------------------
    async def closed_hands(self, conn: Conn | None, chat_id: int) -> list[int]:
        """The group's closed hands of the day, newest first."""
        sql = (
            "SELECT id FROM daily_hands WHERE chat_id = ? AND closed_at IS NOT NULL"
            " ORDER BY posted_at DESC, id DESC LIMIT ?"
        )
        rows = await self._all(conn, sql, (chat_id, HANDS_READ))
        return [int(r["id"]) for r in rows]

    async def rights(self, conn: Conn | None, chat_id: int, user_id: int) -> dict[int, bool]:
        """A person's answers in a group's closed hands: hand -> answered right."""
        rows = await self._all(
            conn,
            "SELECT a.hand_id, a.right_choice FROM daily_answers a"
            " JOIN daily_hands h ON h.id = a.hand_id"
            " WHERE h.chat_id = ? AND a.user_id = ? AND h.closed_at IS NOT NULL",
            (chat_id, user_id),
        )
        return {int(r["hand_id"]): bool(r["right_choice"]) for r in rows}

    async def standings(
        self, conn: Conn | None, chat_id: int, since: float, user_id: int | None = None
    ) -> list[Standing]:
        """The group's closed hands of the day posted since `since`: each person's right
        answers of their answers, most right first (fewer answered first among equals)."""
        sql = (
            "SELECT a.user_id, SUM(a.right_choice) AS r, COUNT(*) AS n FROM daily_answers a"
            " JOIN daily_hands h ON h.id = a.hand_id"
            " WHERE h.chat_id = ? AND h.closed_at IS NOT NULL AND h.posted_at >= ?"
        )
        args: list[object] = [chat_id, since]
        if user_id is not None:
            sql += " AND a.user_id = ?"
            args.append(user_id)
        sql += " GROUP BY a.user_id ORDER BY r DESC, n ASC, a.user_id"
        rows = await self._all(conn, sql, args)
        return [Standing(int(r["user_id"]), int(r["r"]), int(r["n"])) for r in rows]

    async def _all(self, conn: Conn | None, sql: str, args: Sequence[object]) -> list[Row]:
        if conn is not None:
            return await conn.fetchall(sql, args)
        return await self.db.fetchall(sql, *args)

    # -- the group's reviewed matches ------------------------------------------------------------
    async def reviewed(self, chat_id: int, since: float, most: int) -> list[tuple[int, int, str]]:
        """The reviews of the group's finished matches that ended since `since`, newest first:
        (match, person, the review as JSON). A match still in play has none (a review is only
        made of a finished match) and is left out all the same."""
        rows = await self.db.fetchall(
            "SELECT r.game_id, r.user_id, r.data FROM reviews r JOIN games g ON g.id = r.game_id"
            " WHERE g.chat_id = ? AND g.status = 'finished' AND g.ended_at >= ?"
            " ORDER BY g.ended_at DESC, r.game_id DESC, r.user_id LIMIT ?",
            chat_id,
            since,
            most,
        )
        return [(int(r["game_id"]), int(r["user_id"]), str(r["data"])) for r in rows]

    # -- names -----------------------------------------------------------------------------------
    async def named(self, user_id: int) -> bool:
        """Whether the person lets a decision of theirs be shown with their name (off unless
        they said so)."""
        row = await self.db.fetchone("SELECT named FROM daily_named WHERE user_id = ?", user_id)
        return bool(row["named"]) if row else False

    async def set_named(self, user_id: int, named: bool) -> None:
        async with self.db.transaction() as conn:
            await conn.execute(
                "INSERT INTO daily_named (user_id, named) VALUES (?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET named = excluded.named",
                (user_id, 1 if named else 0),
            )
