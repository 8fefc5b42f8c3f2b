"""CPU per Bot API-like POST: httpx (PTB's default) against aiohttp (bot/telegram/http.py).

    python bench/http_clients.py

3,000 form POSTs, 30 at a time, to a local aiohttp server answering a Message-sized JSON; the
process's CPU time per request, the server's share included (the same in both rows).
"""

import asyncio
import json
import time

import aiohttp
import httpx
from aiohttp import web


async def handle(req):
    await req.read()
    return web.json_response(
        {
            "ok": True,
            "result": {
                "message_id": 1,
                "date": 0,
                "chat": {"id": 1, "type": "private"},
                "text": "x" * 300,
            },
        }
    )


async def main():
    app = web.Application()
    app.router.add_post("/{m}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 8765)
    await site.start()
    body = {
        "chat_id": 1,
        "text": "y" * 300,
        "reply_markup": json.dumps(
            {"inline_keyboard": [[{"text": "a", "callback_data": "b"}] * 3]}
        ),
    }
    N = 3000
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=256)) as c:
        for _ in range(100):
            await c.post("http://127.0.0.1:8765/x", data=body)
        t = time.process_time()
        for _ in range(N // 30):
            await asyncio.gather(*[c.post("http://127.0.0.1:8765/x", data=body) for _ in range(30)])
        print("httpx   ", (time.process_time() - t) / N * 1000, "ms/req (incl server)")
    async with aiohttp.ClientSession() as s:
        for _ in range(100):
            async with s.post("http://127.0.0.1:8765/x", data=body) as r:
                await r.read()

        async def one():
            async with s.post("http://127.0.0.1:8765/x", data=body) as r:
                return await r.read()

        t = time.process_time()
        for _ in range(N // 30):
            await asyncio.gather(*[one() for _ in range(30)])
        print("aiohttp ", (time.process_time() - t) / N * 1000, "ms/req (incl server)")
    await runner.cleanup()


asyncio.run(main())
