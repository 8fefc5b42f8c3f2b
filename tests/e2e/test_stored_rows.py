"""Outbox rows a bot of the release before the declared payloads left in its database (the
letter-keyed JSON it wrote, spelled out here by hand) are delivered by this one after a restart,
each as it was meant."""

from __future__ import annotations

from typing import Any

import pytest

from bot.model.outbox import URGENT, Outgoing
from bot.storage.connect import open_database
from bot.storage.outbox import OutboxStore
from tests.conftest import GROUP, Harness
from tests.e2e.helpers import hand_message, open_table

KEYS = {"inline_keyboard": [[{"text": "Ver", "url": "https://t.me/truco_test_bot?start=j1"}]]}
EFFECT = "5046509860389126442"


@pytest.mark.postgresql  # (the same JSON in either database)
async def test_rows_stored_in_the_old_format_are_delivered_after_a_restart(
    harness: Harness,
) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15")
    table = await h.services.tables.table_in(GROUP, 0)
    board = (await h.telegram(table.id)).board if table is not None else None
    assert table is not None and board is not None
    hand_before = hand_message(h, ana)
    assert hand_before is not None
    await h.stop()
    stored: list[tuple[int, str, dict[str, Any], int]] = [
        (ana.id, "text", {"text": "vieja con botón", "markup": KEYS}, 0),
        (ana.id, "text", {"text": "vieja con efecto", "effect": EFFECT}, 0),
        (ana.id, "text", {"text": "nota vieja", "member_of": GROUP}, 0),
        (GROUP, "text", {"text": "eco viejo", "ring": 1}, 0),  # stale: dropped, as ever
        (GROUP, "edit", {"m": board, "text": "tablero viejo"}, 0),
        (ana.id, "hand", {"t": table.id, "u": ana.id}, 1),
    ]
    db = await open_database(h.settings.database)
    try:
        async with db.transaction() as conn:
            for chat, kind, payload, loud in stored:
                row = Outgoing(chat, kind, payload, None, URGENT, bool(loud))  # type: ignore[arg-type]
                await OutboxStore(db).enqueue(conn, [row], 0.0)
    finally:
        await db.close()
    await h.start()
    await h.settle()
    mine = {m.text: m for m in h.fake.live(ana.id)}
    assert mine["vieja con botón"].buttons() == KEYS["inline_keyboard"][0]
    assert mine["vieja con efecto"].effect == EFFECT
    assert "nota vieja" in mine
    assert "eco viejo" not in h.fake.texts(GROUP)
    assert any(m.message_id == board and m.text == "tablero viejo" for m in h.fake.live(GROUP))
    hand_after = hand_message(h, ana)
    assert hand_after is not None and hand_after.message_id > hand_before.message_id
