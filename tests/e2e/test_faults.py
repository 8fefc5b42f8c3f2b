"""Faults for real, on the bot's own SQLite file: another process holding the write lock, the
database turned read-only. The event loop never freezes, nothing is sent twice, nothing the
group should have been told is lost, and play goes on by itself when the fault clears."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import action_buttons, hand_message, open_table
from tests.fakebot import FakeTelegram

# Another process takes SQLite's write lock and keeps it for argv[2] seconds.
LOCKER = """
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
db.execute("COMMIT")
"""


class LoopStalls:
    """The longest the event loop (the bot's, in this process) failed to wake on time."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _watch(self) -> None:
        while True:
            begin = time.monotonic()
            await asyncio.sleep(0.01)
            self.longest = max(self.longest, time.monotonic() - begin - 0.01)

    def __enter__(self) -> LoopStalls:
        self._task = asyncio.get_running_loop().create_task(self._watch())
        return self

    def __exit__(self, *_: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def queue_replies(h: Harness, count: int, tag: str) -> list[str]:
    """Commands whose answers are committed and still waiting in the group's paced lane."""
    user = h.user(9, "Nico")
    for n in range(count):
        user.send(GROUP, f"/nueva {tag}{n}")
    await h.until(lambda: h.fake.unacked() == 0)
    expected = [f"{tag}{n}" for n in range(count)]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        row = await h.db.fetchone("SELECT count(*) AS n FROM outbox WHERE chat_id = ?", GROUP)
        if row is not None and row["n"] >= count - 2:
            break
        await asyncio.sleep(0.01)
    return expected


async def test_a_database_locked_by_another_process_freezes_nothing_and_loses_nothing(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    path = tmp_path / "locked.db"
    async with harness_with(fake, path, group_interval=0.3) as h:
        h.db.lock_wait = 2.0  # a write gives up (and is tried again) after 2 s
        ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
        await open_table(h, [ana, juan], "1v1 15")
        tags = await queue_replies(h, 6, "lk")
        locker = await asyncio.create_subprocess_exec(
            sys.executable, "-c", LOCKER, str(path), "10", stdout=asyncio.subprocess.PIPE
        )
        assert locker.stdout is not None
        assert (await locker.stdout.readline()).strip() == b"locked"
        with LoopStalls() as stalls:
            table = await h.services.tables.table_in(GROUP, 0)
            assert table is not None and table.state is not None
            player = ana if 1 in h.services.tables.waiting_users(table) else juan
            message = hand_message(h, player)
            assert message is not None
            step = table.state.step
            card = action_buttons(message)[0]["text"]
            answer = await player.tap(player.id, message.message_id, card)
            assert "no puede guardar" in answer["text"]  # a clear answer; nothing changed
            await locker.wait()
            await h.settle()
        print(f"longest loop stall while locked: {stalls.longest * 1000:.1f} ms")
        assert stalls.longest < 1.0  # SQLite's own 5 s wait once froze every table
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None and table.state.step == step
        replies = [m.text for m in h.fake.live(GROUP) if any(t in m.text for t in tags)]
        assert len(replies) == len(tags) and len(set(replies)) == len(tags)  # each once
        logged = [r.getMessage() for r in h.errors.records]
        assert sum("would not record it" in line for line in logged) >= 1  # said, with cause
        assert all("locked" in line for line in logged if "would not record it" in line)
        # Play goes on by itself.
        message = hand_message(h, player)
        assert message is not None
        await player.tap(player.id, message.message_id, action_buttons(message)[0]["text"])
        await h.settle()
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None and table.state.step > step
        h.errors.records.clear()


async def test_a_read_only_database_loses_nothing_and_play_resumes(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with harness_with(fake, tmp_path / "ro.db", group_interval=0.3) as h:
        ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
        await open_table(h, [ana, juan], "1v1 15")
        tags = await queue_replies(h, 5, "ro")
        raw = h.db.db  # type: ignore[attr-defined]
        raw.execute("PRAGMA query_only=1")  # every write now fails, as on a read-only file
        with LoopStalls() as stalls:
            await h.until(lambda: any("would not record it" in r.getMessage()
                                      for r in h.errors.records))  # fmt: skip
            table = await h.services.tables.table_in(GROUP, 0)
            assert table is not None and table.state is not None
            step = table.state.step
            player = ana if 1 in h.services.tables.waiting_users(table) else juan
            message = hand_message(h, player)
            assert message is not None
            card = action_buttons(message)[0]["text"]
            answer = await player.tap(player.id, message.message_id, card)
            assert "no puede guardar" in answer["text"]
            raw.execute("PRAGMA query_only=0")  # the fault clears
            await h.settle()
        print(f"longest loop stall while read-only: {stalls.longest * 1000:.1f} ms")
        assert stalls.longest < 1.0
        replies = [m.text for m in h.fake.live(GROUP) if any(t in m.text for t in tags)]
        assert len(replies) == len(set(replies)) == len(tags)
        errors = [
            r.getMessage() for r in h.errors.records if "would not record it" in r.getMessage()
        ]
        assert len(errors) == 1  # one ERROR with its cause, not one per try
        assert "readonly" in errors[0] or "read-only" in errors[0] or "query" in errors[0]
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None and table.state.step == step
        message = hand_message(h, player)
        assert message is not None
        await player.tap(player.id, message.message_id, action_buttons(message)[0]["text"])
        await h.settle()
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None and table.state.step > step
        h.errors.records.clear()


async def test_a_database_that_takes_no_write_still_answers_a_command(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Even the answer cannot be queued when nothing can be written (read-only, or a full
    disk: both are a write SQLite refuses): it goes out at once instead, once, and nothing
    is half-made. Once writes work again, the same command works."""
    async with harness_with(fake, tmp_path / "nowrite.db") as h:
        ana = h.user(1, "Ana")
        other = GROUP - 1
        raw = h.db.db  # type: ignore[attr-defined]
        with LoopStalls() as stalls:
            raw.execute("PRAGMA query_only=1")
            asked = ana.send(other, "/nueva")
            await h.until(lambda: any(m.reply_to == asked for m in h.fake.live(other)))
            await h.settle()
            replies = [m for m in h.fake.live(other) if m.reply_to == asked]
            assert len(replies) == 1 and "no puede guardar" in replies[0].text
            assert await h.services.tables.table_in(other, 0) is None  # nothing half-made
            raw.execute("PRAGMA query_only=0")
            ana.send(other, "/nueva")
            await h.until(lambda: any("Mesa de truco" in m.text for m in h.fake.live(other)))
        print(f"longest loop stall: {stalls.longest * 1000:.1f} ms")
        assert stalls.longest < 1.0
        assert await h.services.tables.table_in(other, 0) is not None
        h.errors.records.clear()
