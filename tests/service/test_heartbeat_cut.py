"""The heartbeat's cut ends only the bot's own frozen beat: a beat that could not have its lock
ends the session of a holder inside its transaction for too long (`OutboxStore.beat`), and
that holder must be one of this database's workers. A session of another database on the same
cluster (another install of the bot, its sessions named as ours) or of another application in
this one, holding the same advisory key in an old transaction, is left alone: its insert
commits. (The cluster's role is a superuser, as one role for everything often is: it may end
any session.)"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator

import asyncpg
import pytest

from bot.model.outbox import Load
from bot.storage.connect import open_database
from bot.storage.outbox import OutboxStore
from tests.pg import INSTALL_HINT, Cluster
from tests.service.budget_sender import LEASE
from tests.service.test_outbox_ceiling import FROZEN_IN_A_BEAT

KEY = 5005  # the beats' advisory lock (bot/storage/outbox.py)


@pytest.fixture
def cluster(pg_cluster: Cluster | None) -> Cluster:
    if pg_cluster is None:
        pytest.skip(INSTALL_HINT)
    return pg_cluster


async def holding(url: str, application: str) -> tuple[asyncpg.Connection, object]:
    """A session of `application` on `url` inside a transaction that holds the beats' key and
    has inserted a row (not committed yet)."""
    conn = await asyncpg.connect(url, server_settings={"application_name": application})
    await conn.execute("CREATE TABLE kept (x BIGINT)")
    tx = conn.transaction()
    await tx.start()
    await conn.execute(f"SELECT pg_advisory_xact_lock({KEY})")
    await conn.execute("INSERT INTO kept VALUES (1)")
    return conn, tx


async def kept(url: str) -> int:
    conn = await asyncpg.connect(url)
    try:
        return int(await conn.fetchval("SELECT count(*) FROM kept"))
    finally:
        await conn.close()


async def beat(store: OutboxStore) -> int:
    return await store.beat("w1", time.time(), LEASE, Load(0.0, ()), lambda seen: 1.0)


@pytest.fixture
async def frozen(cluster: Cluster) -> AsyncIterator[str]:
    """This database's URL, with a sender of its own frozen inside its beat (the lock held)."""
    url = cluster.new_database()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", FROZEN_IN_A_BEAT, url, str(LEASE),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        assert await asyncio.wait_for(process.stdout.readline(), 60) == b"in\n"
        yield url
    finally:
        process.kill()
        await process.wait()
        cluster.release(url)


async def test_the_cut_spares_a_session_of_another_database(cluster: Cluster, frozen: str) -> None:
    other = cluster.new_database()
    foreign, tx = await holding(other, "truco-bot")  # (another install, named as ours)
    db = await open_database(frozen)
    try:
        store = OutboxStore(db, "w1")
        live = None
        deadline = time.monotonic() + 60
        while live is None:  # a beat that waited its longest cuts the frozen one's session
            assert time.monotonic() < deadline, "w1's beat waited behind the frozen one"
            try:
                live = await asyncio.wait_for(beat(store), 60)
            except Exception:  # (the lock not had within its wait)
                continue
        assert live == 1
        await tx.commit()  # type: ignore[attr-defined]  # the other database's session lives
    finally:
        await foreign.close()
        await db.close()
    assert await kept(other) == 1
    cluster.release(other)


async def test_the_cut_spares_a_session_of_another_application(cluster: Cluster) -> None:
    url = cluster.new_database()
    foreign, tx = await holding(url, "another-app")
    db = await open_database(url)
    try:
        store = OutboxStore(db, "w1")
        with pytest.raises(Exception):  # noqa: B017  # (the lock not had within its wait)
            await beat(store)
        # The beat that failed looked for a frozen beat to end, and this is not one
        await tx.commit()  # type: ignore[attr-defined]
        assert await beat(store) == 1  # the key free again, the beats go on
    finally:
        await foreign.close()
        await db.close()
    assert await kept(url) == 1
    cluster.release(url)
