"""What the web table costs a phone on a bad network: the bytes of a first load, of a reload
(with whatever validators the first load's answers gave), and of a whole match against the
computer through the page's own endpoints (the actions' answers and the table's live stream).

    python bench/page_bytes.py [--target 15] [--seed 11]

The local try-out runs in this process on an SQLite file in a temporary directory; the client
asks for gzip as a browser does and counts the bytes as they come off the wire (bodies as sent,
compressed or not; headers are not counted)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.config import Settings  # noqa: E402
from bot.web.local import run_local  # noqa: E402

PAGE = ["/", "/static/app.js", "/static/style.css", "/api/words/es", "/cards/back.svg"]
CARDS = [f"/cards/{n}{s}.svg?lang=es" for s in "ocbe" for n in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]


async def fetch(
    http: aiohttp.ClientSession, url: str, validators: dict[str, dict[str, str]]
) -> tuple[int, int]:
    """(status, bytes on the wire) of one GET, sending the validators kept for `url`."""
    headers = {"Accept-Encoding": "gzip, br"}
    kept = validators.get(url, {})
    if "ETag" in kept:
        headers["If-None-Match"] = kept["ETag"]
    if "Last-Modified" in kept:
        headers["If-Modified-Since"] = kept["Last-Modified"]
    async with http.get(url, headers=headers) as response:
        raw = await response.content.read()
        validators[url] = {
            k: response.headers[k] for k in ("ETag", "Last-Modified") if k in response.headers
        }
        return response.status, len(raw)


async def load(base: str, http: aiohttp.ClientSession, kept: dict[str, dict[str, str]]) -> int:
    total = 0
    for path in PAGE + CARDS:
        _, size = await fetch(http, base + path, kept)
        total += size
    return total


async def match(base: str, http: aiohttp.ClientSession, target: int) -> tuple[int, int, int]:
    """A whole match against the facil computer: (actions, bytes of answers, bytes streamed)."""
    async with http.post(base + "/api/local/login", json={"name": "Ana"}) as r:
        session = (await r.json())["session"]
    headers = {"X-Local-Session": session, "Accept-Encoding": "gzip, br"}
    body = {"mode": "1v1", "target": target, "level": "facil"}
    async with http.post(base + "/api/local/new", json=body, headers=headers) as r:
        table = (await r.json())["table"]
    streamed = 0
    latest: dict[str, Any] = {}
    changed = asyncio.Event()

    async def follow() -> None:
        nonlocal streamed
        async with http.get(f"{base}/api/table/{table}/events", headers=headers) as r:
            buffer = b""
            unpack = zlib.decompressobj(31) if r.headers.get("Content-Encoding") == "gzip" else None
            async for chunk in r.content.iter_any():
                streamed += len(chunk)
                buffer += unpack.decompress(chunk) if unpack else chunk
                while b"\n\n" in buffer:
                    event, buffer = buffer.split(b"\n\n", 1)
                    for line in event.split(b"\n"):
                        if line.startswith(b"data: "):
                            latest.clear()
                            latest.update(json.loads(line[6:]))
                            changed.set()

    follower = asyncio.create_task(follow())
    follower.add_done_callback(lambda t: t.cancelled() or t.exception() is None or changed.set())
    answers = actions = 0
    try:
        while not latest.get("over"):
            await asyncio.wait_for(changed.wait(), 60)
            changed.clear()
            view = dict(latest)
            if view.get("over") or not view.get("actions"):
                continue
            first = view["actions"][0]
            _, kind, *card = first["code"].split(":")
            act = {"step": view["step"], "kind": kind, "card": card[0] if card else None}
            async with http.post(f"{base}/api/table/{table}/act", json=act, headers=headers) as r:
                answers += len(await r.content.read())
                actions += 1
    finally:
        follower.cancel()
    return actions, answers, streamed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", type=int, default=15)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            mode="local", database=Path(tmp) / "bytes.db", web_port=0, bot_delay=0,
            ai_workers=0, seed=args.seed,
        )  # fmt: skip
        stop = asyncio.Event()
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        server = asyncio.create_task(run_local(settings, stop, ready=port.set_result))
        base = f"http://127.0.0.1:{await asyncio.wait_for(port, 30)}"
        try:
            async with aiohttp.ClientSession(auto_decompress=False) as http:
                kept: dict[str, dict[str, str]] = {}
                first = await load(base, http, kept)
                again = await load(base, http, kept)
                actions, answers, streamed = await match(base, http, args.target)
        finally:
            stop.set()
            await server
    print(f"first load: {first / 1024:.1f} kB (page, script, style, words, the 41 cards)")
    print(f"reload: {again / 1024:.1f} kB")
    print(
        f"a match to {args.target}: {actions} actions, answers {answers / 1024:.1f} kB, "
        f"stream {streamed / 1024:.1f} kB, {(answers + streamed) / max(actions, 1):.0f} B an action"
    )


if __name__ == "__main__":
    asyncio.run(main())
