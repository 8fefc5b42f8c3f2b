"""How long the web table takes to show a player their cards on a slow phone network: Debian's
Chromium at 360×640 under Chrome's "Slow 3G"-like throttling (400 kbit/s down, 400 ms round
trip), from nothing in the cache (first load) and again (reload), measured to the moment the
hand's three cards are drawn; and the bytes the browser took for each.

    python bench/page_load.py [--runs 3]

The local try-out runs in this process on an SQLite file in a temporary directory."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import Page, async_playwright  # noqa: E402

from bot.config import Settings  # noqa: E402
from bot.web.local import run_local  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
HAND_DRAWN = "[...document.querySelectorAll('#hand img')].filter((i) => i.complete).length === 3"
SLOW = {"offline": False, "latency": 400, "downloadThroughput": 50_000, "uploadThroughput": 50_000}


async def timed(page: Page, url: str, received: list[int]) -> tuple[float, int]:
    received.clear()
    start = time.perf_counter()
    await page.goto(url)
    await page.wait_for_function(HAND_DRAWN)
    return time.perf_counter() - start, sum(received)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            mode="local", database=Path(tmp) / "load.db", web_port=0, bot_delay=0, ai_workers=0,
            seed=11,
        )  # fmt: skip
        stop = asyncio.Event()
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        server = asyncio.create_task(run_local(settings, stop, ready=port.set_result))
        base = f"http://127.0.0.1:{await asyncio.wait_for(port, 30)}"
        firsts: list[float] = []
        agains: list[float] = []
        sizes: tuple[int, int] = (0, 0)
        try:
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                for _ in range(args.runs):
                    context = await browser.new_context(
                        viewport={"width": 360, "height": 640}, bypass_csp=True
                    )
                    page = await context.new_page()
                    await page.goto(base)
                    await page.fill("#name", "Ana")
                    await page.click("#enter")
                    await page.select_option("#level", "facil")
                    await page.click("#play")
                    await page.wait_for_selector("#hand img")
                    url = page.url
                    cdp = await context.new_cdp_session(page)
                    await cdp.send("Network.enable")
                    await cdp.send("Network.emulateNetworkConditions", SLOW)
                    await cdp.send("Network.clearBrowserCache")
                    received: list[int] = []
                    cdp.on(
                        "Network.loadingFinished",
                        lambda e, kept=received: kept.append(int(e.get("encodedDataLength", 0))),
                    )
                    first, first_bytes = await timed(page, url, received)
                    again, again_bytes = await timed(page, url, received)
                    firsts.append(first)
                    agains.append(again)
                    sizes = (first_bytes, again_bytes)
                    await context.close()
                await browser.close()
        finally:
            stop.set()
            await server
    print(
        f"first load to the hand drawn: median {statistics.median(firsts):.2f} s "
        f"({', '.join(f'{x:.2f}' for x in firsts)}), {sizes[0] / 1024:.1f} kB"
    )
    print(
        f"reload to the hand drawn: median {statistics.median(agains):.2f} s "
        f"({', '.join(f'{x:.2f}' for x in agains)}), {sizes[1] / 1024:.1f} kB"
    )


if __name__ == "__main__":
    asyncio.run(main())
