"""The tables waiting in the admission line leave the budget to the tables in play (issue 71),
on a real SQLite file: at a saturated budget, a queued table's lobby waits as a board does
(rendered when it goes, its latest state) behind an acting player's hand, and still goes within
its rank's bound."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from bot.game import MatchConfig
from bot.model.outbox import POST, URGENT, Outgoing, Pending, RowKind
from bot.model.table import Table, TableStatus
from bot.service.mailbox import Delivery, Mailbox
from bot.storage.connect import open_database
from bot.telegram.pacing import TelegramPacing
from bot.telegram.rows import lobby_row
from tests.waiting import until

ALLOWANCES = (0.0, 0.2, 1.0, 2.0)  # (shorter than the bot's: the test's own bound)


def in_line(table_id: int, chat_id: int) -> Table:
    table = Table(table_id, chat_id, 0, TableStatus.LOBBY, 1, MatchConfig(), [1, 2], "es", 0.0, 0.0)
    table.queued = 1.0
    return table


async def test_a_queued_tables_lobby_waits_behind_an_acting_players_hand(tmp_path: Path) -> None:
    """One call in flight holds the budget; the lobbies of three tables that just joined the
    line wait; then a player of a table in play must act: their hand goes first, before every
    lobby that was waiting, and the lobbies still go, each within its bound."""
    db = await open_database(tmp_path / "line.db")
    outbox = Mailbox(
        db, TelegramPacing(0.0), overall_per_second=4, budget_window=0.25,
        budget_allowance=ALLOWANCES,
    )  # fmt: skip
    gate = asyncio.Event()
    went: list[int] = []
    at: dict[int, float] = {}

    async def deliver(row: Pending) -> Delivery:
        went.append(row.chat_id)
        at[row.chat_id] = time.monotonic()
        if row.chat_id == 1:
            await gate.wait()  # the call in flight
        return Delivery()

    outbox.start(deliver)
    try:
        await outbox.send([Outgoing(1, RowKind.TEXT, {}, None, POST)])
        await until(lambda: went == [1])
        lobbies = [lobby_row(in_line(n, -n)) for n in (5, 6, 7)]
        await outbox.send(lobbies)
        await until(lambda: sorted(outbox.held()) == [-7, -6, -5])
        began = time.monotonic()
        hand = Outgoing(10, RowKind.HAND, {"u": 10}, "hand:1", URGENT)  # whoever must act
        await outbox.send([hand])
        await until(lambda: sorted(outbox.held()) == [-7, -6, -5, 10])
        gate.set()
        await until(lambda: len(went) == 5, 60)
        assert went[1] == 10, went
        # (a board's allowance, then the calls waiting ahead, at the budget's rate)
        assert max(at.values()) - began <= ALLOWANCES[2] + 5 / 4 + 1.0, at
    finally:
        await outbox.close()
        await db.close()
