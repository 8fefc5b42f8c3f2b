"""Typed records stored as the strings databases have always held: a table's recent calls and
the kinds of outbox rows."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot import codec
from bot.core import Core
from bot.game import ActionKind
from bot.model.outbox import Outgoing, RowKind
from bot.model.table import Call, Note
from bot.storage.connect import open_database
from bot.storage.outbox import OutboxStore
from bot.storage.repo import Store
from bot.telegram.delivery import Deliverer


def test_calls_load_from_the_lists_old_databases_hold_and_save_back_the_same() -> None:
    stored = [
        [0, "truco", None],
        [1, "mazo", None],
        [-1, "envido_values", [[0, 27], [1, 30]]],
        [-1, "flor_values", [[2, 33]]],
        [3, "envido_annulled", None],
        [1, "concede", None],
    ]
    calls = [Call.from_json(entry) for entry in codec.loads(codec.dumps(stored))]
    assert calls == [
        Call(0, ActionKind.TRUCO),
        Call(1, Note.MAZO),
        Call(None, Note.ENVIDO_VALUES, ((0, 27), (1, 30))),
        Call(None, Note.FLOR_VALUES, ((2, 33),)),
        Call(3, Note.ENVIDO_ANNULLED),
        Call(1, Note.CONCEDE),
    ]
    assert [c.to_json() for c in calls] == stored


async def test_a_row_of_a_kind_no_longer_made_is_dropped_and_said(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An old database may still hold a "summary" row (a kind this code no longer makes): it
    is read as no kind, and delivering it drops it with a warning, calling nobody."""
    db = await open_database(tmp_path / "t.db")
    store = OutboxStore(db)
    async with db.transaction() as conn:
        await store.enqueue(conn, [Outgoing(-5, RowKind.TEXT, {"text": "hola"})], 0.0)
        await conn.execute(
            "INSERT INTO outbox (chat_id, priority, kind, key, payload, loud, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (-5, 0, "summary", None, codec.dumps({"t": 1, "text": "x"}), 0, 0.0),
        )
    rows = await store.lane_rows(-5)
    assert [r.kind for r in rows] == [RowKind.TEXT, None]
    core = Core.build(Store(db))
    deliverer = Deliverer(None, core, None, "truco_bot")  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="bot.telegram.delivery"):
        delivery = await deliverer.deliver(rows[1])
    assert not delivery.called and "no longer makes" in caplog.text
    await db.close()


async def test_the_names_a_process_remembers_are_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """People seen once are not carried forever: past the bound the oldest are forgotten, and
    read again from the database when next needed."""
    from bot.service import people as module
    from bot.service.people import People
    from bot.storage.repo import Store

    monkeypatch.setattr(module, "NAMES_REMEMBERED", 10)
    db = await open_database(tmp_path / "n.db")
    known = People(Store(db))
    for user in range(1, 31):
        await known.see(user, f"P{user}", None)
    assert known.remembered() == 10
    assert await known.names([1, 2, 30]) == {1: "P1", 2: "P2", 30: "P30"}
    assert known.remembered() == 10
    await db.close()
