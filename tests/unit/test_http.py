"""PTB's requests over aiohttp (bot/telegram/http.py), against a real HTTP server on loopback."""

from __future__ import annotations

import asyncio
import io
import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from telegram import Bot, Message
from telegram.error import BadRequest, NetworkError, TimedOut

from bot.telegram.http import AiohttpRequest, JsonBody, UpdatesRequest

TOKEN = "123:abc"
CHAT = {"id": -100, "type": "supergroup", "title": "Truqueros"}
USER = {"id": 9, "is_bot": False, "first_name": "Ana"}
TAPPED = {
    "message_id": 31,
    "date": 1700000000,
    "chat": CHAT,
    "from": {"id": 1, "is_bot": True, "first_name": "Truco"},
    "text": "Mano de Ana",
    "entities": [{"type": "bold", "offset": 0, "length": 4}],
    "reply_markup": {"inline_keyboard": [[{"text": "1 de espadas", "callback_data": "a:1:2:c:3"}]]},
}
UPDATES = [
    {"update_id": 1, "callback_query": {
        "id": "q1", "from": USER, "chat_instance": "ci", "data": "a:1:2:c:3", "message": TAPPED,
    }},
    {"update_id": 2, "message": {**TAPPED, "message_id": 32, "from": USER, "text": "/tabla"}},
]  # fmt: skip


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, list[dict[str, object]], asyncio.Event]]:
    seen: list[dict[str, object]] = []
    release = asyncio.Event()

    async def handle(request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if method == "getMe":
            user = {"id": 1, "is_bot": True, "first_name": "Truco", "username": "truco_bot"}
            return web.json_response({"ok": True, "result": user})
        if method == "getUpdates":
            return web.json_response({"ok": True, "result": UPDATES})
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


async def test_updates_keep_what_handlers_read_of_a_tapped_message(
    server: tuple[str, list[dict[str, object]], asyncio.Event],
) -> None:
    base, _, _ = server
    async with (
        Bot(TOKEN, base_url=base, request=AiohttpRequest()) as plain,
        Bot(
            TOKEN, base_url=base, get_updates_request=UpdatesRequest(connection_pool_size=1)
        ) as lean,
    ):
        full, pruned = await plain.get_updates(), await lean.get_updates()
    assert [u.update_id for u in pruned] == [1, 2]
    query, whole = pruned[0].callback_query, full[0].callback_query
    assert query is not None and whole is not None
    assert (query.id, query.data, query.from_user.id) == ("q1", "a:1:2:c:3", 9)
    tapped = query.message
    assert isinstance(tapped, Message)  # not an InaccessibleMessage: its date is kept
    assert (tapped.message_id, tapped.chat.id, tapped.chat.type) == (31, -100, "supergroup")
    assert tapped.date == whole.message.date  # type: ignore[union-attr]
    assert tapped.text is None and tapped.reply_markup is None  # what no handler reads
    assert isinstance(whole.message, Message) and whole.message.text == "Mano de Ana"
    command = pruned[1].message  # a message that is itself the update keeps everything
    assert command is not None and command.text == "/tabla" and command.from_user is not None


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
