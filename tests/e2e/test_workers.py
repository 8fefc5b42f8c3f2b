"""Several workers on one PostgreSQL, behind a load balancer: the fake Bot API server posts
each update to the next worker's webhook. Matches played through the buttons by scripted
people finish, every action is applied once, no group goes over Telegram's flood limit."""

from __future__ import annotations

from bot.game import replay
from bot.game.actions import parse_any
from bot.storage.snapshots import to_json
from tests.e2e.conftest import WORKERS, Workers
from tests.e2e.helpers import action_buttons, hand_message
from tests.fakebot import FakeTelegram, FakeUser

MATCHES = 12


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
