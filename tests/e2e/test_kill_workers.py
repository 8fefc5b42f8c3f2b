"""SIGKILL one of three workers (`python -m bot` processes on one PostgreSQL, updates posted
round-robin to their webhooks) mid-match, and start it again: every match finishes, every
action is applied once, no group goes over the flood limit, nothing decided is left unsaid."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import asyncpg
import pytest

from bot.game import MatchConfig, replay
from bot.game.actions import parse_any
from bot.storage import snapshots
from bot.storage.snapshots import to_json
from tests.e2e.forked import Forked, Zygote
from tests.e2e.test_kill import bot_env, can_tap, over, tap_something
from tests.e2e.test_workers import max_per_minute
from tests.fakebot import FakeTelegram, FakeUser
from tests.pg import INSTALL_HINT, Cluster
from tests.ports import free_port
from tests.waiting import until

WORKERS = 3
MATCHES = 12  # (every player taps about once a batch: a match moves at each)
BATCH = 50  # taps sent together before waiting for the workers to go quiet
SECRET = "kill-secret"


class Worker:
    def __init__(
        self,
        index: int,
        url: str,
        fake: FakeTelegram,
        folder: Path,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.index = index
        self.env = dict(env or {})  # more of its environment (settings, a skewed clock)
        self.port = free_port()
        self.url = url
        self.fake = fake
        self.folder = folder
        self.process: Forked | None = None
        self.zygote: Zygote | None = None
        self.log: IO[bytes] | None = None

    def _zygote(self) -> Zygote:
        """The worker's processes are forked from one that has imported the bot (`Bots`)."""
        if self.zygote is None:
            env = bot_env(
                self.fake, self.url, timer_tick="0.2", worker_id=f"w{self.index}",
                webhook_url=f"http://127.0.0.1:{self.port}/hook", webhook_listen="127.0.0.1",
                webhook_port=str(self.port), webhook_path="hook", webhook_secret=SECRET,
            )  # fmt: skip
            env.update(self.env)
            self.log = (self.folder / f"w{self.index}.log").open("ab")
            self.zygote = Zygote(env, self.folder, self.log)
        return self.zygote

    async def start(self) -> None:
        calls = len(self.fake.calls)
        self.process = await self._zygote().fork()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # up when it has set its webhook
            if any(method == "setWebhook" for _, method, _ in self.fake.calls[calls:]):
                return
            if self.process.exited:
                error = (self.folder / f"w{self.index}.log").read_text()[-2000:]
                raise RuntimeError(f"worker {self.index} exited: {error}")
            await asyncio.sleep(0.02)
        raise TimeoutError("the worker did not start")

    async def kill(self) -> None:
        if self.process is None:
            return  # (never started)
        self.process.kill()
        await self.process.wait()

    async def close(self) -> None:
        """The worker killed, and the process it was forked from gone."""
        await self.kill()
        if self.zygote is not None:
            await self.zygote.close()
        if self.log is not None:
            self.log.close()


async def quiet(fake: FakeTelegram, url: str, within: float = 120.0, silence: float = 0.3) -> None:
    """No update left to post, the outbox empty, and no call for a moment (`silence`). (The
    outbox asked on one connection, opened once it may be asked.)"""
    deadline = time.monotonic() + within
    conn = None
    try:
        while time.monotonic() < deadline:
            last = fake.calls[-1][0] if fake.calls else 0.0
            if not fake.updates and time.time() - last > silence:
                conn = conn or await asyncpg.connect(url)
                if await conn.fetchval("SELECT count(*) FROM outbox") == 0:
                    return
            await asyncio.sleep(0.01)
    finally:
        if conn is not None:
            await conn.close()
    raise TimeoutError("the workers did not go quiet")


async def test_a_worker_killed_and_started_again_loses_nothing(
    fake: FakeTelegram, pg_cluster: Cluster | None, tmp_path: Path
) -> None:
    if pg_cluster is None:
        pytest.skip(INSTALL_HINT)
    url = pg_cluster.new_database()
    rng = random.Random(5)
    workers = [Worker(i, url, fake, tmp_path) for i in range(WORKERS)]
    try:
        for worker in workers:
            await worker.start()
    except BaseException:
        for worker in workers:
            await worker.close()
        raise
    fake.start_balancing()
    kills = taps = 0
    groups = [-300_000 - i for i in range(MATCHES)]
    pairs = [
        (FakeUser(fake, 400_000 + 2 * i, f"A{i}"), FakeUser(fake, 400_001 + 2 * i, f"B{i}"))
        for i in range(MATCHES)
    ]
    for a, b in pairs:
        fake.started.update((a.id, b.id))
    try:
        for chat, (first, _) in zip(groups, pairs, strict=True):
            first.send(chat, "/nueva 15")
        # every lobby out (a moment of silence alone may come before a worker wrote its rows)
        await until(lambda: all(fake.live(chat) for chat in groups), 120)
        await quiet(fake, url)
        for chat, (_, second) in zip(groups, pairs, strict=True):
            await second.tap(chat, fake.live(chat)[0].message_id, "✋ Unirme", within=60)
        await quiet(fake, url)
        batches = 0
        while not all(over(fake, chat) for chat in groups):
            options = can_tap(fake, groups, pairs)
            queries = [
                tap_something(rng, user, message)
                for user, message in rng.sample(options, min(BATCH, len(options)))
            ]
            taps += len(queries)
            assert taps < 20_000
            batches += 1
            # Two kills early on for sure (the deals, so the matches' length, vary from run to
            # run: chance alone gave one kill in a short run), more by chance.
            if kills < 4 and (batches in (2, 5) or rng.random() < 0.08):
                await asyncio.sleep(rng.uniform(0.0, 0.05))  # before, during or after commits
                victim = rng.choice(workers)
                await victim.kill()
                kills += 1
                await victim.start()
                await quiet(fake, url)  # (a tap the victim took may never be answered)
            else:  # every tap answered (after the commit of what it makes the bot say), then
                # what that commit wrote said: the outbox empty, and a moment with no call
                await until(lambda: all(q in fake.answers for q in queries), 120)  # noqa: B023
                await quiet(fake, url, silence=0.05)
        await quiet(fake, url)  # (the last batch's sends all made before the workers stop)
    finally:
        await fake.stop_balancing()
        for worker in workers:
            await worker.close()
    assert kills >= 2, kills

    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM outbox") == 0
        for chat in groups:
            game = await conn.fetchrow("SELECT * FROM games WHERE chat_id = $1", chat)
            rows = await conn.fetch(
                "SELECT seq, code FROM actions WHERE game_id = $1 ORDER BY seq", game["id"]
            )
            assert [r["seq"] for r in rows] == list(range(len(rows)))  # none lost, none twice
            config = MatchConfig.of(json.loads(game["config"]))
            state = snapshots.load(game["state"], len(rows))  # saved with the log's end
            assert state is not None
            assert to_json(replay(config, [parse_any(r["code"]) for r in rows])) == to_json(state)
            assert state.is_over and game["status"] == "finished"
            records = await conn.fetch("SELECT * FROM matches WHERE game_id = $1", game["id"])
            assert len(records) == 1 and records[0]["termination"] == "target"
            assert any("🏆" in m.text for m in fake.live(chat))  # the end was announced
            limit, minute = fake.group_limit
            assert max_per_minute(fake.calls_in(chat), minute) <= limit
    finally:
        await conn.close()
    print(f"\nworkers: {WORKERS}, kills survived: {kills}, taps: {taps}")
