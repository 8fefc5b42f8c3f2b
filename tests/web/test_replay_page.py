"""A finished match watched again in Chromium, at 360×640, light and dark: every chant and answer
of the log at its frame (a bubble at the seat that said it, the bet's line in the record), every
hand's cards face up at that hand's end (the same as the log's deals), each point's reason on the
frame whose score it changes, a hand at a time with ⏮ ⏭, the seal checked, axe green. A match
still in play has no replay, and its table shows no card it hides."""

from __future__ import annotations

import re
from typing import Any

import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, Page, expect

from tests.web.conftest import ARTIFACTS
from tests.web.test_local_table import play_something
from tests.web.test_table_page import new_table, play_to_the_end

PHONE = {"width": 360, "height": 640}


async def settled(page: Page) -> None:
    """Once the frame's animations (a bubble's pop, a card's slide) have played."""
    await page.wait_for_function(
        "() => document.getAnimations().every((a) => a.playState === 'finished')"
    )


async def serious(axe: Axe, page: Page, where: str) -> list[str]:
    """axe-core's serious or critical violations, once the frame has settled."""
    await settled(page)
    result = await axe.run(page)
    assert result.response["passes"], where  # (axe ran its rules on the page)
    return [
        f"{where}: {v['id']} {[n['target'] for n in v['nodes']][:3]}"
        for v in result.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def seats_held(frame: dict[str, Any]) -> int:
    """The seats whose cards the hand on the felt shows (a duel: its two)."""
    return sum(held is not None for held in frame["ended"][-1]["held"])


async def check_frame(page: Page, frame: dict[str, Any], deals: list[str]) -> None:
    """What frame `frame` must show: its words at their seats, its bets, its points' reasons
    and, a hand over, every card its players held, face up."""
    for word in frame["spoken"]:
        bubble = page.locator(f"#felt .bubble[data-seat='{word['seat']}']")
        await expect(bubble).to_contain_text(word["text"])
    for line in frame["bets"]:
        await expect(page.locator("#lines")).to_contain_text(line)
    if frame["scored"] and frame["hand_over"]:  # (the hand's end says why, in its banner)
        for line in frame["scored"]:
            reason = re.search(r"\+\d+ \((.+)\)$", line)
            assert reason is not None, line
            await expect(page.locator("#hand-end")).to_contain_text(reason.group(1))
    elif frame["scored"]:
        for line in frame["scored"]:
            await expect(page.locator("#scored")).to_contain_text(line)
    else:
        await expect(page.locator("#scored")).to_have_count(0)
    if frame["hand_over"]:
        ended = frame["ended"][-1]
        await expect(page.locator("#hand-end")).to_contain_text(ended["lines"][0])
        dealt = deals[ended["number"] - 1].split("|")  # (a deal a hand; its duels share it)
        for seat, cards in enumerate(dealt):
            held = page.locator(f"#felt .held[data-seat='{seat}']")
            if ended["held"][seat] is None:  # (a pica-pica duel: the seats out of it)
                await expect(held).to_have_count(0)
                continue
            await expect(held).to_have_attribute("data-cards", cards)
            on_felt = page.locator(f"#felt .played figure[data-seat='{seat}'] img")
            faces = [await i.get_attribute("data-card") for i in await on_felt.all()]
            faces += [await i.get_attribute("data-card") for i in await held.locator("img").all()]
            assert sorted(faces) == sorted(cards.split()), (frame["action"], faces, cards)
    elif frame["ended"] and not any(frame["rounds"]):  # (a deal: the hand before still shown)
        await expect(page.locator("#felt .held")).to_have_count(seats_held(frame))
    else:  # (a hand in play: its cards face down)
        await expect(page.locator("#felt .held")).to_have_count(0)


@pytest.mark.parametrize("mode", ["1v1", "2v2", "3v3"])
async def test_a_finished_match_told_whole(browser: Browser, local_url: str, mode: str) -> None:
    context = await browser.new_context(
        viewport=PHONE, color_scheme="light", locale="es-AR",
        bypass_csp=True,  # (axe's script is injected by the test, not served by the page)
    )  # fmt: skip
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await new_table(page, local_url, mode=mode)
    await play_to_the_end(page, checks=False)
    table = re.search(r"table=(\d+)", page.url)
    assert table is not None
    answer = await page.request.get(f"{local_url}/api/table/{table.group(1)}/replay")
    assert answer.ok
    data = await answer.json()
    frames, deals = data["frames"], data["deals"]
    assert any(f["spoken"] for f in frames) and any(f["scored"] for f in frames)
    await page.goto(f"{local_url}/?replay={table.group(1)}")
    count = page.locator("#replay-count")
    await expect(count).to_have_text(f"1 de {len(frames)}")
    await expect(page.locator("#seal-check")).to_contain_text("Verificado", timeout=20_000)
    ARTIFACTS.mkdir(exist_ok=True)
    axe = Axe()
    found: list[str] = []
    shots = {"chant": False, "end": False, "scored": False}
    # Light: every action, one step at a time.
    for index, frame in enumerate(frames):
        if index:
            await page.click("#replay-step")
        await expect(count).to_have_text(f"{index + 1} de {len(frames)}")
        await check_frame(page, frame, deals)
        moments = {
            "chant": bool(frame["spoken"]) and not frame["hand_over"],
            "end": frame["hand_over"] and not frame["over"],
            "scored": bool(frame["scored"]) and not frame["hand_over"],
        }
        for shot, due in moments.items():
            if due and not shots[shot]:
                shots[shot] = True
                await settled(page)
                await page.screenshot(path=ARTIFACTS / f"web-replay-{mode}-{shot}-light-360.png")
                found += await serious(axe, page, f"light {shot}")
    await expect(page.locator("#final")).to_be_visible()
    await page.screenshot(path=ARTIFACTS / f"web-replay-{mode}-over-light-360.png")
    # Dark: a hand at a time, back to the start and on to the end, each hand's end drawn.
    await page.emulate_media(color_scheme="dark")
    await page.locator("#replay-at").fill("0")  # (the slider, to the first frame)
    await expect(count).to_have_text(f"1 de {len(frames)}")
    hands = 0
    while await count.text_content() != f"{len(frames)} de {len(frames)}":
        await page.click("#replay-next-hand")
        at = int((await count.text_content() or "").split()[0]) - 1
        frame = frames[at]
        await check_frame(page, frame, deals)
        if frames[at - 1]["hand_over"] and frame["hand_number"] != frames[at - 1]["hand_number"]:
            hands += 1  # (the next hand's deal: the hand before still on the felt, face up)
            ended = frames[at - 1]["ended"][-1]
            await expect(page.locator("#hand-end")).to_contain_text(ended["lines"][0])
            await expect(page.locator("#felt .held")).to_have_count(seats_held(frame))
            if hands == 2:
                await settled(page)
                await page.screenshot(path=ARTIFACTS / f"web-replay-{mode}-hand-dark-360.png")
                found += await serious(axe, page, "dark hand")
    assert hands == frames[-1]["hand_number"] - 1
    await page.click("#replay-prev-hand")
    await expect(count).not_to_have_text(f"{len(frames)} de {len(frames)}")
    await page.screenshot(path=ARTIFACTS / f"web-replay-{mode}-prev-dark-360.png")
    await context.close()
    assert all(shots.values()), shots
    assert found == []
    assert errors == []


async def test_a_match_in_play_hides_its_cards(browser: Browser, local_url: str) -> None:
    for scheme in ("light", "dark"):
        context = await browser.new_context(viewport=PHONE, color_scheme=scheme, locale="es-AR")
        page = await context.new_page()
        await new_table(page, local_url, mode="1v1")
        for _ in range(4):
            await play_something(page)
        table = re.search(r"table=(\d+)", page.url)
        assert table is not None
        answer = await page.request.get(f"{local_url}/api/table/{table.group(1)}/replay")
        assert answer.status == 409  # no replay of a match in play: not a card of it
        live = page.url
        await page.goto(f"{local_url}/?replay={table.group(1)}")
        await expect(page.locator("[role=alert]")).to_contain_text("todavía no terminó")
        await expect(page.locator(".held, #felt img:not([src*='back'])")).to_have_count(0)
        await page.screenshot(path=ARTIFACTS / f"web-replay-refused-{scheme}-360.png")
        await page.goto(live)  # the table itself: the rival's cards only as backs
        await expect(page.locator("#hand img")).not_to_have_count(0)
        rival = page.locator("#felt .seat[data-seat='1']")
        await expect(page.locator("#felt .held")).to_have_count(0)
        hidden = await rival.locator(".more img").all()
        sources = [await i.get_attribute("src") or "" for i in hidden]
        assert sources and all("back" in src for src in sources), sources
        await context.close()
