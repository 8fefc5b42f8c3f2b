"""The sender's overall budget on a real SQLite file: it holds back background refreshes in
private chats, and a row that becomes urgent while held goes out at once."""

from __future__ import annotations

from pathlib import Path

from bot.model.outbox import REFRESH, URGENT, Outgoing, Pending
from bot.service.mailbox import Delivery, Mailbox
from bot.storage.db import Database
from tests.waiting import until

HOUR = 3600.0


def hand(chat_id: int, priority: int) -> Outgoing:
    return Outgoing(chat_id, "hand", {"t": 1, "u": chat_id}, f"hand:1:{chat_id}", priority)


async def test_a_held_refresh_bumped_to_urgent_goes_out_without_waiting(tmp_path: Path) -> None:
    db = await Database.open(tmp_path / "budget.db")
    # One call a second overall, and a held-back refresh may wait up to an hour: nothing in
    # this test gets out by waiting.
    outbox = Mailbox(db, group_interval=0.0, overall_per_second=1, hold_at_most=HOUR)
    delivered: list[tuple[int, int, int]] = []

    async def deliver(row: Pending) -> Delivery:
        delivered.append((row.chat_id, row.priority, row.version))
        return Delivery(called=True)

    outbox.start(deliver)
    try:
        await outbox.send([hand(8, URGENT)])  # takes the budget's one token; urgent never waits
        await until(lambda: len(delivered) == 1)
        await outbox.send([hand(7, REFRESH)])
        await until(lambda: outbox.held() == [7])  # a background refresh is held back
        assert delivered == [(8, URGENT, 1)]
        await outbox.send([hand(7, URGENT)])  # the same hand, now someone's turn: urgent
        await until(lambda: len(delivered) == 2)
        assert delivered[1] == (7, URGENT, 2)  # one call, of the newest version
        assert outbox.held() == []
        await outbox.send([hand(9, REFRESH)])  # the budget still holds back the rest
        await until(lambda: outbox.held() == [9])
        assert len(delivered) == 2
    finally:
        await outbox.close()
        await db.close()
