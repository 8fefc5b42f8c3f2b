"""SIGKILL at random moments: `python -m bot` as a separate process, killed and started again
mid-match; no action is lost, none is applied twice, and the match goes on to its end."""

from __future__ import annotations

import asyncio
import os
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

from bot.game import MatchConfig, MatchState, replay
from bot.game.actions import parse_any
from bot.storage.db import Database
from tests.conftest import GROUP
from tests.fakebot import TOKEN, FakeTelegram, FakeUser, StoredMessage

ROOT = Path(__file__).resolve().parents[2]


def live_hand(fake: FakeTelegram, user: FakeUser) -> StoredMessage | None:
    found = [
        m for m in fake.live(user.id)
        if any(str(b.get("callback_data", "")).startswith("a:") for b in m.buttons())
    ]  # fmt: skip
    return found[-1] if found else None


async def quiet(fake: FakeTelegram, within: float = 20.0, still: float = 0.4) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        last = fake.calls[-1][0] if fake.calls else 0.0
        if fake.undelivered() == 0 and time.time() - last > still:
            return
        await asyncio.sleep(0.05)
    raise TimeoutError("the bot did not go quiet")


async def start_bot(fake: FakeTelegram, folder: Path) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUCO_")}
    env.update(
        {
            "TRUCO_BOT_TOKEN": TOKEN,
            "TRUCO_API_BASE_URL": f"http://127.0.0.1:{fake.port}/bot",
            "TRUCO_DATABASE": str(folder / "kill.db"),
            "TRUCO_SEED": "7",
            "TRUCO_GROUP_INTERVAL": "0.02",
            "TRUCO_RATE_GROUP_PER_MINUTE": "1000000",
            "TRUCO_POLL_TIMEOUT": "1",
            "TRUCO_TURN_SECONDS": "0",
            "PYTHONPATH": str(ROOT),
        }
    )
    calls = len(fake.calls)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=folder, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    for _ in range(300):  # up when it has registered its commands again
        if any(method == "setMyCommands" for _, method, _ in fake.calls[calls:]):
            return process
        await asyncio.sleep(0.05)
    raise TimeoutError("the bot did not start")


async def test_kill_9_mid_match_and_start_again(fake: FakeTelegram, tmp_path: Path) -> None:
    rng = random.Random(3)
    ana, juan = FakeUser(fake, 1, "Ana"), FakeUser(fake, 2, "Juan")
    fake.started.update({1, 2})
    bot = await start_bot(fake, tmp_path)
    restarts = 0
    try:
        ana.send(GROUP, "/nueva 15")
        await quiet(fake)
        await juan.tap(GROUP, fake.last(GROUP).message_id, "✋ Unirme")
        await quiet(fake)
        kills = {4, 11, 19, 30}
        taps = 0
        while not any("🏆" in t for t in fake.texts(GROUP)):
            options = [(u, m) for u in (ana, juan) if (m := live_hand(fake, u)) is not None]
            assert options, "the game waits on nobody"
            user, message = rng.choice(options)
            buttons = [b for b in message.buttons() if b["callback_data"].startswith("a:")]
            weights = [6.0 if b["callback_data"].count(":") == 4 else 0.3 for b in buttons]
            button = rng.choices(buttons, weights)[0]
            query = user.tap_data(user.id, message.message_id, button["callback_data"])
            taps += 1
            assert taps < 400
            if taps in kills:
                await asyncio.sleep(rng.uniform(0.0, 0.05))  # anywhere: before, during, after
                bot.kill()
                await bot.wait()
                restarts += 1
                bot = await start_bot(fake, tmp_path)
            else:
                await user.answer_of(query, within=20)
            await quiet(fake)
    finally:
        bot.kill()
        await bot.wait()
    assert restarts == 4
    db = await Database.open(tmp_path / "kill.db")
    try:
        game = await db.fetchone("SELECT id, state, config FROM games")
        assert game is not None
        rows = await db.fetchall(
            "SELECT seq, code FROM actions WHERE game_id = ? ORDER BY seq", game["id"]
        )
        assert [r["seq"] for r in rows] == list(range(len(rows)))  # nothing lost, nothing twice
        import json

        config = MatchConfig.from_dict(json.loads(game["config"]))
        state = MatchState.from_dict(json.loads(game["state"]))
        assert replay(config, [parse_any(r["code"]) for r in rows]).to_dict() == state.to_dict()
        assert state.is_over
        record = await db.fetchone("SELECT outcome FROM matches")
        assert record is not None and record["outcome"] == "won"
    finally:
        await db.close()
    summaries = Counter(
        m.group(1) for t in fake.texts(GROUP) if (m := re.search(r"Fin de la mano (\d+)", t))
    )
    assert sum(n - 1 for n in summaries.values()) <= restarts  # at most one duplicate a restart
