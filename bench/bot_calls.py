"""CPU per Bot API call in the bot's process, by layer: what one tap's calls cost at the least.

    python bench/bot_calls.py [--calls 4000]

A local aiohttp server in another process answers every call as Telegram would (an edited
message); this process makes the calls 32 at a time and counts only its own CPU time:
- PTB typed: `bot.edit_message_text(...)`, the answer parsed into a Message;
- PTB raw: `bot.do_api_request("editMessageText", ...)`, the answer left as JSON (the outbox);
- request.post: `bot.request.post(url, JsonBody(fields))`, PTB's request layer only;
- aiohttp: a bare POST of a JSON body, the answer parsed with json.loads (the floor);
and parsing one callback-query update (`Update.de_json`), which every tap costs as well.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import time
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.telegram.http import AiohttpRequest, JsonBody

TOKEN = "123:abc"
TEXT = "<b>Mano 3</b> · vos 12, ellos 9\n" + "🂡 1 de espadas · 🂱 7 de oros\n" * 8
MARKUP = InlineKeyboardMarkup(
    [
        [InlineKeyboardButton(f"carta {i}", callback_data=f"a:1234:c{i}:17") for i in range(3)],
        [InlineKeyboardButton(x, callback_data=f"a:1234:{x}:17") for x in ("Truco", "Envido")],
        [InlineKeyboardButton("Me voy al mazo", callback_data="a:1234:m:17")],
    ]
)
USER = {"id": 42, "is_bot": False, "first_name": "Ana"}
MESSAGE = {
    "message_id": 99,
    "from": {"id": 1, "is_bot": True, "first_name": "Truco", "username": "truco_bot"},
    "chat": {"id": 42, "type": "private", "first_name": "Ana"},
    "date": 1_700_000_000,
    "edit_date": 1_700_000_001,
    "text": TEXT,
    "entities": [{"type": "bold", "offset": 0, "length": 6}],
    "reply_markup": MARKUP.to_dict(),
}
UPDATE = {
    "update_id": 1,
    "callback_query": {
        "id": "77",
        "from": USER,
        "chat_instance": "5",
        "data": "a:1234:c1:17",
        "message": MESSAGE,
    },
}


def serve(port: int) -> None:
    async def handle(request: web.Request) -> web.Response:
        await request.read()
        me = {**MESSAGE["from"], "can_join_groups": True}  # type: ignore[dict-item]
        result = me if request.match_info["method"] == "getMe" else MESSAGE
        return web.json_response({"ok": True, "result": result})

    app = web.Application()
    app.router.add_post("/bot{token}/{method}", handle)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


async def measure(name: str, call: Callable[[], Awaitable[object]], calls: int) -> float:
    for _ in range(64):
        await call()
    start = time.process_time()
    for _ in range(calls // 32):
        await asyncio.gather(*[call() for _ in range(32)])
    per = (time.process_time() - start) / (calls // 32 * 32) * 1000
    print(f"{name:<14} {per:6.3f} ms of CPU per call")
    return per


async def main(calls: int, port: int) -> None:
    base = f"http://127.0.0.1:{port}/bot"
    fields = {"chat_id": 42, "message_id": 99, "text": TEXT, "parse_mode": "HTML",
              "reply_markup": MARKUP.to_dict()}  # fmt: skip
    async with Bot(TOKEN, base_url=base, request=AiohttpRequest()) as bot:
        url = f"{base}{TOKEN}/editMessageText"

        async def typed() -> object:
            return await bot.edit_message_text(
                TEXT, chat_id=42, message_id=99, parse_mode="HTML", reply_markup=MARKUP
            )

        async def raw() -> object:
            return await bot.do_api_request("editMessageText", api_kwargs=fields)

        async def request_post() -> object:
            return await bot.request.post(url, JsonBody(fields))

        await measure("PTB typed", typed, calls)
        await measure("PTB raw", raw, calls)
        await measure("request.post", request_post, calls)
    async with aiohttp.ClientSession() as session:

        async def bare() -> object:
            async with session.post(url, data=json.dumps(fields).encode(),
                                    headers={"Content-Type": "application/json"}) as r:  # fmt: skip
                return json.loads(await r.read())

        await measure("aiohttp", bare, calls)
    bot = Bot(TOKEN)
    start = time.process_time()
    for _ in range(calls):
        Update.de_json(UPDATE, bot)
    print(f"{'Update.de_json':<14} {(time.process_time() - start) / calls * 1000:6.3f} ms of CPU")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=4000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    port = 8799
    server = multiprocessing.Process(target=serve, args=(port,), daemon=True)
    server.start()
    try:
        for _ in range(200):
            try:
                import socket

                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        asyncio.run(main(args.calls, port))
    finally:
        server.terminate()
