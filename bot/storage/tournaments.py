"""Tournaments to rows and back (`tournaments`), and the tables of a tournament by their tags."""

from __future__ import annotations

from bot import codec
from bot.league.tournament import Status, Tournament
from bot.storage.db import Conn, Database, Row

_OPEN = "('signup', 'running')"


def _tournament(row: Row) -> Tournament:
    t = Tournament(
        id=row["id"],
        chat_id=row["chat_id"],
        thread_id=row["thread_id"],
        opener_id=row["opener_id"],
        language=row["language"],
        created_at=row["created_at"],
        closes_at=0.0,
        status=Status(row["status"]),
        number=row["number"],
        version=row["version"],
        updated_at=row["updated_at"],
    )
    return t.from_json(codec.loads(row["data"]))


class TournamentStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, tournament_id: int) -> Tournament | None:
        row = await self.db.fetchone("SELECT * FROM tournaments WHERE id = ?", tournament_id)
        return _tournament(row) if row else None

    async def open_in(self, chat_id: int, thread_id: int) -> Tournament | None:
        row = await self.db.fetchone(
            f"SELECT * FROM tournaments WHERE chat_id = ? AND thread_id = ? AND status IN {_OPEN}",
            chat_id,
            thread_id,
        )
        return _tournament(row) if row else None

    async def open_ones(self) -> list[Tournament]:
        rows = await self.db.fetchall(
            f"SELECT * FROM tournaments WHERE status IN {_OPEN} ORDER BY id"
        )
        return [_tournament(r) for r in rows]

    async def past(self, chat_id: int, most: int = 10) -> list[Tournament]:
        """A group's finished tournaments, newest first."""
        rows = await self.db.fetchall(
            "SELECT * FROM tournaments WHERE chat_id = ? AND status = 'finished'"
            " ORDER BY id DESC LIMIT ?",
            chat_id,
            most,
        )
        return [_tournament(r) for r in rows]

    async def insert(self, conn: Conn, t: Tournament) -> tuple[int, int]:
        """A new tournament: its id, and its number in its group (the one after the group's
        last; two made at once in one group: one of them is a conflict, to try again)."""
        row = await conn.fetchone(
            "INSERT INTO tournaments (chat_id, thread_id, status, opener_id, language, data,"
            " version, created_at, updated_at, number) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,"
            " (SELECT coalesce(max(number), 0) + 1 FROM tournaments WHERE chat_id = ?))"
            " RETURNING id, number",
            (
                t.chat_id, t.thread_id, t.status.value, t.opener_id, t.language,
                codec.dumps(t.to_json()), t.version, t.created_at, t.updated_at, t.chat_id,
            ),
        )  # fmt: skip
        assert row is not None
        return int(row["id"]), int(row["number"])

    async def save(self, conn: Conn, t: Tournament, expected: int) -> bool:
        """Save over version `expected` only: False if another process saved first."""
        changed = await conn.execute(
            "UPDATE tournaments SET status = ?, data = ?, version = ?, updated_at = ?"
            " WHERE id = ? AND version = ?",
            (t.status.value, codec.dumps(t.to_json()), t.version, t.updated_at, t.id, expected),
        )
        return changed == 1

    async def tables_of(self, tournament_id: int) -> dict[str, int]:
        """The tables of a tournament: tag -> table id."""
        rows = await self.db.fetchall(
            "SELECT id, tournament FROM games WHERE tournament LIKE ?", f"{tournament_id}:%"
        )
        return {r["tournament"]: int(r["id"]) for r in rows}

    async def won(self, chat_id: int, user_id: int) -> tuple[int, int]:
        """Tournaments of this group a person played, and won."""
        played = won = 0
        for t in await self.past(chat_id, most=1000):
            entry = t.entry_of(user_id)
            if entry is not None:
                played += 1
                won += t.champion == entry
        return played, won
