"""The local try-out in a real browser: a whole match through the page's own controls, two
windows playing each other live, and screenshots at phone size in light and dark."""

from __future__ import annotations

import re

from playwright.async_api import Browser, Page, expect
from playwright.async_api import Error as PlaywrightError

from tests.web.conftest import ARTIFACTS

PHONE = {"width": 360, "height": 640}


async def enter(page: Page, url: str, name: str) -> None:
    await page.goto(url)
    await page.fill("#name", name)
    await page.click("#enter")
    await expect(page.locator("#new")).to_be_visible()


PLAYABLE = "#hand button.card:not([disabled])"

# The señas picker's buttons that are not whole on the screen: cut by their own box (a name or
# a meaning with an ellipsis), out of the window, or less than a finger's room (44×44 px).
PICKER_CUT = """(picker) => [...picker.querySelectorAll("button")].flatMap((b) => {
  const r = b.getBoundingClientRect();
  const cut = [...b.querySelectorAll("*"), b].some((e) => e.scrollWidth > e.clientWidth + 1);
  const out = r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight;
  return cut || out || r.width < 44 || r.height < 44
    ? [`${b.textContent} ${Math.round(r.width)}×${Math.round(r.height)}`] : [];
})"""


async def play_something(page: Page) -> bool:
    """Tap a card the page offers, else its first answer; False when it offers nothing now.
    (The page may redraw under the tap: a tap that misses is simply tried again.)"""
    for selector in (PLAYABLE, "#calls button"):
        buttons = page.locator(selector)
        if await buttons.count():
            try:
                await buttons.first.click(timeout=2000)
            except PlaywrightError:
                return False
            return True
    return False


async def test_a_whole_match_against_the_computer_through_the_page(
    browser: Browser, local_url: str
) -> None:
    errors: list[str] = []
    for scheme in ("light", "dark"):
        context = await browser.new_context(viewport=PHONE, color_scheme=scheme, locale="es-AR")
        page = await context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        await enter(page, local_url, "Ana")
        await page.select_option("#target", "15")
        await page.select_option("#level", "facil")
        await page.click("#play")
        await expect(page.locator("#hand img")).to_have_count(3)
        await expect(page.locator("#score")).to_contain_text("Ana")
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=ARTIFACTS / f"web-table-{scheme}.png")
        if scheme == "dark":
            await context.close()
            break
        # Every card on the page says what it is.
        names = await page.locator("#hand button.card").evaluate_all(
            "els => els.map(e => e.getAttribute('aria-label'))"
        )
        assert all(
            re.fullmatch(r"((1[0-2]|[1-7]) de (oro|copa|espada|basto)|ancho de (espada|basto))", n)
            for n in names
        )
        for _ in range(2000):  # about 60 moves make a match to 15; the deadline is generous
            if await page.locator("#over").count():
                break
            if not await play_something(page):
                await page.wait_for_timeout(50)
        await expect(page.locator("#over")).to_contain_text("Partida terminada")
        await page.screenshot(path=ARTIFACTS / "web-table-over.png")
        # "Otra partida" at once: the menu stays (issue 72: the finished table came back over
        # it, 4 of 4 tries), the finished table no longer followed (its stream closed, its
        # redraws cancelled).
        found = re.search(r"table=(\d+)", page.url)
        assert found is not None
        table = found.group(1)
        async with page.expect_event(
            "requestfailed", lambda r, table=table: f"/api/table/{table}/events" in r.url
        ):
            await page.get_by_role("button", name="Otra partida").click()
        await expect(page.locator("#new")).to_be_visible()
        await page.wait_for_function("() => redraw.timer === null")
        await expect(page.locator("#new")).to_be_visible()
        await expect(page.locator("#felt")).to_have_count(0)
        # The menu lists the matches played, each to watch again, and says when no table
        # waits for players (issue 72: no list; "Mesas con lugar" an empty box).
        await expect(page.locator("#open")).to_contain_text("Ninguna")
        past = page.locator(f'#played [data-table="{table}"]')
        await expect(past).to_contain_text("Ana")
        await page.screenshot(path=ARTIFACTS / "web-menu-light.png")
        await past.get_by_role("button").click()
        await expect(page.locator("#replay-count")).to_contain_text("1 de ")
        await context.close()
    assert errors == []


async def test_two_windows_play_each_other_live(browser: Browser, local_url: str) -> None:
    ana_ctx = await browser.new_context(viewport=PHONE, locale="es-AR")
    beto_ctx = await browser.new_context(viewport=PHONE, locale="es-AR")
    ana, beto = await ana_ctx.new_page(), await beto_ctx.new_page()
    await enter(ana, local_url, "Ana")
    await ana.select_option("#friend", "1")  # wait for a friend: the rival in 1v1
    await ana.click("#play")
    await expect(ana.locator("#lobby")).to_be_visible()
    await enter(beto, local_url, "Beto")
    await beto.locator("#open button").first.click()
    # Both pages see the match start, pushed to them.
    await expect(ana.locator("#hand img")).to_have_count(3)
    await expect(beto.locator("#hand img")).to_have_count(3)
    # The mano plays a card: the other page shows it within moments, without a reload.
    mano, other = (
        (ana, beto)
        if await ana.locator("#hand button.card:not([disabled])").count()
        else (beto, ana)
    )
    card = await mano.locator("#hand button.card:not([disabled]) img").first.get_attribute(
        "data-card"
    )
    await mano.locator("#hand button.card:not([disabled])").first.click()
    await expect(other.locator(f'#felt .played img[data-card="{card}"]')).to_be_visible()
    await expect(mano.locator("#hand img")).to_have_count(2)
    # Each page shows its own three cards only: the other's stay face down.
    assert await other.locator("#hand img").count() == 3
    assert await other.locator(f'#hand img[data-card="{card}"]').count() == 0
    await ana_ctx.close()
    await beto_ctx.close()


async def test_a_2v2_with_a_friend_for_partner_and_senas_between_the_pages(
    browser: Browser, local_url: str
) -> None:
    """2v2: Ana waits for a friend as her partner (two bots against them); Beto sits in her
    team from another window. A seña Ana makes reaches Beto's page, and only his."""
    ana_ctx = await browser.new_context(viewport=PHONE, locale="es-AR")
    beto_ctx = await browser.new_context(viewport=PHONE, locale="es-AR")
    ana, beto = await ana_ctx.new_page(), await beto_ctx.new_page()
    await enter(ana, local_url, "Ana")
    await ana.select_option("#mode", "2v2")
    await ana.select_option("#friend", "1")
    await ana.click("#play")
    await expect(ana.locator("#lobby")).to_be_visible()
    await enter(beto, local_url, "Beto")
    await beto.get_by_role("button", name="Equipo 1").click()
    await expect(ana.locator("#hand img")).to_have_count(3)
    await expect(beto.locator("#hand img")).to_have_count(3)
    # The señas picker at 360 and 390 px: every seña whole, with what it means, each a
    # finger's room (issue 72: cut to "Levantar", the meaning never shown when choosing).
    for width in (390, 360):
        await ana.set_viewport_size({"width": width, "height": 640 if width == 360 else 844})
        await ana.click("#sign")
        picker = ana.locator("#sign-picker")
        await expect(picker).to_be_visible()
        await expect(picker.locator("button[data-sign]")).to_have_count(8)
        cut = await picker.evaluate(PICKER_CUT)
        assert cut == [], (width, cut)
        await ana.screenshot(path=ARTIFACTS / f"web-signs-{width}.png")
        if width == 390:
            await ana.keyboard.press("Escape")  # (closed without a seña)
            await expect(picker).to_have_count(0)
    await ana.locator('#sign-picker button[data-sign="ev"]').click()
    await expect(beto.locator("#signs-seen")).to_contain_text("Inclinar la cabeza (buen envido)")
    await expect(ana.locator("#signs-seen")).to_have_count(0)  # her own seña is not "seen"
    # What she made is said to her, with its meaning; it is not offered again this hand.
    await expect(ana.locator("#signs-made")).to_contain_text("Inclinar la cabeza (buen envido)")
    await ana.click("#sign")
    await expect(ana.locator('#sign-picker button[data-sign="ev"]')).to_be_disabled()
    await ana.keyboard.press("Escape")
    # Ana's window loses its connection; Beto plays meanwhile; back online, Ana catches up.
    await ana_ctx.set_offline(True)
    for _ in range(200):
        if await play_something(beto):
            break
        await beto.wait_for_timeout(50)
    played = await beto.locator("#felt .played img").count()
    await ana_ctx.set_offline(False)
    await expect(ana.locator("#felt .played img")).to_have_count(played, timeout=15_000)
    await ana_ctx.close()
    await beto_ctx.close()
