"""What difícil remembers of people, stored per group (bot/storage/rivals.py), on SQLite and
PostgreSQL: saved and loaded per group, counted, and bounded (the longest unseen go first)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage import rivals as module
from bot.storage.connect import open_database
from bot.storage.rivals import RivalStore

GROUP, OTHER = -100, -200


@pytest.mark.postgresql
async def test_people_remembered_per_group_and_bounded(
    db_target: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = await open_database(db_target)
    try:
        store = RivalStore(db)
        await store.save(GROUP, {1: '{"a": 1}', 2: '{"b": 2}'}, at=10.0)
        await store.save(OTHER, {1: '{"other": 1}'}, at=11.0)
        assert await store.load(GROUP, [1, 2, 3, -3]) == {1: '{"a": 1}', 2: '{"b": 2}'}
        assert await store.load(OTHER, [1, 2]) == {1: '{"other": 1}'}  # another group's own
        assert await store.load(GROUP, []) == {}
        await store.save(GROUP, {1: '{"a": 2}'}, at=12.0)  # a second match with person 1
        assert await store.load(GROUP, [1]) == {1: '{"a": 2}'}
        assert await store.matches(GROUP, 1) == 2 and await store.matches(GROUP, 2) == 1
        assert await store.matches(GROUP, 9) == 0
        monkeypatch.setattr(module, "RIVALS_PER_GROUP", 3)
        for user, at in ((3, 13.0), (4, 14.0)):
            await store.save(GROUP, {user: "{}"}, at=at)
        # four people seen, three kept: person 2 (seen at 10) went first
        assert await store.count(GROUP) == 3
        assert sorted(await store.load(GROUP, [1, 2, 3, 4])) == [1, 3, 4]
        assert await store.count(OTHER) == 1  # another group's bound is its own
    finally:
        await db.close()


@pytest.mark.postgresql
async def test_people_remembered_are_bounded_across_groups(
    db_target: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each group keeps its own bound, and all groups together keep RIVALS_KEPT at most: the
    longest unseen anywhere go first."""
    db = await open_database(db_target)
    try:
        store = RivalStore(db)
        monkeypatch.setattr(module, "RIVALS_KEPT", 5)
        at = 0.0
        for group in (-1, -2, -3):
            for user in (1, 2, 3):
                at += 1
                await store.save(group, {user: f'{{"seen": {at}}}'}, at=at)
        assert await store.count(-1) + await store.count(-2) + await store.count(-3) == 5
        assert await store.load(-1, [1, 2, 3]) == {}  # seen first, gone first
        assert sorted(await store.load(-2, [1, 2, 3])) == [2, 3]
        assert sorted(await store.load(-3, [1, 2, 3])) == [1, 2, 3]
        await store.save(-1, {1: '{"back": 1}', 2: '{"back": 2}'}, at=at + 1)  # seen again
        assert sorted(await store.load(-1, [1, 2])) == [1, 2]
        assert await store.load(-2, [2, 3]) == {}
        assert sorted(await store.load(-3, [1, 2, 3])) == [1, 2, 3]
    finally:
        await db.close()
