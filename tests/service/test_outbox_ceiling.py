"""The bot's overall budget as a ceiling, counted on the fake Bot API with Telegram's limits on:
two senders (processes of their own on one real PostgreSQL) together never over the rate, a
sender killed while holding part of the budget gives it up to the other within a lease, what
waits goes by rank, and a private lane is paced and coalesced under the fake's private limit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.model.outbox import POST, REFRESH, URGENT, Load, Outgoing, Pending, RowKind
from bot.service.mailbox import Delivery, Mailbox, Verdict
from bot.storage.connect import open_database
from bot.storage.db import Database
from bot.storage.outbox import OutboxStore
from bot.telegram.pacing import TelegramPacing
from tests.fakebot import TOKEN, FakeTelegram
from tests.pg import INSTALL_HINT, Cluster
from tests.service.budget_sender import LEASE
from tests.waiting import until, until_async

ROOT = Path(__file__).resolve().parents[2]
RATE = 20  # the bot's calls a second, in these tests (Telegram's is 30)


class Sender:
    """`python -m tests.service.budget_sender`: one worker's sender, as a process."""

    def __init__(self, url: str, api: str, owner: str) -> None:
        self.args = (url, api, owner, str(RATE))
        self.owner = owner
        self.share = -1.0
        self.shares: list[float] = []  # every part it took, in order (a brief one included)
        self.holding = False  # it stands still (told to hold)
        self.held = False  # and went on again (told to go)
        self.process: asyncio.subprocess.Process | None = None
        self.reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.service.budget_sender", *self.args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env, cwd=ROOT,
        )  # fmt: skip
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        async for line in self.process.stdout:
            said = json.loads(line)
            if "share" in said:
                self.share = float(said["share"])
                self.shares.append(self.share)
            elif "holding" in said:
                self.holding = True
            else:
                self.held = True

    async def say(self, order: str) -> None:
        """`hold`: its whole process stands still, from a moment no call is in flight, until
        `go`."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(f"{order}\n".encode())
        await self.process.stdin.drain()

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)

    async def stop(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), 20)
            if self.process.returncode is None:
                self.process.kill()
        if self.reader is not None:
            self.reader.cancel()


@pytest.fixture
async def limited() -> AsyncIterator[FakeTelegram]:
    fake = FakeTelegram(overall_limit=(RATE, 1.0), private_limit=(RATE, 1_000))
    await fake.start()
    yield fake
    await fake.stop()


@pytest.fixture
def pg_url(pg_cluster: Cluster | None) -> str:
    if pg_cluster is None:
        pytest.skip(INSTALL_HINT)
    return pg_cluster.new_database()


@pytest.fixture
async def senders(limited: FakeTelegram, pg_url: str) -> AsyncIterator[list[Sender]]:
    api = f"http://127.0.0.1:{limited.port}/bot{TOKEN}"
    made = [Sender(pg_url, api, owner) for owner in ("w1", "w2")]
    try:
        for sender in made:
            await sender.start()
        # both alive, each with its half (the second waits until the first has seen it)
        await until(lambda: all(s.share == RATE / 2 for s in made), 60)
        yield made
    finally:
        for sender in made:
            await sender.stop()


async def write(url: str, chats: range, n: int = 0) -> None:
    """Rows written by a commit of a third process (the workers find them by polling)."""
    db = await open_database(url)
    store = OutboxStore(db, "writer")
    rows = [Outgoing(chat, RowKind.TEXT, {"n": n}) for chat in chats]

    async def writer(conn: Any) -> None:
        await store.enqueue(conn, rows, time.time())

    try:
        await db.write(writer)
    finally:
        await db.close()


async def emptied(url: str, within: float = 120.0) -> None:
    """Until the outbox is empty, asked on one connection (a connection opened at every look,
    a hundred a second, had the server start a process for each)."""
    db = await open_database(url, pool=1)
    try:
        store = OutboxStore(db)

        async def empty() -> bool:
            return await store.waiting() == 0

        await until_async(empty, within)
    finally:
        await db.close()


def sent_by(fake: FakeTelegram, owner: str) -> int:
    return sum(
        1 for chat in fake.messages.values() for m in chat.values() if m.text.startswith(owner)
    )


async def spread(fake: FakeTelegram, senders: list[Sender], url: str, chats: range) -> None:
    """Rows for `chats` whose lanes the senders already hold, half each (a lane stays with the
    sender that sent there last): the commit that writes them tells each sender of its own.
    (Left to them, which live sender claims a new lane first is a race, and a live sender
    keeps what it claimed: on a busy machine one of them took all 200 and the other sent
    nothing.)"""
    fake.started.update(chats)
    half = len(chats) // 2
    db = await open_database(url)
    try:
        for sender, part in ((senders[0], chats[:half]), (senders[1], chats[half:])):
            store = OutboxStore(db, sender.owner)
            for chat in part:
                assert await store.claim(chat, sender.owner, time.time(), LEASE) is not None
    finally:
        await db.close()
    await write(url, chats)


async def test_two_workers_together_never_go_over_the_overall_rate(
    limited: FakeTelegram, senders: list[Sender], pg_url: str
) -> None:
    chats = range(10_000, 10_200)  # 200 private chats, one row each: 10 s at the ceiling
    await spread(limited, senders, pg_url, chats)
    await emptied(pg_url)
    got = sum(len(m) for m in limited.messages.values())
    assert got == len(chats), (got, limited.errors[:5], dict(limited.limited))
    assert dict(limited.limited) == {}  # not one 429
    assert limited.busiest(1.0) <= RATE  # no sliding second over the rate
    assert all(sent_by(limited, s.owner) > 0 for s in senders)  # the two of them sent


async def test_a_worker_killed_while_holding_part_of_the_budget_the_other_takes_it(
    limited: FakeTelegram, senders: list[Sender], pg_url: str
) -> None:
    first = range(20_000, 20_200)  # 10 s at the rate: both still hold lanes when w2 dies
    await spread(limited, senders, pg_url, first)  # w2 sends: it holds lanes and its part
    w1, w2 = senders
    w2.kill()
    # w1 takes the whole budget over once w2's heartbeat expires (within a lease)
    killed = time.monotonic()
    await until(lambda: w1.share == RATE, LEASE + 30)
    assert time.monotonic() - killed < LEASE + 30
    then = time.time()
    second = range(21_000, 21_100)
    limited.started.update(second)
    await write(pg_url, second)
    await emptied(pg_url)  # w2's lanes taken over too
    delivered = {chat for chat, messages in limited.messages.items() if messages}
    assert set(first) | set(second) <= delivered
    assert dict(limited.limited) == {}
    assert limited.busiest(1.0) <= RATE
    # alone, w1 sends more than its half a second: it has the whole budget now
    assert limited.busiest(1.0, since=then) > RATE / 2


async def test_a_worker_held_up_past_its_lease_does_not_send_over_the_others_part(
    limited: FakeTelegram, senders: list[Sender], pg_url: str
) -> None:
    """A sender whose process stands still longer than its heartbeat's lease (held here
    between two calls: a busy machine, a long pause) while the other takes the whole budget
    over: when it runs again it lets nothing go under the part it had before, but waits for
    its next heartbeat's part; the fake sees no second over the rate, no 429."""
    chats = range(40_000, 40_300)  # 15 s at the rate: both have lanes to send when w2 stops
    await spread(limited, senders, pg_url, chats)
    w1, w2 = senders
    before = len(w1.shares)
    await w2.say("hold")
    await until(lambda: w2.holding, 60)
    held = time.monotonic()
    # w2's row runs out unrenewed (a lease): w1 takes the whole budget over. w2 stands still
    # until then, however long a busy machine makes it. (w1's parts are read from its output,
    # several lines at once on a busy machine: the whole part is looked for among all it took
    # since the hold, not as the last.)
    await until(lambda: RATE in w1.shares[before:], LEASE + 60)
    assert time.monotonic() - held > LEASE / 2  # (not before w2's heartbeat could run out)
    await w2.say("go")
    await until(lambda: w2.held, 60)  # and w2 runs again, while w1 sends at the whole rate
    await emptied(pg_url)
    delivered = {chat for chat, messages in limited.messages.items() if messages}
    assert set(chats) <= delivered
    assert dict(limited.limited) == {}, limited.limited_calls[:5]  # not one 429
    assert limited.busiest(1.0) <= RATE


def _limited(error: Exception) -> Verdict:
    return Verdict(wait=1.0, said="429") if "429" in str(error) else Verdict(called=False)


async def test_what_waits_for_the_budget_goes_by_rank(tmp_path: Path) -> None:
    """One call in the window: while it is in flight, the others wait, and go in this order:
    the hand of whoever must act (a hand that notifies), the tapper's, the board (bumped while
    it waited: one call, of its newest version), then everyone else's hands."""
    db = await open_database(tmp_path / "rank.db")
    # one call in the window (a quarter second: what waits goes four times a second)
    outbox = Mailbox(db, TelegramPacing(0.0), overall_per_second=4, budget_window=0.25)
    gate = asyncio.Event()
    went: list[tuple[int, int]] = []

    async def deliver(row: Pending) -> Delivery:
        went.append((row.chat_id, row.version))
        if row.chat_id == 1:
            await gate.wait()  # the call in flight
        return Delivery()

    def hand(chat: int, priority: int, loud: bool = False) -> Outgoing:
        return Outgoing(chat, RowKind.HAND, {"u": chat}, f"hand:{chat}", priority, loud)

    outbox.start(deliver)
    try:
        await outbox.send([Outgoing(1, RowKind.TEXT, {}, None, POST)])
        await until(lambda: went == [(1, 1)])
        board = Outgoing(-5, RowKind.BOARD, {"t": 1}, "board:1", REFRESH)
        for rows in (
            [hand(4, REFRESH)], [board], [hand(3, URGENT)], [hand(2, URGENT, loud=True)]
        ):  # fmt: skip
            await outbox.send(rows)
            chat = rows[0].chat_id
            await until(lambda chat=chat: chat in outbox.held())  # type: ignore[misc]
        for _ in range(4):
            await outbox.send([board])  # the board bumped while it waits
        await until(lambda: sorted(outbox.held()) == [-5, 2, 3, 4])
        gate.set()
        await until(lambda: len(went) == 5, 60)
        assert went == [(1, 1), (2, 1), (3, 1), (-5, 5), (4, 1)]
    finally:
        await outbox.close()
        await db.close()


async def test_a_private_lane_is_paced_and_coalesced_under_the_private_limit(
    tmp_path: Path,
) -> None:
    """The fake enforces a private chat's limit (4 a second here, a burst of 3) and the lane
    keeps the same pace: a burst of news and a hand edited ten times meanwhile go out without
    one 429, the hand once, as it is now."""
    fake = FakeTelegram(overall_limit=(30, 1.0), private_limit=(4.0, 3))
    await fake.start()
    fake.started.add(77)
    db = await open_database(tmp_path / "private.db")
    outbox = Mailbox(
        db, TelegramPacing(0.0, private_per_second=4.0, private_burst=3), judge=_limited
    )
    api = f"http://127.0.0.1:{fake.port}/bot{TOKEN}"
    versions: list[int] = []
    try:
        async with aiohttp.ClientSession() as session:

            async def deliver(row: Pending) -> Delivery:
                if row.key is not None:
                    versions.append(row.version)
                text = f"{row.payload['text']} v{row.version}"
                async with session.post(
                    f"{api}/sendMessage", json={"chat_id": 77, "text": text}
                ) as answer:
                    if answer.status == 429:
                        raise RuntimeError("429")
                return Delivery()

            outbox.start(deliver)
            news = [Outgoing(77, RowKind.TEXT, {"text": f"news {i}"}) for i in range(12)]
            await outbox.send(news)
            for i in range(10):
                hand = Outgoing(77, RowKind.EDIT, {"text": f"hand {i}"}, "hand:77", REFRESH)
                await outbox.send([hand])
            assert await outbox.drain(60)
            assert fake.texts(77)[:12] == [f"news {i} v1" for i in range(12)]
            assert versions == [10]  # ten versions of the hand: one call, of the newest
            assert len(fake.texts(77)) == 13
            assert dict(fake.limited) == {}
    finally:
        await outbox.close()
        await db.close()
        await fake.stop()


async def shares_written(db: Database, now: float) -> list[float]:
    rows = await db.fetchall("SELECT share FROM senders WHERE alive_until > ?", now)
    return [float(r["share"]) for r in rows]


async def test_the_budget_goes_to_the_worker_with_more_to_send_and_first_to_the_turns(
    limited: FakeTelegram, pg_url: str
) -> None:
    """Two senders on one PostgreSQL (two mailboxes, each its own connections): idle, they
    split the budget evenly; one with 300 background hands to refresh (everyone else's, the
    last rank) takes most of it (the other keeps a floor). Then the other has 100 turns to show
    (a hand that notifies: the first rank): the budget is split rank by rank, so the turns take
    most of it and go out while the hands wait (fewer than 100 of them go meanwhile; split by
    the length of each queue alone, the turns took about a third and 136 hands went). The
    shares written never add up to more than the rate, the fake sees no 429 and no second over
    the rate, every row goes, and once the load is gone the split is even again."""
    api = f"http://127.0.0.1:{limited.port}/bot{TOKEN}"
    owners = ("w1", "w2")
    dbs = [await open_database(pg_url) for _ in owners]
    watcher = await open_database(pg_url)
    boxes = [
        Mailbox(
            db,
            TelegramPacing(0.0),
            RATE,
            owner=owner,
            lease=LEASE,
            poll=0.1,
            store=OutboxStore(db, owner),
            judge=_limited,
        )
        for db, owner in zip(dbs, owners, strict=True)
    ]
    sums: list[float] = []
    went: list[int] = []  # the chat of each call Telegram took, in order
    try:
        async with aiohttp.ClientSession() as session:

            def deliverer(owner: str) -> Any:
                async def deliver(row: Pending) -> Delivery:
                    fields = {"chat_id": row.chat_id, "text": f"{owner} {row.id}"}
                    async with session.post(f"{api}/sendMessage", json=fields) as answer:
                        if answer.status == 429:
                            raise RuntimeError("429")
                    went.append(row.chat_id)
                    return Delivery()

                return deliver

            for box, owner in zip(boxes, owners, strict=True):
                box.start(deliverer(owner))
            await until(lambda: all(b.share == RATE / 2 for b in boxes), 60)
            hands = range(30_000, 30_300)  # 15 s at the whole rate
            turns = range(31_000, 31_100)
            limited.started.update([*hands, *turns])
            await boxes[0].send([
                Outgoing(chat, RowKind.HAND, {}, f"hand:{chat}", REFRESH) for chat in hands
            ])  # fmt: skip

            async def watch() -> None:
                while True:
                    sums.append(sum(await shares_written(watcher, time.time())))
                    await asyncio.sleep(0.05)

            watching = asyncio.get_running_loop().create_task(watch())
            try:
                await until(lambda: boxes[0].share > RATE * 0.8, 30)  # the busy one takes most
                assert boxes[1].share >= 1.0  # the idle one keeps a floor
                assert len(went) < len(hands) - 150  # (hands enough left to wait)
                await boxes[1].send([
                    Outgoing(chat, RowKind.HAND, {}, f"hand:{chat}", URGENT, True)
                    for chat in turns
                ])  # fmt: skip
                before = len(went)
                await until(lambda: sum(1 for chat in went if chat in turns) == len(turns), 120)
                meanwhile = sum(1 for chat in went[before:] if chat in hands)
                assert meanwhile < 100, meanwhile  # the turns went first
                await emptied(pg_url)
                await until(lambda: all(b.share == RATE / 2 for b in boxes), 60)  # even again
            finally:
                watching.cancel()
        assert sums and max(sums) <= RATE + 1e-9, max(sums)
        assert sum(len(m) for m in limited.messages.values()) == len(hands) + len(turns)
        assert dict(limited.limited) == {}
        assert limited.busiest(1.0) <= RATE
        assert limited.busiest(1.0) > RATE * 0.8  # w1 went well over its even half
    finally:
        for box in boxes:
            await box.close()
        for db in (*dbs, watcher):
            await db.close()


# A sender that stands still in the middle of its heartbeat (its share being chosen, the beat's
# lock held): it prints "in" and waits for a line that never comes, the whole process still,
# until it is killed.
FROZEN_IN_A_BEAT = """
import asyncio, sys, time
from bot.model.outbox import Load
from bot.storage.connect import open_database
from bot.storage.outbox import OutboxStore

def freeze(seen):
    print("in", flush=True)
    sys.stdin.readline()  # (nothing is written to it)
    return 0.0

async def main():
    db = await open_database(sys.argv[1])
    store = OutboxStore(db, "frozen")
    await store.beat("frozen", time.time(), float(sys.argv[2]), Load(0.0, ()), freeze)

asyncio.run(main())
"""


async def test_a_sender_frozen_inside_its_heartbeat_does_not_stop_the_others(
    pg_url: str,
) -> None:
    """A process that stands still inside its beat (a paused container, a machine swapping)
    holds the lock every beat takes: the other senders' beats must not wait behind it for
    longer than a part of a lease (else their own rows run out, and the whole bot stops
    sending). The other's beat that waited its longest ends the frozen beat's session; the
    next goes through, and the frozen one's share is not written."""
    db = await open_database(pg_url)
    frozen = await asyncio.create_subprocess_exec(
        sys.executable, "-c", FROZEN_IN_A_BEAT, pg_url, str(LEASE),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        assert frozen.stdout is not None
        assert await asyncio.wait_for(frozen.stdout.readline(), 60) == b"in\n"
        store = OutboxStore(db, "w1")
        live = None
        deadline = time.monotonic() + 60
        while live is None:  # a beat that waited its longest fails; the next goes through
            assert time.monotonic() < deadline, "w1's beat waited behind the frozen one"
            try:
                live = await asyncio.wait_for(
                    store.beat("w1", time.time(), LEASE, Load(0.0, ()), lambda seen: 1.0), 60
                )
            except Exception:  # (the lock not had within its wait)
                continue
        assert live == 1  # the frozen beat wrote nothing: w1 is alone
        assert frozen.returncode is None  # (still frozen: its session was cut under it)
    finally:
        frozen.kill()
        await frozen.wait()
        await db.close()
