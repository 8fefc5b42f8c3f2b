"""The sender's overall budget on a real SQLite file: a ceiling for every call, and a row that
becomes urgent while it waits goes in its newest version, as one call (the order of what waits,
and several workers: tests/service/test_outbox_ceiling.py)."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from pathlib import Path

from bot.model.outbox import REFRESH, URGENT, Load, Outgoing, Pending, RowKind
from bot.service.mailbox import RANKS, Delivery, Mailbox, _Budget, split
from bot.storage.connect import open_database
from bot.telegram.pacing import TelegramPacing
from tests.waiting import until


def hand(chat_id: int, priority: int) -> Outgoing:
    return Outgoing(chat_id, "hand", {"t": 1, "u": chat_id}, f"hand:1:{chat_id}", priority)


async def test_a_held_refresh_bumped_to_urgent_goes_once_in_its_newest_version(
    tmp_path: Path,
) -> None:
    db = await open_database(tmp_path / "budget.db")
    # One call a second overall, urgent or not
    outbox = Mailbox(db, TelegramPacing(0.0), overall_per_second=1)
    delivered: list[tuple[int, int, int]] = []

    async def deliver(row: Pending) -> Delivery:
        delivered.append((row.chat_id, row.priority, row.version))
        return Delivery(called=True)

    outbox.start(deliver)
    try:
        await outbox.send([hand(8, URGENT)])  # takes the budget's one call of this second
        await until(lambda: len(delivered) == 1)
        await outbox.send([hand(7, REFRESH)])
        await until(lambda: outbox.held() == [7])  # the next waits for the budget
        assert delivered == [(8, URGENT, 1)]
        await outbox.send([hand(7, URGENT)])  # the same hand, now someone's turn: urgent
        await until(lambda: len(delivered) == 2)
        assert delivered[1] == (7, URGENT, 2)  # one call, of the newest version
        assert outbox.held() == []
        await outbox.send([hand(9, REFRESH)])  # the budget holds back the next
        await until(lambda: outbox.held() == [9])
        assert len(delivered) == 2
    finally:
        await outbox.close()
        await db.close()


async def test_a_private_lane_keeps_its_pace_and_what_waits_coalesces(tmp_path: Path) -> None:
    """A burst of 3 at once, then one call every 1/per_second; five edits of one hand that
    wait for the lane's turn go out as one call of the newest version, and a row made urgent
    meanwhile (the hand of whoever must act now) goes first when the turn comes."""
    db = await open_database(tmp_path / "pace.db")
    per_second = 4.0  # (a quarter of a second a call: the test waits on conditions, not time)
    outbox = Mailbox(
        db, TelegramPacing(0.0, private_per_second=per_second, private_burst=3),
        overall_per_second=0,
    )  # fmt: skip
    calls: list[tuple[float, str | None, int, int]] = []

    async def deliver(row: Pending) -> Delivery:
        calls.append((time.time(), row.key, row.priority, row.version))
        return Delivery(called=True)

    outbox.start(deliver)
    try:
        news = [Outgoing(5, RowKind.TEXT, {"text": f"n{i}"}) for i in range(3)]
        await outbox.send(news)  # the burst: at once
        await until(lambda: len(calls) == 3)
        for _ in range(5):  # the same hand edited five times while the lane waits its turn
            await outbox.send([hand(5, REFRESH)])
        await outbox.send([Outgoing(5, RowKind.TEXT, {"text": "later"}, priority=REFRESH + 1)])
        await outbox.send([Outgoing(5, RowKind.HAND, {"t": 2, "u": 5}, "hand:2:5", URGENT)])
        await until(lambda: len(calls) == 6)
        assert await outbox.drain(30)
        first_after_burst = calls[3]
        assert first_after_burst[1] == "hand:2:5"  # the urgent one first when the turn came
        keys = [key for _, key, _, _ in calls[3:]]
        assert keys.count("hand:1:5") == 1  # five edits: one call
        assert [v for _, key, _, v in calls if key == "hand:1:5"] == [5]  # of the newest
        assert len(calls) == 6
        # the pace: of any run of n calls, the first and the last are at least (n - burst)
        # calls' time apart (less a little for the clock's grain)
        at = [c[0] for c in calls]
        for i, j in itertools.combinations(range(len(at)), 2):
            assert at[j] - at[i] >= (j - i + 1 - 3) / per_second - 0.01, (i, j, at)
        # another chat is not held back by this one's pace
        await outbox.send([Outgoing(6, RowKind.TEXT, {"text": "hola"})])
        await until(lambda: any(c[1] is None and c[0] > calls[-2][0] for c in calls[6:]))
    finally:
        await outbox.close()
        await db.close()


async def test_a_budget_past_its_fence_lets_nothing_go_until_it_is_renewed() -> None:
    """A sender's heartbeat fences its budget where its row may run out (the others then take
    its part): past the fence no call is let go, however much of its part is unused, and a
    renewed fence lets the waiting call go."""
    budget = _Budget(10.0)
    assert budget.free()
    budget.fence(time.monotonic() - 0.001)  # a beat that came too late to renew the row
    assert budget.quota == 0 and not budget.free()
    turn = asyncio.get_running_loop().create_task(budget.take(0))
    await until(lambda: budget.demand() == 1)  # waiting: nothing armed can let it go
    assert not turn.done() and budget.flying == 0
    budget.fence(time.monotonic() + 60)  # the next beat renewed it
    assert await asyncio.wait_for(turn, 30) is True
    assert budget.flying == 1


def test_the_split_serves_ranks_in_order_and_never_hands_out_more_than_the_rate() -> None:
    """Senders taking their parts one after another (as their heartbeats do, each seeing the
    others' shares): the parts never add up to more than the rate; once parts settle, a sender
    with turns to show waiting gets all that the turns ask (past the floors) before one with
    only background refreshes gets more than its floor, and idle senders share evenly."""
    rng = random.Random(3)
    rate = 30.0
    for _ in range(500):
        n = rng.randint(1, 4)
        loads = [
            Load(rng.uniform(0, 80), tuple(float(rng.choice([0, 0, rng.randint(1, 40)]))
                                     for _ in range(RANKS)))
            for _ in range(n)
        ]  # fmt: skip
        shares = [0.0] * n
        for _ in range(6):  # beats, in turn
            for i in range(n):
                others = [(loads[j], shares[j]) for j in range(n) if j != i]
                shares[i] = split(rate, loads[i], others)
                assert sum(shares) <= rate + 1e-9
    urgent, background = Load(10, (8.0, 0, 0, 0)), Load(90, (0, 0, 0, 90.0))
    parts = [0.0, 0.0]
    for _ in range(4):  # (each lowers first what the other may then take)
        parts[0] = split(rate, urgent, [(background, parts[1])])
        parts[1] = split(rate, background, [(urgent, parts[0])])
    assert parts[0] >= 2.0 + 8.0 - 1e-9  # its floor and its 8 turns
    assert parts[0] + parts[1] <= rate + 1e-9
    idle = Load()
    assert split(rate, idle, [(idle, 0.0), (idle, 0.0)]) == rate / 3


async def test_the_share_written_never_falls_below_the_part_in_use(tmp_path: Path) -> None:
    """A sender sending at 20 a second whose beats keep failing (their lock not had, their
    session cut) while the split would give it 10: however long that lasts, the share its next
    beat writes is not below the 20 it still sends at (else the others would take the
    difference while its calls still count); once it uses 10, the 20 is written for a window,
    a beat and half a second more, then 10."""
    db = await open_database(tmp_path / "claim.db")
    try:
        outbox = Mailbox(db, TelegramPacing(0.0), 30.0)
        outbox._budget.resized(20.0)  # the part in use, from its last beat that went through
        t = 1000.0
        for _ in range(40):  # ten seconds of beats that choose 10 and fail
            assert outbox._claim(10.0, t) >= 20.0
            t += 0.25
        outbox._budget.resized(10.0)  # a beat went through: 10 in use from now
        switched = t
        while t < switched + outbox._budget.window + outbox.beat + 0.5:
            assert outbox._claim(10.0, t) == 20.0
            t += 0.25
        assert outbox._claim(10.0, t + 0.25) == 10.0
    finally:
        await db.close()


async def test_a_part_behind_a_passed_fence_is_not_written_back(tmp_path: Path) -> None:
    """A sender held up past its heartbeat's lease (its fence passed: it let nothing go since)
    runs again while the other has taken the whole budget: its first beat writes what the
    split gives it now, not the part it had before the hold (with it, the two wrote 40 of a
    rate of 20 and both sent at 20)."""
    db = await open_database(tmp_path / "fenced.db")
    try:
        outbox = Mailbox(db, TelegramPacing(0.0), 20.0)
        outbox._budget.resized(20.0)  # its part before the hold
        outbox._budget.fence(time.monotonic() - 0.1)  # and the fence passed while it stood
        assert outbox._budget.quota == 0
        t = 1000.0  # (its record of beats is empty: the hold was longer than the record keeps)
        assert outbox._claim(0.0, t) == 0.0
        outbox._budget.fence(time.monotonic() + 1.5)  # that beat went through
        outbox._budget.resized(0.0)
        assert outbox._claim(0.0, t + 0.25) == 0.0
    finally:
        await db.close()
