"""The Mini App in a real browser: a page launched as Telegram launches it (signed launch data
in the URL fragment) follows a match played by taps in the fake Telegram, and acts from the
page, which the group's board then shows."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.async_api import Browser, expect

from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import action_buttons, hand_message, open_table
from tests.e2e.test_web import launch
from tests.fakebot import FakeTelegram
from tests.web.conftest import ARTIFACTS


@pytest.fixture
async def h(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[Harness]:
    async with harness_with(
        fake, tmp_path / "mini.db", webapp_url="https://x.invalid/t", web_port=0
    ) as harness:
        yield harness


async def test_a_telegram_launched_page_follows_the_taps_and_acts(
    h: Harness, browser: Browser
) -> None:
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15 sinflor")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None and h.services.web is not None
    base = f"http://127.0.0.1:{h.services.web.port}"
    theme = quote('{"bg_color":"#1c1c1d","text_color":"#ffffff","button_color":"#3e88f7"}')
    context = await browser.new_context(viewport={"width": 360, "height": 640})
    page = await context.new_page()
    url = f"{base}/?table={table.id}#tgWebAppData={quote(launch(h, juan))}"
    await page.goto(f"{url}&tgWebAppThemeParams={theme}")
    await expect(page.locator("#hand img")).to_have_count(3)
    # Ana taps a card in her private chat (she is mano): Juan's page shows it.
    mine = hand_message(h, ana)
    assert mine is not None
    card = next(b for b in action_buttons(mine) if b["callback_data"].count(":") == 4)
    code = card["callback_data"].split(":")[-1]
    await ana.tap(ana.id, mine.message_id, card["text"])
    await expect(page.locator(f'#felt .played img[data-card="{code}"]')).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=ARTIFACTS / "mini-app-telegram-dark.png")
    # Juan answers from the page: the group's board shows his card.
    button = page.locator("#hand button.card:not([disabled])").first
    played = await button.locator("img").get_attribute("data-card")
    assert played is not None
    await button.click()
    await expect(page.locator("#hand img")).to_have_count(2)
    await h.until(lambda: any(
        "1ª" in m.text and played[:-1] in m.text.split("1ª")[1].split("\n")[0]
        for m in h.fake.live(GROUP)
    ))  # fmt: skip
    await context.close()


# Telegram's client, as the page sees it on a phone: the events the page posts are kept.
TELEGRAM_CLIENT = """
window.__posted = [];
window.TelegramWebviewProxy = {
  postEvent(type, data) { window.__posted.push([type, JSON.parse(data || "{}")]); },
};
"""


async def test_in_telegram_the_clock_counts_down_and_the_page_speaks_telegrams_events(
    fake: FakeTelegram, tmp_path: Path, browser: Browser
) -> None:
    async with harness_with(
        fake, tmp_path / "clock.db", webapp_url="https://x.invalid/t", web_port=0,
        turn_seconds=120,
    ) as h:  # fmt: skip
        ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
        await open_table(h, [ana, juan], "1v1 15 sinflor")
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and h.services.web is not None
        base = f"http://127.0.0.1:{h.services.web.port}"
        context = await browser.new_context(viewport={"width": 360, "height": 640})
        await context.add_init_script(TELEGRAM_CLIENT)
        page = await context.new_page()
        await page.goto(f"{base}/?table={table.id}#tgWebAppData={quote(launch(h, ana))}")
        await expect(page.locator("#hand img")).to_have_count(3)
        # Ana is mano: her seat's clock counts down from the core's deadline.
        clock = page.locator('.seat.turn[data-seat="0"] .clock .secs')
        await expect(clock).to_have_text(re.compile(r"1[01]\d s"))
        first = int((await clock.text_content() or "0 s").split()[0])
        await expect(clock).not_to_have_text(f"{first} s", timeout=10_000)
        assert int((await clock.text_content() or "0 s").split()[0]) < first
        posted = [t for t, _ in await page.evaluate("window.__posted")]
        assert "web_app_ready" in posted and "web_app_expand" in posted
        assert ["web_app_setup_back_button", {"is_visible": True}] in await page.evaluate(
            "window.__posted"
        )
        # A tap on a card: a light haptic tap; Telegram's back button closes the table.
        await page.locator("#hand button.card:not([disabled])").first.click()
        await expect(page.locator("#hand img")).to_have_count(2)
        events = await page.evaluate("window.__posted")
        assert ["web_app_trigger_haptic_feedback", {"type": "impact", "impact_style": "light"}] in (
            events
        )
        await page.evaluate("window.Telegram.WebView.receiveEvent('back_button_pressed', {})")
        assert (await page.evaluate("window.__posted"))[-1][0] == "web_app_close"
        await context.close()
