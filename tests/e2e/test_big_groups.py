"""A big group: /tabla in pages, each a message Telegram accepts, the asker's row always in
sight, every player on exactly one page."""

from __future__ import annotations

import random
import re

import pytest

from bot.game import MatchConfig
from bot.model.outcome import Outcome
from bot.model.table import Table, TableStatus
from tests.conftest import GROUP, Harness

PLAYERS = 300


async def fill_league(h: Harness, matches: int) -> None:
    rng = random.Random(300)
    now = h.clock()
    store = h.store
    async with h.db.transaction() as conn:
        for i in range(PLAYERS):
            # Names at their worst: HTML specials (escaped, so longer) and past the width.
            await store.upsert_player(conn, 1000 + i, f"<&{i:03d}>Jugadora de truco", None, now)
        for n in range(matches):
            a, b = rng.sample(range(PLAYERS), 2) if n else (PLAYERS - 1, 0)  # the asker plays
            table = Table(
                id=0, chat_id=GROUP, thread_id=0, status=TableStatus.FINISHED,
                opener_id=1000 + a, config=MatchConfig(players=2, target=15),
                seats=[1000 + a, 1000 + b], language="es", created_at=now, updated_at=now,
                started_at=now - 600, ended_at=now,
            )  # fmt: skip
            table.id = await store.insert_table(conn, table)
            outcome = Outcome.reached(rng.randrange(2), (15, 3))
            await store.record_match(conn, table, outcome, now + n)


@pytest.mark.postgresql
async def test_tabla_with_300_players_pages_under_the_limit(harness: Harness) -> None:
    h = harness
    await fill_league(h, 700)
    asker = h.user(1000 + 299, "<&299>Jugadora de truco")
    asker.send(GROUP, "/tabla")
    await h.settle()
    panel = h.fake.last(GROUP)
    first = re.search(r"· 1/(\d+)", panel.text)
    assert first, panel.text[:200]
    pages = int(first.group(1))
    assert pages >= 3
    seen: dict[int, int] = {}
    for page in range(pages):
        text = h.fake.messages[GROUP][panel.message_id].text
        assert len(text) <= 4096 and f"· {page + 1}/{pages}" in text
        own = "&lt;&amp;299&gt;" in text
        assert own, page  # the asker's row on every page
        for i in map(int, re.findall(r"&lt;&amp;(\d{3})&gt;", text)):
            if i != 299:
                seen[i] = seen.get(i, 0) + 1
        if page < pages - 1:
            await asker.tap(GROUP, panel.message_id, "▶️")
            await h.settle()
    players_in_league = {
        r["user_id"] - 1000
        for r in await h.db.fetchall("SELECT DISTINCT user_id FROM match_players")
    } - {299}
    assert set(seen) == players_in_league and all(n == 1 for n in seen.values())
    await asker.tap(GROUP, panel.message_id, "◀️")  # and back
    await h.settle()
    assert f"· {pages - 1}/{pages}" in h.fake.messages[GROUP][panel.message_id].text
    forged = asker.tap_data(GROUP, panel.message_id, "p:t:7:99999")
    await asker.answer_of(forged)  # a page past the end: the last one, nothing breaks
    await h.settle()
    assert len(h.fake.messages[GROUP][panel.message_id].text) <= 4096
