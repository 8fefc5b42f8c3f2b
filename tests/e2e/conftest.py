"""Fixtures of the end-to-end tests shared by several files."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from tests.conftest import Harness, make_settings
from tests.fakebot import FakeTelegram
from tests.pg import INSTALL_HINT, Cluster
from tests.ports import free_port

WORKERS = 3
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
