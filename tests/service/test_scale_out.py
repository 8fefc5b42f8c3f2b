"""Several workers on one real PostgreSQL: a commit in one round trip, and wake-ups between
workers by LISTEN/NOTIFY rather than polling (the safety net's poll is set to a minute here, so
anything delivered within the tests' deadlines was woken, not found by a poll)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

import pytest

from bot.core import Core
from bot.game import ActionKind
from bot.model.outbox import Outgoing, Pending
from bot.service.changes import Change
from bot.service.mailbox import Delivery, Mailbox
from bot.storage.connect import open_database
from bot.storage.db import Database
from bot.storage.outbox import OutboxStore, lane_channel
from bot.storage.repo import Store
from bot.telegram.pacing import TelegramPacing
from tests.pg import INSTALL_HINT, Cluster
from tests.service.test_service import started_table
from tests.waiting import until

NO_POLL = 60.0  # the safety net's poll: never within a test's deadline
PRIVATE = 4242  # a private chat's lane (no pace)


@pytest.fixture
def pg_url(pg_cluster: Cluster | None) -> str:
    if pg_cluster is None:
        pytest.skip(INSTALL_HINT)
    return pg_cluster.new_database()


@dataclass
class Worker:
    """One process's sender, as `python -m bot` builds it: its own pool and listener."""

    db: Database
    outbox: Mailbox
    got: list[Pending] = field(default_factory=list)

    async def deliver(self, row: Pending) -> Delivery:
        self.got.append(row)
        return Delivery()

    def texts(self) -> list[str]:
        return [row.payload["text"] for row in self.got]


@pytest.fixture
async def workers(pg_url: str) -> AsyncIterator[list[Worker]]:
    made: list[Worker] = []
    for name in ("w1", "w2"):
        db = await open_database(pg_url)
        store = OutboxStore(db, name)
        outbox = Mailbox(db, TelegramPacing(0.0), owner=name, poll=NO_POLL, store=store)
        worker = Worker(db, outbox)
        outbox.start(worker.deliver)
        made.append(worker)
    await until(lambda: all(w.db.listening for w in made), 30)
    yield made
    for worker in made:
        await worker.outbox.close()
        await worker.db.close()


async def write(worker: Worker, rows: list[Outgoing]) -> None:
    """What a commit of the core does: the rows in one statement, then the local wake-up."""
    store = worker.outbox.store

    async def writer(conn: object) -> None:
        await store.enqueue(conn, rows, time.time())  # type: ignore[arg-type]

    await worker.db.write(writer)
    worker.outbox.wake(rows)


class Says:
    """A front end that says two things about every change: a board and a line."""

    async def plan(self, change: Change) -> list[Outgoing]:
        return [Outgoing(-100, "board", {"t": 1}, "board", 2), Outgoing(-100, "text", {})]

    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        pass


async def test_a_move_commits_in_one_round_trip(pg_url: str) -> None:
    core = Core.build(Store(await open_database(pg_url)), seed=3)
    core.changes.subscribe(Says())
    try:
        table_id = await started_table(core)
        table = await core.tables.get(table_id)
        assert table is not None and table.state is not None
        action = next(a for a in table.state.legal_actions() if a.kind is ActionKind.PLAY)
        user = table.seats[action.seat]
        assert user is not None
        meter = core.store.db.meter
        before = meter.trips, dict(meter.kinds), meter.transactions
        await core.play.act(table_id, user, table.state.step, ActionKind.PLAY, action.card)
        kinds = {k: n - before[1].get(k, 0) for k, n in meter.kinds.items()}
        kinds = {k: n for k, n in kinds.items() if n}
        # the table read, and one statement with the save, the action, the rows, the notices
        assert kinds == {"SELECT games": 1, "WITH": 1}, kinds
        assert meter.trips - before[0] == 2 and meter.transactions == before[2]
        # ... and everything of it is in the database
        db = core.store.db
        saved = await db.fetchone("SELECT version, state FROM games WHERE id = ?", table_id)
        assert saved is not None and saved["version"] == table.version + 1  # (a fresh copy)
        log = await core.store.action_log(table_id)
        assert log[-1][2] == action.code
        waiting = await db.fetchall("SELECT kind, version FROM outbox ORDER BY id")
        texts = sum(1 for r in waiting if r["kind"] == "text")
        boards = [r["version"] for r in waiting if r["kind"] == "board"]
        # one line per change (the table made, then each version saved), one board bumped
        assert texts == saved["version"] + 1 and boards == [texts]
    finally:
        await core.store.db.close()


async def test_a_save_over_a_stale_version_writes_nothing(pg_url: str) -> None:
    core = Core.build(Store(await open_database(pg_url)), seed=3)
    try:
        table_id = await started_table(core)
        table = await core.tables.get(table_id)
        assert table is not None
        outbox = core.tables.outbox
        rows = [Outgoing(PRIVATE, "text", {"text": "uno"}), Outgoing(-7, "board", {}, "b", 2)]
        counts = "SELECT (SELECT count(*) FROM actions) AS a, (SELECT count(*) FROM outbox) AS o"
        before = await core.store.db.fetchone(counts)
        table.version += 1
        stale = table.version - 2  # another process saved in between
        saved = await core.store.save_change(
            table, stale, [(None, "x")], 99, rows, outbox, time.time()
        )
        assert not saved
        assert await core.store.db.fetchone(counts) == before  # no action, no row
        saved = await core.store.save_change(
            table, table.version - 1, [(None, "x")], 99, rows, outbox, time.time()
        )
        after = await core.store.db.fetchone(counts)
        assert saved and before is not None and after is not None
        assert (after["a"] - before["a"], after["o"] - before["o"]) == (1, 2)
    finally:
        await core.store.db.close()


async def test_rows_for_another_workers_lanes_wake_it_at_once(workers: list[Worker]) -> None:
    w1, w2 = workers
    other = PRIVATE + 1
    await write(w2, [Outgoing(PRIVATE, "text", {"text": "first"})])
    await write(w2, [Outgoing(other, "text", {"text": "first too"})])
    await until(lambda: sorted(w2.texts()) == ["first", "first too"], 30)  # w2 holds both
    await until(lambda: not w2.outbox.busy(), 30)
    notices = w2.db.meter.notices
    claims = w1.db.meter.kinds.get("WITH", 0)
    await write(
        w1, [Outgoing(PRIVATE, "text", {"text": "second"}), Outgoing(other, "text", {"text": "2"})]
    )
    await until(lambda: len(w2.texts()) == 4, 30)
    assert sorted(w2.texts()[2:]) == ["2", "second"]
    assert w1.got == []  # w1 did not send them, nor try to claim the lanes
    assert min(w1.outbox.store.elsewhere[c] for c in (PRIVATE, other)) > time.time()
    assert w1.db.meter.kinds.get("WITH", 0) == claims + 1  # only its write
    assert w2.db.meter.notices == notices + 1  # one notice naming both lanes
    assert sum(w2.outbox.delays.values()) == 2  # commit -> read by w2, measured


async def test_a_failed_claim_tells_the_holder(workers: list[Worker]) -> None:
    """A row written while the holder's lease looked over: the writer claims, fails, and
    the holder is told in the same statement (it may have looked before the row came)."""
    w1, w2 = workers
    now = time.time()
    assert await w2.outbox.store.claim(PRIVATE, "w2", now, 15.0) is not None
    async with w1.db.transaction() as conn:  # written as if no one held the lane
        await conn.run(
            "INSERT INTO outbox (chat_id, priority, kind, key, payload, loud, created_at)"
            " VALUES (?, 0, 'text', NULL, ?, 0, ?)",
            (PRIVATE, '{"text": "late"}', now),
        )
    assert await w1.outbox.store.claim(PRIVATE, "w1", now, 15.0) is None
    await until(lambda: w2.texts() == ["late"], 30)
    assert w1.outbox.store.elsewhere[PRIVATE] > now


async def test_a_dead_workers_lane_is_taken_over_when_its_lease_ends(
    workers: list[Worker],
) -> None:
    w1, _ = workers
    lease = 2.0
    now = time.time()
    # "w9" claimed the lane and died: nobody hears its channel
    dead = OutboxStore(w1.db, "w9")
    assert await dead.claim(PRIVATE, "w9", now, lease) is not None
    await write(w1, [Outgoing(PRIVATE, "text", {"text": "anyone?"})])
    assert w1.outbox.store.elsewhere[PRIVATE] == pytest.approx(now + lease, abs=0.01)
    await until(lambda: w1.texts() == ["anyone?"], 30)  # its timer, not a poll
    assert time.time() >= now + lease


async def test_listening_comes_back_and_finds_what_it_missed(workers: list[Worker]) -> None:
    w1, w2 = workers
    await write(w2, [Outgoing(PRIVATE, "text", {"text": "one"})])
    await until(lambda: w2.texts() == ["one"], 30)
    await until(lambda: not w2.outbox.busy(), 30)
    # the server drops w2's listening connection
    assert w2.db.listens == 1
    await w1.db.fetchall(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE ?",
        f"LISTEN %{lane_channel('w2')}%",
    )
    await write(w1, [Outgoing(PRIVATE, "text", {"text": "two"})])  # its notice may be lost
    await until(lambda: w2.db.listens == 2 and w2.db.listening, 30)
    await until(lambda: w2.texts() == ["one", "two"], 30)
    assert w1.got == []


async def test_a_stopping_worker_lets_its_lanes_go(workers: list[Worker]) -> None:
    w1, w2 = workers
    await write(w2, [Outgoing(PRIVATE, "text", {"text": "one"})])
    await until(lambda: w2.texts() == ["one"], 30)
    await w2.outbox.close()  # a graceful stop (a deploy): not 15 s of its lease to wait
    await write(w1, [Outgoing(PRIVATE, "text", {"text": "two"})])
    await until(lambda: w1.texts() == ["two"], 30)


async def test_a_worker_stopping_right_after_a_call_records_it_and_nothing_goes_twice(
    workers: list[Worker],
) -> None:
    """A graceful stop that comes the moment a call returned, before its row is marked sent
    (a deploy at a busy moment): the stop writes the mark before it lets the lane go, so the
    worker that takes the lane over sends only what is new, not the call again."""
    w1, w2 = workers
    called = asyncio.Event()

    async def deliver(row: Pending) -> Delivery:
        w2.got.append(row)
        called.set()
        return Delivery()

    w2.outbox.deliver = deliver
    await write(w2, [Outgoing(PRIVATE, "text", {"text": "one"})])
    await called.wait()
    await w2.outbox.close()  # at once: the row's mark not written yet
    await write(w1, [Outgoing(PRIVATE, "text", {"text": "two"})])
    await until(lambda: w1.texts() != [], 30)
    await until(lambda: not w1.outbox.busy(), 30)
    assert w1.texts() == ["two"]  # "one" went once, from w2
    assert w2.texts() == ["one"]


async def test_a_live_workers_lane_is_not_taken_while_a_call_outlasts_its_lease(
    pg_url: str,
) -> None:
    """A call that takes longer than the lane's lease (Telegram slow to answer, a busy machine)
    while its worker lives (its heartbeat goes on): another worker that writes to the lane
    tells the holder rather than taking the lane over and sending what is in flight once more.
    Only a worker whose heartbeat has run out too is taken over (the test above)."""
    lease = 4.0  # (the heartbeat must outlive a busy machine's pauses; the lane's lease runs out)
    made: list[Worker] = []
    for name in ("w1", "w2"):
        db = await open_database(pg_url)
        outbox = Mailbox(db, TelegramPacing(0.0), owner=name, lease=lease, poll=NO_POLL,
                         store=OutboxStore(db, name))  # fmt: skip
        made.append(Worker(db, outbox))
    w1, w2 = made
    answer = asyncio.Event()  # Telegram answers w1's first call only when the test says

    async def slow(row: Pending) -> Delivery:
        w1.got.append(row)
        if len(w1.got) == 1:
            await answer.wait()
        return Delivery()

    w1.outbox.start(slow)
    w2.outbox.start(w2.deliver)
    try:
        await until(lambda: all(w.db.listening for w in made), 30)
        await write(w1, [Outgoing(PRIVATE, "text", {"text": "one"})])
        await until(lambda: len(w1.got) == 1, 30)  # in flight
        lane = await w1.db.fetchone("SELECT lease_until FROM lanes WHERE chat_id = ?", PRIVATE)
        assert lane is not None
        await until(lambda: time.time() > lane["lease_until"] + 0.1, 30)  # the lane's lease ran out
        await write(w2, [Outgoing(PRIVATE, "text", {"text": "two"})])
        # w2 was told the lane is held (by a live worker), or took it over
        await until(lambda: w2.got != [] or w2.outbox.store.elsewhere.get(PRIVATE, 0) > 0, 30)
        assert w2.got == []
        answer.set()
        await until(lambda: len(w1.got) + len(w2.got) >= 2, 30)
        await until(lambda: not w1.outbox.busy() and not w2.outbox.busy(), 30)
        assert w1.texts() == ["one", "two"] and w2.got == []  # each once, in order
        assert await OutboxStore(w1.db).waiting() == 0
    finally:
        answer.set()
        for worker in made:
            await worker.outbox.close()
            await worker.db.close()
