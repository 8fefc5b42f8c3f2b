"""Each person's review, stored on SQLite and PostgreSQL (bot/storage/reviews.py): kept once
(a second writer keeps the first), read by match and person, and by person for /yo."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage.connect import open_database
from bot.storage.db import Database
from bot.storage.reviews import ReviewStore

GAME, OTHER_GAME = 1, 2


async def _games(db: Database, *ids: int) -> None:
    async with db.transaction() as conn:
        for game in ids:
            await conn.execute(
                "INSERT INTO games (id, chat_id, status, opener_id, config, language,"
                " created_at, updated_at) VALUES (?, -100, 'finished', 1, '{}', 'es', 0, 0)",
                (game,),
            )


@pytest.mark.postgresql
async def test_a_review_is_kept_once_and_read_by_match_and_person(db_target: Path | str) -> None:
    db = await open_database(db_target)
    try:
        await _games(db, GAME, OTHER_GAME)
        store = ReviewStore(db)
        assert await store.get(GAME, 7) is None
        assert await store.save(GAME, 7, 0, '{"first": 1}', at=10.0) == '{"first": 1}'
        # another process that computed it too: the first one stays
        assert await store.save(GAME, 7, 0, '{"second": 1}', at=11.0) == '{"first": 1}'
        assert await store.get(GAME, 7) == '{"first": 1}'
        assert await store.get(GAME, 8) is None  # another person's is their own
        await store.save(GAME, 8, 1, '{"rival": 1}', at=12.0)
        await store.save(OTHER_GAME, 7, 1, '{"later": 1}', at=13.0)
        assert await store.of_person(7) == ['{"later": 1}', '{"first": 1}']  # newest first
        assert await store.of_person(7, limit=1) == ['{"later": 1}']
        assert await store.of_person(9) == []
        assert await store.count(GAME) == 2
    finally:
        await db.close()
