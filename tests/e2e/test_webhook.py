"""Webhooks as an alternative to polling: only requests with the secret token get in."""

from __future__ import annotations

import io
import json
import logging
import time
from pathlib import Path

import aiohttp
import pytest

from tests.conftest import GROUP, Harness, make_settings
from tests.fakebot import FakeTelegram
from tests.ports import free_port


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


async def test_no_log_line_holds_the_token_or_the_webhook_secret(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """At DEBUG, python-telegram-bot logs every Bot API URL (the token is in it) and
    setWebhook's parameters (the secret); a failed call's error carries the URL. Every log
    line of a whole run, tracebacks included, is read for both."""
    from tests.fakebot import TOKEN

    port = free_port()
    secret = "s3cret-token-of-the-hook"
    settings = make_settings(
        f"http://127.0.0.1:{fake.port}/bot", tmp_path / "hook.db",
        webhook_url=f"http://127.0.0.1:{port}/hook", webhook_port=port, webhook_path="hook",
        webhook_secret=secret, log_level="DEBUG",
    )  # fmt: skip
    h = Harness(fake, settings)
    with caplog.at_level(logging.DEBUG):
        await h.start()
        try:
            update = {
                "update_id": 1,
                "message": {
                    "message_id": 1, "date": int(time.time()),
                    "chat": {"id": GROUP, "type": "supergroup", "title": "G"},
                    "from": {"id": 1, "is_bot": False, "first_name": "Ana"},
                    "text": "/ayuda",
                    "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
                },
            }  # fmt: skip
            headers = {
                "Content-Type": "application/json",
                "X-Telegram-Bot-Api-Secret-Token": secret,
            }
            async with aiohttp.ClientSession() as session:
                url = f"http://127.0.0.1:{port}/hook"
                async with session.post(url, data=json.dumps(update), headers=headers) as answer:
                    assert answer.status == 200
            await h.settle()
            # A call that fails with the URL in its error (the token is in every URL).
            logging.getLogger("bot.test").error(
                "call failed", exc_info=RuntimeError(f"POST http://x/bot{TOKEN}/sendMessage")
            )
        finally:
            await h.stop()
    lines = caplog.records
    assert len(lines) > 20  # it did log, at DEBUG
    key = TOKEN.split(":", 1)[1]
    for record in lines:
        text = record.getMessage() + (record.exc_text or "")
        assert key not in text and secret not in text, text
    assert any("«secret»" in r.getMessage() + (r.exc_text or "") for r in lines)
    h.errors.records.clear()


async def test_the_webhook_checks_the_secret_first_and_refuses_big_bodies(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A stranger's 8 MB POST is refused before its body is read (python-telegram-bot's own
    server read up to 100 MB first); with the secret, a body over 1 MB is refused too."""
    port = free_port()
    settings = make_settings(
        f"http://127.0.0.1:{fake.port}/bot", tmp_path / "big.db",
        webhook_url=f"http://127.0.0.1:{port}/hook", webhook_port=port, webhook_path="hook",
        webhook_secret="s3cret-token",
    )  # fmt: skip
    h = Harness(fake, settings)
    await h.start()
    try:
        url = f"http://127.0.0.1:{port}/hook"
        big = b"{" + b" " * (8 << 20) + b"}"
        async with aiohttp.ClientSession() as session:
            for headers, status in (
                ({}, 403),
                ({"X-Telegram-Bot-Api-Secret-Token": "s3cret-tokeN"}, 403),
                ({"X-Telegram-Bot-Api-Secret-Token": "s3cret-token"}, 413),
            ):
                async with session.post(url, data=io.BytesIO(big), headers={
                    "Content-Type": "application/json", **headers}) as response:  # fmt: skip
                    assert response.status == status
            async with session.post(url, data=b"not json", headers={
                "X-Telegram-Bot-Api-Secret-Token": "s3cret-token"}) as response:  # fmt: skip
                assert response.status == 400
        await h.settle()
        assert fake.live(GROUP) == []
    finally:
        await h.stop()
