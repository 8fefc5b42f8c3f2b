"""The Mini App in a real browser: a page launched as Telegram launches it (signed launch data
in the URL fragment) follows a match played by taps in the fake Telegram, and acts from the
page, which the group's board then shows."""

from __future__ import annotations

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
