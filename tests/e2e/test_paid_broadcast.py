"""Telegram's paid broadcasts (`TRUCO_PAID_BROADCAST`): off by default, no call asks for one;
on, every new message the bot sends asks for it (past the free overall limit, for a fee in
Stars), and nothing else does (an edit, an answer or a delete cannot be paid)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import harness_with
from tests.e2e.helpers import open_table
from tests.fakebot import FakeTelegram

FREE, PAID = -100_901, -100_902


async def test_paid_broadcast_is_off_by_default_and_on_asks_for_every_new_message(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with harness_with(fake, tmp_path / "free.db") as h:
        await open_table(h, [h.user(901, "Ana"), h.user(902, "Beto")], chat=FREE)
    free = list(fake.calls)
    assert any(method == "sendMessage" for _, method, _ in free)
    assert fake.paid == []  # off: not one call asks for it
    async with harness_with(fake, tmp_path / "paid.db", paid_broadcast=True) as h:
        await open_table(h, [h.user(903, "Caro"), h.user(904, "Dani")], chat=PAID)
    made = fake.calls[len(free) :]
    sends = [("sendMessage", chat) for _, method, chat in made if method == "sendMessage"]
    # the lobby, the board, both hands: each new message asked for it, and only those
    assert len(sends) >= 4 and sorted(fake.paid, key=str) == sorted(sends, key=str)
    assert {method for _, method, _ in made} - {"sendMessage"}  # (edits and answers made too)
