"""Whole matches played through Telegram: real PTB, fake Bot API server, scripted users."""

from __future__ import annotations

from tests.conftest import GROUP, Harness
from tests.e2e.helpers import match_over, open_table, play_to_the_end


async def test_a_1v1_match_from_nueva_to_the_last_fosforo(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15")
    board = h.fake.last(GROUP)
    assert "Truco" in board.text and "Ana" in board.text and "Juan" in board.text
    assert any(b["text"] == "🃏 Mis cartas" for b in board.buttons())
    taps = await play_to_the_end(h, [ana, juan], seed=1)
    assert taps > 5
    assert match_over(h)
    table_row = await h.services.db.fetchone("SELECT * FROM matches")
    assert table_row is not None and table_row["outcome"] == "won"
    assert max(table_row["score0"], table_row["score1"]) >= 15
