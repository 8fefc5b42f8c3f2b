"""Webhooks as an alternative to polling: only requests with the secret token get in."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import aiohttp

from tests.conftest import GROUP, Harness, make_settings
from tests.fakebot import FakeTelegram


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_webhook_accepts_only_the_secret_token(fake: FakeTelegram, tmp_path: Path) -> None:
    port = free_port()
    settings = make_settings(
        f"http://127.0.0.1:{fake.port}/bot",
        tmp_path / "hook.db",
        webhook_url=f"http://127.0.0.1:{port}/hook",
        webhook_port=port,
        webhook_path="hook",
        webhook_secret="s3cret-token",
    )
    h = Harness(fake, settings)
    await h.start()
    try:
        assert fake.webhook == (f"http://127.0.0.1:{port}/hook", "s3cret-token")
        update = {
            "update_id": 1,
            "message": {
                "message_id": 1, "date": int(time.time()),
                "chat": {"id": GROUP, "type": "supergroup", "title": "G"},
                "from": {"id": 1, "is_bot": False, "first_name": "Ana"},
                "text": "/ayuda", "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
            },
        }  # fmt: skip
        url = f"http://127.0.0.1:{port}/hook"
        async with aiohttp.ClientSession() as session:
            for headers in ({}, {"X-Telegram-Bot-Api-Secret-Token": "wrong"}):
                async with session.post(url, data=json.dumps(update), headers={
                    "Content-Type": "application/json", **headers}) as response:  # fmt: skip
                    assert response.status == 403
            await h.settle()
            assert fake.live(GROUP) == []
            headers = {
                "Content-Type": "application/json",
                "X-Telegram-Bot-Api-Secret-Token": "s3cret-token",
            }
            async with session.post(url, data=json.dumps(update), headers=headers) as response:
                assert response.status == 200
        await h.settle()
        assert "/nueva" in fake.last(GROUP).text
    finally:
        await h.stop()


def test_a_webhook_without_a_secret_is_refused_at_start(tmp_path: Path) -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        make_settings("http://127.0.0.1:1/bot", tmp_path / "x.db", webhook_url="https://x/hook")
