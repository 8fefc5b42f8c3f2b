"""The web table with pages open: `python -m bot --local` in its own process, N tables of two
local players, every player's page following its table (server-sent events), and moves made
through the page's own endpoint.

    python bench/web.py [--tables 100] [--moves 2000] [--viewers N]

Reports the delay from a move sent to the *other* player's page receiving the new view (an
upper bound of "commit to the page": it includes the request itself), p50/p99; the server's
CPU per move; its memory with the pages open, per page. With `--viewers N`, N more pages watch
the first table (each from an address of its own on loopback, 127.0.0.2 and up), and the
moves are all made there: the server's CPU per move with N onlookers, and its memory per
onlooker's stream, open and once they closed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import sse  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


class Page:
    """One player's page: its session, and the views its stream brought."""

    def __init__(self, http: aiohttp.ClientSession, base: str, session: str) -> None:
        self.http, self.base, self.session = http, base, session
        self.view: dict[str, Any] | None = None
        self.arrived: dict[int, float] = {}  # version -> when the stream brought it
        self.changed = asyncio.Event()

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Local-Session": self.session}

    async def follow(self, table: int) -> None:
        async with self.http.get(
            f"{self.base}/api/table/{table}/events", headers=self.headers, timeout=None
        ) as response:
            async for view in sse.views(response):
                self.arrived.setdefault(view["version"], time.perf_counter())
                self.view = view
                self.changed.set()


def can_move(view: dict[str, Any] | None) -> bool:
    return bool(view and view.get("actions") and not view.get("over"))


async def post(page: Page, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    async with page.http.post(f"{page.base}{path}", headers=page.headers, json=body) as r:
        return r.status, await r.json()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--viewers", type=int, default=0)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ, "TRUCO_MODE": "local", "TRUCO_WEB_PORT": str(port),
            "TRUCO_DATABASE": f"{tmp}/bench.db", "TRUCO_LOG_LEVEL": "WARNING",
            "TRUCO_WEB_RATE": "1000000", "TRUCO_WEB_BURST": "1000000",  # (one client: the bench)
        }  # fmt: skip
        env.pop("TRUCO_BOT_TOKEN", None)
        server = subprocess.Popen(  # noqa: ASYNC220 (once, before anything is measured)
            [sys.executable, "-m", "bot", "--local"], cwd=ROOT, env=env,
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert server.stdout is not None
        server.stdout.readline()  # "the local table is at ..."
        base = f"http://127.0.0.1:{port}"
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as http:
            pages: list[tuple[Page, Page, int]] = []
            for n in range(args.tables):
                pair = []
                for name in (f"A{n}", f"B{n}"):
                    async with http.post(f"{base}/api/local/login", json={"name": name}) as r:
                        pair.append(Page(http, base, (await r.json())["session"]))
                a, b = pair
                _, made = await post(a, "/api/local/new", {"mode": "1v1", "friend": True})
                await post(b, f"/api/table/{made['table']}/join", {})
                pages.append((a, b, made["table"]))
            idle_rss = rss_mb(server.pid)  # the tables made, no page open yet
            streams = [asyncio.create_task(p.follow(t)) for a, b, t in pages for p in (a, b)]
            for a, b, _ in pages:  # every page has its first view
                for p in (a, b):
                    while p.view is None or "step" not in p.view:
                        p.changed.clear()
                        await asyncio.wait_for(p.changed.wait(), 30)
            open_rss = rss_mb(server.pid)
            onlookers = []
            if args.viewers:
                onlookers = await watch(base, pages[0][2], args.viewers)
                pages = pages[:1]  # every move at the watched table
            watched_rss = rss_mb(server.pid)
            rng = random.Random(1)
            delays: list[float] = []
            cpu0, wall0 = cpu_seconds(server.pid), time.perf_counter()
            moves = 0
            while moves < args.moves:
                if not any(can_move(p.view) for a, b, _ in pages for p in (a, b)):
                    break  # every match is over
                a, b, table = rng.choice(pages)
                turn = [(m, o) for m, o in ((a, b), (b, a)) if can_move(m.view)]
                if not turn:
                    continue
                mover, other = turn[0]
                view = mover.view
                assert view is not None
                action = view["actions"][0]
                kind, *card = action["code"].split(":")[1:]
                sent = time.perf_counter()
                status, fresh = await post(
                    mover, f"/api/table/{table}/act",
                    {"step": view["step"], "kind": kind, "card": card[0] if card else None},
                )  # fmt: skip
                if status != 200:
                    continue
                mover.view = fresh
                version = fresh["version"]
                deadline = time.perf_counter() + 10
                while version not in other.arrived and time.perf_counter() < deadline:
                    other.changed.clear()
                    with_timeout = asyncio.wait_for(other.changed.wait(), 10)
                    await with_timeout
                delays.append(other.arrived[version] - sent)
                moves += 1
            cpu = cpu_seconds(server.pid) - cpu0
            wall = time.perf_counter() - wall0
            for task in streams:
                task.cancel()
            closed_rss = moved_rss = rss_mb(server.pid)
            if onlookers:
                for task, http_of in onlookers:
                    task.cancel()
                    await http_of.close()
                await asyncio.sleep(2)
                closed_rss = rss_mb(server.pid)
        server.terminate()
        server.wait(30)
    delays.sort()
    p50 = statistics.median(delays) * 1000
    p99 = delays[int(0.99 * (len(delays) - 1))] * 1000
    print(f"tables {args.tables}, pages open {2 * args.tables}, moves {moves} in {wall:.1f} s")
    print(f"move sent -> the other page has it: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    print(f"server CPU per move: {cpu / moves * 1000:.2f} ms")
    print(f"server memory: {idle_rss:.0f} MB with the tables, {open_rss:.0f} MB with the pages "
          f"({(open_rss - idle_rss) * 1024 / (2 * args.tables):.0f} kB a page)")  # fmt: skip
    if args.viewers:
        per = (watched_rss - open_rss) * 1024 / args.viewers
        print(f"onlookers {args.viewers}: {watched_rss:.1f} MB with them ({per:.0f} kB each), "
              f"{moved_rss:.1f} MB after the moves, {closed_rss:.1f} MB once closed")  # fmt: skip


async def watch(base: str, table: int, viewers: int) -> list[tuple[Any, aiohttp.ClientSession]]:
    """`viewers` pages watching `table`, each its own person at its own loopback address."""
    out = []
    for n in range(viewers):
        address = f"127.0.{(n + 2) // 250}.{(n + 2) % 250 + 1}"
        http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)))
        async with http.post(f"{base}/api/local/login", json={"name": f"V{n}"}) as r:
            page = Page(http, base, (await r.json())["session"])
        task = asyncio.create_task(page.follow(table))
        while page.view is None:
            page.changed.clear()
            await asyncio.wait_for(page.changed.wait(), 30)
        out.append((task, http))
    return out


if __name__ == "__main__":
    asyncio.run(main())
