"""Several workers on one PostgreSQL, behind a load balancer: the fake Bot API server posts
each update to the next worker's webhook. Matches played through the buttons by scripted
people finish, every action is applied once, no group goes over Telegram's flood limit."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from bot.game import replay
from bot.game.actions import parse_any
from bot.storage.snapshots import to_json
from tests.conftest import Harness, make_settings
from tests.e2e.helpers import action_buttons, hand_message
from tests.fakebot import FakeTelegram, FakeUser
from tests.pg import INSTALL_HINT, Cluster
from tests.ports import free_port

WORKERS = 3
MATCHES = 12
SECRET = "balanced-secret"


class Workers:
    def __init__(self, fake: FakeTelegram, url: str) -> None:
        self.fake = fake
        self.harnesses: list[Harness] = []
        for index in range(WORKERS):
            port = free_port()
            settings = make_settings(
                f"http://127.0.0.1:{fake.port}/bot",
                url,
                worker_id=f"w{index}",
                webhook_url=f"http://127.0.0.1:{port}/hook",
                webhook_listen="127.0.0.1",
                webhook_port=port,
                webhook_path="hook",
                webhook_secret=SECRET,
                outbox_poll=0.1,
                timer_tick=0.2,
            )
            self.harnesses.append(Harness(fake, settings))

    async def settle(self, within: float = 120.0) -> None:
        """Every worker quiet twice in a row, a moment apart, and no update left to post (the
        fake takes an update off its list once a worker's webhook has queued it, as
        `Harness.settle` waits for one bot)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            calm = not self.fake.updates and all([await h.quiet() for h in self.harnesses])
            if calm:
                await asyncio.sleep(0.005)
                if not self.fake.updates and all([await h.quiet() for h in self.harnesses]):
                    return
            await asyncio.sleep(0.005)
        raise TimeoutError("the workers did not settle")


@pytest.fixture
async def workers(fake: FakeTelegram, pg_cluster: Cluster | None) -> AsyncIterator[Workers]:
    if pg_cluster is None:
        pytest.skip(INSTALL_HINT)
    group = Workers(fake, pg_cluster.new_database())
    for h in group.harnesses:
        await h.start()
    fake.start_balancing()
    try:
        yield group
    finally:
        await fake.stop_balancing()
        for h in group.harnesses:
            await h.stop()
    for h in group.harnesses:
        assert [r.getMessage() for r in h.errors.records] == []


def max_per_minute(times: list[float], minute: float) -> int:
    times = sorted(times)
    best, j = 0, 0
    for i, at in enumerate(times):
        while times[j] < at - minute:
            j += 1
        best = max(best, i - j + 1)
    return best


async def test_three_workers_share_the_tables_and_apply_each_action_once(
    workers: Workers, fake: FakeTelegram
) -> None:
    pairs = []
    for i in range(MATCHES):
        chat = -200_000 - i
        a = FakeUser(fake, 300_000 + 2 * i, f"A{i}")
        b = FakeUser(fake, 300_001 + 2 * i, f"B{i}")
        fake.started.update((a.id, b.id))
        a.send(chat, "/nueva 15")
        pairs.append((chat, a, b))
    await workers.settle()
    for chat, _, b in pairs:
        lobby = fake.live(chat)[0]
        await b.tap(chat, lobby.message_id, "✋ Unirme", within=60)
    await workers.settle()
    # Every tap goes to whichever worker is next; the players tap whatever they are shown.
    for _ in range(400):
        busy = False
        for chat, a, b in pairs:
            if any("🏆" in t for t in fake.texts(chat)):
                continue
            for user in (a, b):
                message = hand_message(workers.harnesses[0], user)
                if message is None:
                    continue
                buttons = action_buttons(message)
                cards = [x for x in buttons if x["callback_data"].count(":") == 4]
                button = (cards or buttons)[0]
                user.tap_data(user.id, message.message_id, button["callback_data"])
                busy = True
                break
        await workers.settle()
        if not busy:
            break
    assert all(any("🏆" in t for t in fake.texts(chat)) for chat, _, _ in pairs)
    used = {url for url in fake.posted.values()}
    assert len(used) == WORKERS  # the updates really were spread over the workers
    db = workers.harnesses[0].db
    games = await db.fetchall("SELECT id, config, state FROM games ORDER BY id")
    assert len(games) == MATCHES
    for game in games:
        rows = await db.fetchall(
            "SELECT seq, code FROM actions WHERE game_id = ? ORDER BY seq", game["id"]
        )
        assert [r["seq"] for r in rows] == list(range(len(rows)))  # once each, no gap
        table = await workers.harnesses[0].store.table(game["id"])
        assert table is not None and table.state is not None
        rebuilt = replay(table.config, [parse_any(r["code"]) for r in rows])
        assert to_json(rebuilt) == to_json(table.state)
    matches = await db.fetchall("SELECT game_id FROM matches")
    assert len(matches) == MATCHES  # each league record once
    limit, minute = fake.group_limit
    for chat, _, _ in pairs:
        assert max_per_minute(fake.calls_in(chat), minute) <= limit
    assert not [e for e in fake.errors if e[1] == 429]
