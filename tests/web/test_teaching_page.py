"""The web table teaches too (Chromium, phone size, light and dark): 💡 answers under the hand
with difícil's move and its chance; a chant the player's side owes shows 🤖 to hand it to the
computer partner, which then answers; and the page's edge refuses what does not fit."""

from __future__ import annotations

import aiohttp
from playwright.async_api import Browser, expect
from playwright.async_api import Error as PlaywrightError

from tests.web.conftest import ARTIFACTS
from tests.web.test_table_page import CHECK, new_table


async def test_a_hint_and_a_computer_partner_on_the_web_table(
    browser: Browser, local_url: str
) -> None:
    for scheme in ("light", "dark"):
        context = await browser.new_context(
            viewport={"width": 360, "height": 640}, color_scheme=scheme, locale="es-AR"
        )
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        await new_table(page, local_url, mode="2v2", target="30")
        # 💡 once it is Ana's move: the answer stays under her hand, in view
        await expect(page.locator("#ask-hint")).to_be_visible(timeout=60_000)
        await page.locator("#ask-hint").click()
        advice = page.locator("#advice")
        await expect(advice).to_be_visible()
        assert (await advice.text_content() or "").startswith("💡 ")
        assert await page.evaluate(CHECK) == []
        await page.screenshot(path=ARTIFACTS / f"web-hint-{scheme}.png")
        # Ana plays her cards until a chant waits on her side: 🤖 is offered with the answers
        for _ in range(3000):
            if await page.locator("#hand-off").count():
                break
            if await page.locator("#over").count():
                raise AssertionError("no chant waited on Ana's side in a whole match")
            cards = page.locator("#hand button.card:not([disabled])")
            try:
                await cards.first.click(timeout=500)
            except PlaywrightError:
                await page.wait_for_timeout(40)
        hand_off = page.locator("#hand-off")
        assert (await hand_off.text_content() or "").startswith("Que decida 🤖")
        assert await page.evaluate(CHECK) == []  # the answers and 🤖 all in view
        await page.screenshot(path=ARTIFACTS / f"web-hand-off-{scheme}.png")
        pending = await page.locator("#pending").text_content()
        await hand_off.click()
        # the partner answers for the side: the chant that waited is answered
        await page.wait_for_function(
            "t => (document.getElementById('pending') || {}).textContent !== t", arg=pending
        )
        assert errors == []
        await context.close()


async def test_the_hint_routes_refuse_what_does_not_fit(local_url: str) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{local_url}/api/local/login", json={"name": "Ana"}) as r:
            headers = {"X-Local-Session": (await r.json())["session"]}
        body = {"mode": "1v1", "level": "facil", "target": 15}
        async with session.post(f"{local_url}/api/local/new", json=body, headers=headers) as r:
            table = (await r.json())["table"]
        async with session.get(f"{local_url}/api/table/{table}", headers=headers) as r:
            view = await r.json()
        assert view["hint"] is True  # a table with computer players: 💡 on
        url = f"{local_url}/api/table/{table}"
        for path, payload in (
            ("hint", {"step": "x"}), ("hint", {}), ("hint", [1]), ("handoff", {"step": -1}),
        ):  # fmt: skip
            async with session.post(f"{url}/{path}", json=payload, headers=headers) as r:
                assert r.status == 400, (path, payload)
        async with session.post(f"{url}/hint", json={"step": 10_000}, headers=headers) as r:
            assert r.status == 409 and "pasó" in (await r.json())["error"]
        async with session.post(
            f"{url}/handoff", json={"step": view["step"]}, headers=headers
        ) as r:
            assert r.status == 409  # 1v1: no partner to hand it to
        async with session.post(f"{url}/hint", json={"step": view["step"]}) as r:
            assert r.status in (401, 403)  # nobody's session
        if view["waiting_on"] == [view["seat"]]:
            async with session.post(
                f"{url}/hint", json={"step": view["step"]}, headers=headers
            ) as r:
                assert r.status == 200 and (await r.json())["text"].startswith("💡 ")
