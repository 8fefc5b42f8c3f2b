"""How long a tapped card takes to be on the felt: Debian's Chromium plays whole matches through
the local table at 360×640 (the computer players answering at once, so a tap often comes while
the previous hand's end is still on the felt), and each tap on a card of the hand is timed from
the pointer going down to the first frame drawn with that card on the felt (and, apart, from
the server's answer to that frame: the page's own part); then two windows of
a 1v1 between friends, each tap timed to the frame the other window draws the card.

    python bench/web_taps.py [--matches 2] [--two-windows 40] [--bot-delay 0]

The local try-out runs in this process on an SQLite file in a temporary directory. Prints
p50/p95/max in milliseconds, and how many taps took over 250 ms and over a second."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import Browser, Page, async_playwright  # noqa: E402
from playwright.async_api import Error as PlaywrightError  # noqa: E402

from bot.config import Settings  # noqa: E402
from bot.web.local import run_local  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 360, "height": 640}

# The tap (pointer down on a playable card of the hand) and the first frame with that card on
# the felt, in the page's own clock; `__seen`: every card the felt drew, with the epoch time of
# the frame (for the other window).
TIMING = """
window.__taps = [];
window.__seen = {};
window.__pending = [];
const epoch = () => performance.timeOrigin + performance.now();
window.__answers = [];  // when each answer to a move came back (the server's part of a tap)
const fetched = window.fetch;
window.__sent = [];  // when each move was sent
window.fetch = async (...args) => {
  if (String(args[0]).endsWith("/act")) window.__sent.push(performance.now());
  const response = await fetched(...args);
  if (String(args[0]).endsWith("/act")) window.__answers.push(performance.now());
  return response;
};
const handOf = () => ((document.getElementById("worth") || {}).textContent || "").split(" · ")[0]
  .replace(/\\D/g, "");
// (the hand whose cards the felt shows: its data-hand, else the end it holds, else the one in play)
const feltHand = (felt) => {
  if (felt.dataset.hand) return felt.dataset.hand;
  const end = /Mano (\\d+)/.exec((document.getElementById("hand-end") || {}).textContent || "");
  return end ? end[1] : handOf();
};
document.addEventListener("pointerdown", (event) => {
  const button = event.target.closest && event.target.closest("#hand button.card:not([disabled])");
  if (!button) return;
  const card = button.querySelector("img").dataset.card;
  const hand = handOf();
  window.__pending = window.__pending.filter((t) => t.card !== card || t.hand !== hand);
  window.__pending.push({ card, hand, at: performance.now(), epoch: epoch() });
}, true);
new MutationObserver(() => {
  const felt = document.getElementById("felt");
  if (!felt) return;
  const hand = feltHand(felt);
  for (const img of felt.querySelectorAll(".played img")) {
    const key = hand + "|" + img.dataset.card;
    if (!(key in window.__seen)) {
      window.__seen[key] = null;
      requestAnimationFrame(() => { window.__seen[key] = epoch(); });
    }
  }
  // (a hand's end shown beside the next hand: its cards drawn small with its lines)
  const end = document.getElementById("hand-end");
  const beside = end && end.dataset.hand && end.dataset.hand !== hand ? end : null;
  if (beside) {
    for (const img of beside.querySelectorAll("img[data-card]")) {
      const key = beside.dataset.hand + "|" + img.dataset.card;
      if (!(key in window.__seen)) {
        window.__seen[key] = null;
        requestAnimationFrame(() => { window.__seen[key] = epoch(); });
      }
    }
  }
  const drawn = (tap) =>
    (tap.hand === hand && felt.querySelector(`.played img[data-card="${tap.card}"]`)) ||
    (beside && tap.hand === beside.dataset.hand &&
     beside.querySelector(`img[data-card="${tap.card}"]`));
  for (const tap of [...window.__pending]) {
    if (!drawn(tap)) continue;
    window.__pending = window.__pending.filter((t) => t !== tap);
    requestAnimationFrame(() => {
      const now = performance.now();
      const answer = window.__answers.find((t) => t >= tap.at);
      const sent = window.__sent.find((t) => t >= tap.at);
      window.__taps.push({ ms: now - tap.at, after: answer === undefined ? null : now - answer,
        sent: sent === undefined ? null : sent - tap.at,
        key: tap.hand + "|" + tap.card, epoch: tap.epoch });
    });
  }
}).observe(document, { childList: true, subtree: true });
"""


async def login(page: Page, base: str, name: str) -> None:
    await page.goto(base)
    await page.fill("#name", name)
    await page.click("#enter")
    await page.wait_for_selector("#new")


async def tap(page: Page) -> bool:
    """A card if one can be played, else the first answer offered; False: nothing to do now."""
    for selector in ("#hand button.card:not([disabled])", "#calls button"):
        buttons = page.locator(selector)
        if await buttons.count():
            try:
                await buttons.first.click(timeout=2000)
            except PlaywrightError:
                return False
            return True
    return False


async def against_the_computer(
    browser: Browser, base: str, mode: str
) -> tuple[list[float], list[float]]:
    context = await browser.new_context(viewport=PHONE, locale="es-AR")
    await context.add_init_script(TIMING)
    page = await context.new_page()
    await login(page, base, "Ana")
    await page.select_option("#mode", mode)
    await page.select_option("#target", "15")
    await page.select_option("#level", "facil")
    await page.click("#play")
    await page.wait_for_selector("#hand img")
    for _ in range(4000):
        if await page.locator("#over").count():
            break
        if not await tap(page):
            await page.wait_for_timeout(20)
    try:
        await page.wait_for_function("() => window.__pending.length === 0", timeout=15_000)
    except PlaywrightError:
        print("taps whose card was never drawn:", await page.evaluate("window.__pending.length"))
    taps = await page.evaluate("window.__taps")
    for t in taps:
        if t["ms"] > 300:  # (what made a tap slow: when its move was sent, when answered)
            print(f"  slow tap {t['key']}: {t['ms']:.0f} ms, sent after {t['sent']} ms")
    await context.close()
    return [t["ms"] for t in taps], [t["after"] for t in taps if t["after"] is not None]


async def two_windows(browser: Browser, base: str, taps: int) -> list[float]:
    """A 1v1 between two windows: each card tapped in one, timed to the other's frame."""
    contexts = [await browser.new_context(viewport=PHONE, locale="es-AR") for _ in range(2)]
    pages = []
    for context in contexts:
        await context.add_init_script(TIMING)
        pages.append(await context.new_page())
    ana, beto = pages
    await login(ana, base, "Ana")
    await ana.select_option("#friend", "1")
    await ana.select_option("#target", "30")
    await ana.click("#play")
    await ana.wait_for_selector("#lobby")
    await login(beto, base, "Beto")
    await beto.locator("#open button").first.click()
    await ana.wait_for_selector("#hand img")
    await beto.wait_for_selector("#hand img")
    done = 0
    for _ in range(4000):
        if done >= taps or await ana.locator("#over").count():
            break
        moved = False
        for page in pages:
            if await page.locator("#hand button.card:not([disabled])").count() and await tap(page):
                done += 1
                moved = True
                break
        if not moved:
            for page in pages:
                if await page.locator("#calls button").count() and await tap(page):
                    moved = True
                    break
        if not moved:
            await ana.wait_for_timeout(20)
    await asyncio.sleep(1)  # (the last card reaching the other window)
    times: list[float] = []
    for me, other in ((ana, beto), (beto, ana)):
        mine = await me.evaluate("window.__taps")
        seen = await other.evaluate("window.__seen")
        times += [seen[t["key"]] - t["epoch"] for t in mine if seen.get(t["key"])]
    for context in contexts:
        await context.close()
    return times


def report(title: str, times: list[float]) -> None:
    if not times:
        print(f"{title}: no taps")
        return
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    slow = sum(t > 250 for t in times)
    second = sum(t > 1000 for t in times)
    print(
        f"{title}: {len(times)} taps · p50 {statistics.median(times):.0f} ms · p95 {p95:.0f} ms"
        f" · max {max(times):.0f} ms · over 250 ms {slow} · over 1 s {second}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=2, help="matches to 15 in each of 1v1, 2v2")
    parser.add_argument("--two-windows", type=int, default=40, help="taps between two windows")
    parser.add_argument("--bot-delay", type=float, default=0.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            mode="local", database=Path(tmp) / "taps.db", web_port=0,
            bot_delay=args.bot_delay, ai_workers=0, seed=11,
        )  # fmt: skip
        stop = asyncio.Event()
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        server = asyncio.create_task(run_local(settings, stop, ready=port.set_result))
        base = f"http://127.0.0.1:{await asyncio.wait_for(port, 30)}"
        try:
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                alone: list[float] = []
                after: list[float] = []
                for mode in ("1v1", "2v2"):
                    for _ in range(args.matches):
                        times, drawn = await against_the_computer(browser, base, mode)
                        alone += times
                        after += drawn
                report("tap → card on the felt (local table)", alone)
                report("the server's answer → that card drawn", after)
                if args.two_windows:
                    between = await two_windows(browser, base, args.two_windows)
                    report("tap → card on the other window's felt", between)
                await browser.close()
        finally:
            stop.set()
            await asyncio.wait_for(server, 30)


if __name__ == "__main__":
    asyncio.run(main())
