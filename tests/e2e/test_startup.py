"""`python -m bot` that cannot start says why in one line and exits with an error code:
no Bot API, a refused token, a database it cannot open or write, a webhook port taken."""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import sys
from pathlib import Path

from tests.fakebot import TOKEN, FakeTelegram

ROOT = Path(__file__).resolve().parents[2]


async def run_bot(folder: Path, **settings: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUCO_")}
    env.update({"PYTHONPATH": str(ROOT), "TRUCO_BOT_TOKEN": TOKEN})
    env.update({f"TRUCO_{k.upper()}": v for k, v in settings.items()})
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=folder, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def one_line(code: int, out: str, err: str) -> str:
    assert code == 1, (code, out, err)
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("truco-bot: ")
    return lines[0]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # nothing listens there once the socket is closed


async def test_the_api_cannot_be_reached(tmp_path: Path) -> None:
    line = one_line(*await run_bot(tmp_path, api_base_url=f"http://127.0.0.1:{closed_port()}/bot"))
    assert "cannot reach the Bot API" in line


async def test_the_token_is_refused(fake: FakeTelegram, tmp_path: Path) -> None:
    line = one_line(
        *await run_bot(
            tmp_path,
            api_base_url=f"http://127.0.0.1:{fake.port}/bot",
            bot_token="123:not-the-token",
        )
    )
    assert "refused the token" in line


async def test_the_database_cannot_be_opened(fake: FakeTelegram, tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{fake.port}/bot"
    folder = tmp_path / "a-folder"
    folder.mkdir()
    line = one_line(*await run_bot(tmp_path, api_base_url=base, database=str(folder)))
    assert "cannot use the database" in line
    line = one_line(
        *await run_bot(tmp_path, api_base_url=base, database=str(tmp_path / "no" / "such.db"))
    )
    assert "cannot use the database" in line


async def test_the_database_cannot_be_written(fake: FakeTelegram, tmp_path: Path) -> None:
    # Another process holds the write lock (say, a second bot started by mistake): the bot
    # cannot write, and says so instead of starting half-way.
    path = tmp_path / "busy.db"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        line = one_line(
            *await run_bot(
                tmp_path, api_base_url=f"http://127.0.0.1:{fake.port}/bot", database=str(path)
            )
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "cannot use the database" in line and "locked" in line


async def test_a_database_that_is_not_sqlite(fake: FakeTelegram, tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_text("these are my notes, not a database\n" * 100)
    line = one_line(
        *await run_bot(
            tmp_path,
            api_base_url=f"http://127.0.0.1:{fake.port}/bot",
            database=str(tmp_path / "notes.db"),
        )
    )
    assert "cannot use the database" in line


async def test_the_webhook_port_is_taken(fake: FakeTelegram, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_line(
            *await run_bot(
                tmp_path,
                api_base_url=f"http://127.0.0.1:{fake.port}/bot",
                webhook_url=f"https://bot.invalid:{port}/hook",
                webhook_port=str(port),
                webhook_secret="s3cret",
            )
        )
    assert f"cannot listen for the webhook on 127.0.0.1:{port}" in line
