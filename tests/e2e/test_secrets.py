"""`python -m bot` at DEBUG never writes its token or its webhook's secret: every line it logs
from its first (the start-up checks make a Bot, and python-telegram-bot logs its API URL, the
token in it) to its last, polling and by webhook, through a Bot API error and a shutdown."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

import aiohttp

from tests.conftest import GROUP
from tests.fakebot import TOKEN, FakeTelegram
from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cret-of-the-hook-0042"


async def run(fake: FakeTelegram, folder: Path, **settings: str) -> str:
    """Run the bot as its own process at DEBUG until it has answered /ayuda (after a Bot API
    error on the way), then stop it with SIGTERM; all it wrote."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUCO_")}
    env.update({
        "TRUCO_BOT_TOKEN": TOKEN, "TRUCO_API_BASE_URL": f"http://127.0.0.1:{fake.port}/bot",
        "TRUCO_DATABASE": str(folder / "secret.db"), "TRUCO_LOG_LEVEL": "DEBUG",
        "TRUCO_POLL_TIMEOUT": "1", "PYTHONPATH": str(ROOT),
    })  # fmt: skip
    env.update({f"TRUCO_{k.upper()}": v for k, v in settings.items()})
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=folder, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not any(method == "setMyCommands" for _, method, _ in fake.calls):
            assert time.monotonic() < deadline, "the bot did not start"
            await asyncio.sleep(0.05)
        fake.fail_next["sendMessage"] = (500, "Internal Server Error: try again", None)
        update = {
            "update_id": 1,
            "message": {
                "message_id": 1, "date": int(time.time()),
                "chat": {"id": GROUP, "type": "supergroup", "title": "G"},
                "from": {"id": 1, "is_bot": False, "first_name": "Ana"},
                "text": "/ayuda", "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
            },
        }  # fmt: skip
        if "webhook_port" in settings:
            url = f"http://127.0.0.1:{settings['webhook_port']}/{settings['webhook_path']}"
            headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
            async with aiohttp.ClientSession() as session:
                while True:  # (the hook listens once the bot is up)
                    try:
                        async with session.post(url, json=update, headers=headers) as answer:
                            assert answer.status == 200
                            break
                    except aiohttp.ClientConnectionError:
                        assert time.monotonic() < deadline
                        await asyncio.sleep(0.05)
        else:
            fake.push(update)
        while not any("/nueva" in text for text in fake.texts(GROUP)):  # the help, once retried
            assert time.monotonic() < deadline, "the bot did not answer"
            await asyncio.sleep(0.05)
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = await asyncio.wait_for(process.communicate(), 120)
    return out.decode()


def check(log: str) -> None:
    key = TOKEN.split(":", 1)[1]
    assert log.count("DEBUG") > 20, log[-2000:]  # it did log, at DEBUG, from start to end
    assert key not in log and SECRET not in log
    assert "«secret»" in log  # (what would have shown them is there, masked)
    assert "stopped" in log or "Application.stop" in log or "shut" in log.lower()


async def test_polling_at_debug_logs_no_secret(fake: FakeTelegram, tmp_path: Path) -> None:
    check(await run(fake, tmp_path))


async def test_a_webhook_at_debug_logs_no_secret(fake: FakeTelegram, tmp_path: Path) -> None:
    port = free_port()
    log = await run(
        fake, tmp_path, webhook_url=f"http://127.0.0.1:{port}/hook", webhook_port=str(port),
        webhook_path="hook", webhook_secret=SECRET,
    )  # fmt: skip
    check(log)
    assert json.dumps(SECRET)[1:-1] not in log
