"""PTB's requests over aiohttp (bot/http.py), against a real HTTP server on loopback."""

from __future__ import annotations

import asyncio
import io
import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from telegram import Bot
from telegram.error import BadRequest, NetworkError, TimedOut

from bot.http import AiohttpRequest, JsonBody

TOKEN = "123:abc"


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, list[dict[str, object]], asyncio.Event]]:
    seen: list[dict[str, object]] = []
    release = asyncio.Event()

    async def handle(request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if method == "getMe":
            user = {"id": 1, "is_bot": True, "first_name": "Truco", "username": "truco_bot"}
            return web.json_response({"ok": True, "result": user})
        if method == "slow":
            await release.wait()
            return web.json_response({"ok": True, "result": True})
        if method == "sendDocument":
            form = await request.post()
            upload = form["document"]
            assert isinstance(upload, web.FileField)
            seen.append(
                {
                    "chat_id": form["chat_id"],
                    "filename": upload.filename,
                    "content": upload.file.read(),
                    "type": upload.content_type,
                }
            )
            message = {"message_id": 5, "date": 0, "chat": {"id": 7, "type": "private"}}
            return web.json_response({"ok": True, "result": message})
        assert request.content_type == "application/json"  # fields go as one JSON body
        form = await request.json()
        seen.append(form)
        if method == "sendMessage" and form.get("text") == "bad":
            payload = {"ok": False, "error_code": 400, "description": "Bad Request: nope"}
            return web.json_response(payload, status=400)
        message = {"message_id": 4, "date": 0, "chat": {"id": 7, "type": "private"}, "text": "hi"}
        return web.json_response({"ok": True, "result": message})

    app = web.Application()
    app.router.add_post("/bot{token}/{method}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}/bot", seen, release
    release.set()
    await runner.cleanup()


async def test_calls_send_fields_and_parse_answers(
    server: tuple[str, list[dict[str, object]], asyncio.Event],
) -> None:
    base, seen, _ = server
    async with Bot(TOKEN, base_url=base, request=AiohttpRequest()) as bot:
        message = await bot.send_message(7, "hola ñandú")
        assert message.message_id == 4 and message.text == "hi"
        assert seen[-1] == {"chat_id": 7, "text": "hola ñandú"}
        with pytest.raises(BadRequest, match=r"(?i)nope"):  # PTB still reads Telegram's errors
            await bot.send_message(7, "bad")


async def test_prepared_fields_go_as_one_json_body_and_errors_still_map(
    server: tuple[str, list[dict[str, object]], asyncio.Event],
) -> None:
    base, seen, _ = server
    keyboard = {"inline_keyboard": [[{"text": "Quiero", "callback_data": "a:1:q:2"}]]}
    async with Bot(TOKEN, base_url=base, request=AiohttpRequest()) as bot:
        url = f"{bot.base_url}/sendMessage"
        answer = await bot.request.post(
            url, JsonBody({"chat_id": 7, "text": "ñ", "reply_markup": keyboard})
        )
        assert isinstance(answer, dict) and answer["message_id"] == 4  # plain JSON, no Message
        # The keyboard goes as an object inside the body, not as JSON text inside JSON.
        assert seen[-1] == {"chat_id": 7, "text": "ñ", "reply_markup": keyboard}
        with pytest.raises(BadRequest, match=r"(?i)nope"):
            await bot.request.post(url, JsonBody({"chat_id": 7, "text": "bad"}))


async def test_documents_go_up_as_multipart(
    server: tuple[str, list[dict[str, object]], asyncio.Event],
) -> None:
    base, seen, _ = server
    async with Bot(TOKEN, base_url=base, request=AiohttpRequest()) as bot:
        payload = b'{"hands": []}'
        await bot.send_document(7, io.BytesIO(payload), filename="partida-3.json")
    assert seen[-1]["filename"] == "partida-3.json"
    assert seen[-1]["content"] == payload and seen[-1]["chat_id"] == "7"


async def test_a_slow_answer_is_timed_out_and_a_closed_port_a_network_error(
    server: tuple[str, list[dict[str, object]], asyncio.Event],
) -> None:
    base, _, _ = server
    request = AiohttpRequest(read_timeout=0.2, write_timeout=0.0)
    await request.initialize()
    try:
        with pytest.raises(TimedOut):
            await request.do_request(f"{base}{TOKEN}/slow", "POST")
    finally:
        await request.shutdown()
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    request = AiohttpRequest()
    await request.initialize()
    try:
        with pytest.raises(NetworkError) as raised:
            await request.do_request(f"http://127.0.0.1:{port}/bot{TOKEN}/getMe", "POST")
        assert not isinstance(raised.value, TimedOut)
    finally:
        await request.shutdown()
    with pytest.raises(RuntimeError, match="not initialized"):
        await request.do_request(f"{base}{TOKEN}/getMe", "POST")
