"""SIGKILL a process the bot started (as the out-of-memory killer would) while a practice is on:
the computer players', the hints', the reviews'. Play goes on: the computer player still
answers, a new `/nueva bot` plays, 💡 still answers, a review is still written; the log says
each process's death once; a bot that stops leaves none of its processes behind.

`python -m bot` is a real process (forked from a zygote that imported it, tests/e2e/forked.py)
against the fake Bot API; its thinking processes are its children, found in /proc."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import time
from pathlib import Path

from tests.children import alive, nice_of, thinking
from tests.e2e.forked import Forked, Zygote
from tests.e2e.test_kill import bot_env, live_hand
from tests.fakebot import FakeTelegram, FakeUser, StoredMessage
from tests.waiting import until

ANA = 1  # her private chat is her id
TURN = 60.0  # seconds Ana may wait for her turn (generous: a busy machine spawns slowly)
BROKE = "pool: a process died"  # what the log says of each pool that broke


async def the_one(bot: int, nice: int, besides: frozenset[int] = frozenset()) -> int:
    """The bot's one thinking process at `nice` above the bot's own, not in `besides` (waited
    for: a pool may be being made again). Relative, so that a suite run under `nice` finds
    them too (a child's nice adds to its parent's, up to 19)."""
    deadline = time.monotonic() + TURN
    niceness = min(nice_of(bot) + nice, 19)
    while time.monotonic() < deadline:
        found = [p for p, n in thinking(bot).items() if n == niceness and p not in besides]
        if len(found) == 1:
            return found[0]
        await asyncio.sleep(0.02)
    raise TimeoutError(f"no single thinking process at nice {nice}: {thinking(bot)}")


def step_of(message: StoredMessage, table: int) -> int:
    """The step the hand message's action buttons (a:<table>:<step>:...) are for at `table`
    (-1: none)."""
    for button in message.buttons():
        parts = button.get("callback_data", "").split(":")
        if parts[0] == "a" and int(parts[1]) == table:
            return int(parts[2])
    return -1


async def my_turn(fake: FakeTelegram, table: int, after: int) -> StoredMessage:
    """Ana's hand message at `table` once it offers her a step later than `after`."""
    deadline = time.monotonic() + TURN
    while time.monotonic() < deadline:
        message = live_hand(fake, FakeUser(fake, ANA, "Ana"))
        if message is not None and step_of(message, table) > after:
            return message
        await asyncio.sleep(0.01)
    raise TimeoutError(f"Ana's turn after step {after} did not come within {TURN} s")


async def turns(
    fake: FakeTelegram, ana: FakeUser, table: int, count: int, rng: random.Random, step: int = -1
) -> tuple[int, float]:
    """Ana plays `count` turns of her practice after `step`, each offered within `TURN` s of
    the one before (so the computer player answered each): the step of her last tap and the
    seconds the slowest turn took to come."""
    slowest = 0.0
    for _ in range(count):
        began = time.monotonic()
        message = await my_turn(fake, table, step)
        slowest = max(slowest, time.monotonic() - began)
        step = step_of(message, table)
        buttons = [b for b in message.buttons() if b.get("callback_data", "").startswith("a:")]
        cards = [b for b in buttons if b["callback_data"].count(":") == 4]
        button = rng.choice(cards or buttons)
        query = ana.tap_data(ANA, message.message_id, button["callback_data"])
        await ana.answer_of(query, within=TURN)
    return step, slowest


def last_table(database: Path) -> int:
    """Ana's latest practice (0: none yet)."""
    if not database.exists():
        return 0
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10) as conn:
        try:
            found = conn.execute("SELECT max(id) FROM games WHERE chat_id = ?", (ANA,)).fetchone()
        except sqlite3.OperationalError:  # not created yet
            return 0
    return int(found[0] or 0)


async def practice(ana: FakeUser, database: Path) -> int:
    """A new `/nueva bot` against normal, to 30 (it starts at once; it lasts past what Ana
    plays of it): its table."""
    before = last_table(database)
    ana.send(ANA, "/nueva bot normal 30")
    deadline = time.monotonic() + TURN
    while (table := last_table(database)) == before:
        assert time.monotonic() < deadline, "no practice was opened"
        await asyncio.sleep(0.02)
    return table


def status(database: Path, table: int) -> str:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10) as conn:
        return str(conn.execute("SELECT status FROM games WHERE id = ?", (table,)).fetchone()[0])


async def review(fake: FakeTelegram, ana: FakeUser, database: Path, number: int) -> None:
    """Ana concedes her practice `number` and asks for its review, which comes."""
    ana.send(ANA, "/abandonar")
    await until(lambda: status(database, number) == "finished", TURN)
    ana.send(ANA, f"/revision {number}")
    title = f"Tu revisión de la partida {number}</b>"
    await until(lambda: any(title in text for text in fake.texts(ANA)), TURN)


async def registered(fake: FakeTelegram, calls: int, bot: Forked) -> None:
    """The bot is up: it registered its commands after the `calls`-th call."""
    while not any(method == "setMyCommands" for _, method, _ in fake.calls[calls:]):
        assert not bot.exited, "the bot exited"
        await asyncio.sleep(0.02)


async def test_killed_thinking_processes_are_made_again(fake: FakeTelegram, tmp_path: Path) -> None:
    rng = random.Random(4)
    database = tmp_path / "kill.db"
    log = tmp_path / "bot.log"
    fake.started.add(ANA)
    ana = FakeUser(fake, ANA, "Ana")
    env = bot_env(fake, str(database), poll_timeout="1", bot_delay="0.1", timer_tick="0.2")
    seen: set[int] = set()  # every thinking process the bot started
    with log.open("ab") as errors:
        zygote = Zygote(env, tmp_path, errors)
        bot: Forked | None = None
        try:
            bot = await zygote.fork()
            calls = len(fake.calls)
            await asyncio.wait_for(registered(fake, calls, bot), 120)
            table = await practice(ana, database)
            step, _ = await turns(fake, ana, table, 3, rng)
            players = await the_one(bot.pid, 0)
            hints = await the_one(bot.pid, 10)
            seen |= {players, hints}
            # The computer players' process dies: the practice goes on.
            os.kill(players, signal.SIGKILL)
            step, slowest = await turns(fake, ana, table, 4, rng, step)
            players = await the_one(bot.pid, 0, frozenset({players}))
            seen.add(players)
            # The hints' process dies: 💡 still answers.
            os.kill(hints, signal.SIGKILL)
            message = await my_turn(fake, table, step)
            hint = next(b for b in message.buttons() if b.get("callback_data", "").startswith("h:"))
            query = ana.tap_data(ANA, message.message_id, hint["callback_data"])
            answer = await ana.answer_of(query, within=TURN)
            assert answer["text"].startswith("💡 "), answer
            seen.add(await the_one(bot.pid, 10, frozenset({hints})))
            # A review (its process is made for the first one), then that process dies.
            await review(fake, ana, database, table)
            reviews = await the_one(bot.pid, 0, frozenset({players}))
            seen.add(reviews)
            os.kill(reviews, signal.SIGKILL)
            # A new practice plays, and its review is written.
            table = await practice(ana, database)
            await turns(fake, ana, table, 3, rng)
            await review(fake, ana, database, table)
            seen |= set(thinking(bot.pid))
            # Stopped, the bot leaves none of its processes behind.
            signal.pidfd_send_signal(bot.fd, signal.SIGTERM)
            await bot.wait(60)
            await until(lambda: not any(alive(pid) for pid in seen), 30)
        finally:
            if bot is not None:
                bot.kill()
                await bot.wait()
            await zygote.close()
    text = log.read_text()
    print(f"\nthe slowest turn after the kill: {slowest:.2f} s")
    # Each death said once, by the pool that broke; nothing failed because of it.
    for name in ("players", "hints", "reviews"):
        assert text.count(f"{name} {BROKE}") == 1, text[-3000:]
    assert "computer player failed" not in text and "error while handling" not in text, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
