"""The felt is the screen: the web table walked in 1v1, 2v2 and 3v3, a few dozen steps each,
every step looked at on phones (320×568, 360×640, 390×844) and on a desktop (1280×800): the
walk's window takes each size in turn before it moves on (and taps at each size in turn). At
every step, at every size, no seat and no card on the felt is under the controls or cut by the
felt, the fósforos count the score, and every control stays in view; a chant's bubble appears
at the seat that said it; a reload mid-hand, with a chant waiting and right after a hand's end
draws the hand in play first, never a hand that is over. Screenshots at each size, light and
dark in turn (each size and each mode sees both)."""

from __future__ import annotations

import re
from typing import Literal

import pytest
from playwright.async_api import Browser, Page, expect
from playwright.async_api import Error as PlaywrightError

from tests.web.conftest import ARTIFACTS
from tests.web.test_local_table import enter, play_something
from tests.web.test_table_page import CHECK, kinds

SIZES = {
    "320": {"width": 320, "height": 568},
    "360": {"width": 360, "height": 640},
    "390": {"width": 390, "height": 844},
    "1280": {"width": 1280, "height": 800},
}
MODES = ("1v1", "2v2", "3v3")


def scheme(mode: str, size: str) -> Literal["light", "dark"]:
    """Light and dark in turn: each size and each mode sees both."""
    return "dark" if (MODES.index(mode) + list(SIZES).index(size)) % 2 else "light"


STEPS = 36  # taps a walk makes (a match to 15 is about 60); enough for several hands' ends

# What must hold on the screen at any step: returns what does not. (The window was just
# resized: the page's own answer to a resize, which the browser would run at its next frame,
# is run first.)
LAYOUT = """
() => {
  window.dispatchEvent(new Event("resize"));
  const wrong = [];
  const felt = document.getElementById("felt");
  if (!felt) return wrong;
  const vh = window.innerHeight, vw = window.innerWidth;
  const box = felt.getBoundingClientRect();
  const dock = document.getElementById("dock");
  const top = dock ? dock.getBoundingClientRect().top : vh;
  const name = (n) =>
    (n.dataset.seat ?? "") + ":" + (n.querySelector("img")?.dataset.card ?? "seat");
  for (const node of felt.querySelectorAll(".seat, .played figure")) {
    const r = node.getBoundingClientRect();
    if (r.bottom > top + 0.5 && r.top < top + (dock ? dock.offsetHeight : 0)) {
      wrong.push(`under the controls: ${name(node)} ${Math.round(r.bottom)}>${Math.round(top)}`);
    }
    if (r.top < box.top - 1 || r.bottom > box.bottom + 1 ||
        r.left < box.left - 1 || r.right > box.right + 1) {
      wrong.push("cut by the felt: " + name(node));
    }
    if (r.bottom > vh + 1 || r.right > vw + 1) wrong.push("off the screen: " + name(node));
  }
  if (box.bottom > top + 0.5) wrong.push("the felt under the controls");
  for (const row of document.querySelectorAll("#score .row")) {
    const drawn = row.querySelectorAll(".fosforos .match").length;
    const points = +row.querySelector(".pts").textContent;
    if (drawn !== points) wrong.push(`fósforos ${drawn} for ${points} points`);
  }
  for (const bubble of felt.querySelectorAll(".bubble")) {
    const seat = bubble.closest(".seat");
    if (!seat || seat.dataset.seat !== bubble.dataset.seat) wrong.push("a bubble off its seat");
  }
  return wrong;
}
"""

# The first table a page draws after a reload, and every hand's end it shows after it.
FIRST_DRAWN = """
window.__first = null;
window.__endsAfter = [];
new MutationObserver(() => {
  const felt = document.getElementById("felt");
  if (!felt) return;
  const worth = (document.getElementById("worth") || {}).textContent || "";
  const playing = (/Mano (\\d+)/.exec(worth) || [])[1];
  const banner = document.getElementById("hand-end");
  if (!window.__first) {
    window.__first = { hand: felt.dataset.hand, playing,
      holding: felt.classList.contains("holding"), banner: banner ? banner.dataset.hand : null,
      bubbles: felt.querySelectorAll(".bubble").length,
      pending: !!document.getElementById("pending") };
  }
  if (banner && !window.__endsAfter.includes(banner.dataset.hand)) {
    window.__endsAfter.push(banner.dataset.hand);
  }
}).observe(document, { childList: true, subtree: true });
"""


MOVED_ON = "(the felt shows another hand)"
ANSWER = re.compile(r"Quiero|No quiero|¡Retruco!|Envido|Real envido|Falta envido|¡Flor!")


async def said_in(page: Page, hand: str, bubble: str) -> str:
    """The words of the first bubble at `bubble` on the felt of hand `hand`, once one is
    there, or MOVED_ON once the felt shows another hand (only a hand's own words are over it)."""
    found = await page.wait_for_function(
        """([hand, bubble]) => {
          const felt = document.getElementById("felt");
          if (!felt) return false;
          if (felt.dataset.hand !== hand) return "moved on";
          const said = felt.querySelector(bubble);
          return said ? said.textContent : false;
        }""",
        arg=[hand, bubble],
    )
    said: str = await found.json_value()
    return MOVED_ON if said == "moved on" else said


async def my_seat(page: Page) -> str:
    return await page.locator("#felt .seat", has_text="(vos)").get_attribute("data-seat") or ""


async def reload_and_check(page: Page, phase: str) -> None:
    """Reload: the first drawing is the hand in play (the same as before the reload), with no
    hand's end held as if it had just happened."""
    worth = await page.locator("#worth").text_content() or ""
    before = re.findall(r"Mano (\d+)", worth)[0]
    await page.reload()
    await page.wait_for_function("() => window.__first !== null")
    first = await page.evaluate("window.__first")
    # (the computer players may move on meanwhile: the hand drawn first is the one in play
    # then, never an earlier one)
    assert int(first["playing"]) >= int(before), (phase, first, before)
    assert first["hand"] == first["playing"] and not first["holding"], (phase, first)
    assert first["banner"] is None, (phase, first)
    assert first["bubbles"] <= (1 if first["pending"] else 0), (phase, first)
    await expect(page.locator("#hand img").first).to_be_visible()
    assert not [h for h in await page.evaluate("window.__endsAfter") if int(h) < int(before)]


async def shoot(page: Page, mode: str, moment: str) -> None:
    """The moment at every size, each in its scheme; the window left at the size it had."""
    was = page.viewport_size
    for size, box in SIZES.items():
        await page.set_viewport_size(box)
        await page.emulate_media(color_scheme=scheme(mode, size))
        await page.evaluate('() => window.dispatchEvent(new Event("resize"))')
        await page.screenshot(
            path=ARTIFACTS / f"phone-{mode}-{size}-{scheme(mode, size)}-{moment}.png"
        )
    if was is not None:
        await page.set_viewport_size(was)


async def look(page: Page, mode: str, step: int, shot: bool) -> list[str]:
    """What is wrong on the screen now, at each size (and, the first time something is, the
    screen at that size). The window is left at this step's size (each size in turn)."""
    wrong: list[str] = []
    for size, box in SIZES.items():
        await page.set_viewport_size(box)
        found = [*await page.evaluate(LAYOUT), *await page.evaluate(CHECK)]
        if found and shot and not wrong:  # (what the player saw then)
            await page.screenshot(path=ARTIFACTS / f"phone-{mode}-{size}-wrong.png")
        wrong += [f"step {step} at {size}: {x}" for x in found]
    await page.set_viewport_size(list(SIZES.values())[step % len(SIZES)])
    return wrong


@pytest.mark.parametrize("mode", MODES)
async def test_the_felt_is_never_under_the_controls(
    browser: Browser, local_url: str, mode: str
) -> None:
    context = await browser.new_context(
        viewport=SIZES["360"], locale="es-AR", reduced_motion="reduce"
    )
    await context.add_init_script(FIRST_DRAWN)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await enter(page, local_url, "Ana")
    for field, value in {"mode": mode, "target": "15", "level": "facil"}.items():
        await page.select_option(f"#{field}", value)
    await page.click("#play")
    await expect(page.locator("#hand img")).to_have_count(3)
    ARTIFACTS.mkdir(exist_ok=True)
    await shoot(page, mode, "start")
    me = await my_seat(page)
    wrong: list[str] = []
    reloads = {"mid-hand": False, "chant waiting": False, "hand ended": False}
    chanted = bubble_seen = ended_shot = felt_shot = False
    seats = int(mode[0]) * 2
    for step in range(STEPS * 6):  # (past STEPS only until every phase had its reload)
        if await page.locator("#over").count() or (step >= STEPS and all(reloads.values())):
            break
        wrong += await look(page, mode, step, shot=not wrong)
        figures = await page.locator("#felt .played figure").count()
        if not felt_shot and figures >= seats and not await page.locator("#felt.holding").count():
            felt_shot = True  # (a whole round on the felt)
            await shoot(page, mode, "felt")
        # The reloads, each phase once.
        if not reloads["chant waiting"] and await page.locator("#pending").count():
            reloads["chant waiting"] = True
            await reload_and_check(page, "chant waiting")
            continue
        if not reloads["hand ended"] and await page.locator("#felt.holding").count():
            if not ended_shot:
                ended_shot = True
                await shoot(page, mode, "end")
            reloads["hand ended"] = True  # (whoever is to move: a hold lasts only a moment)
            await reload_and_check(page, "hand ended")
            continue
        if (
            not reloads["mid-hand"]
            and figures
            and not await page.locator("#felt.holding").count()
            and await page.locator("#hand button.card:not([disabled])").count()
        ):
            reloads["mid-hand"] = True
            await reload_and_check(page, "mid-hand")
            continue
        # Ana chants truco once: her bubble at her seat, then the answer's at its seat, while
        # the felt shows that hand (an answer that ends it, the next hand begun at once: the
        # felt shows the next hand, and the end's banner says how the truco went).
        truco = page.locator("#calls button", has_text="¡Truco!")
        if not chanted and await truco.count():
            hand = await page.locator("#felt").get_attribute("data-hand") or ""
            try:
                await truco.first.click(timeout=1000)
            except PlaywrightError:
                continue
            chanted = True
            mine = f'.seat[data-seat="{me}"] .bubble'
            said = await said_in(page, hand, mine)
            assert said in ("¡Truco!", MOVED_ON), said
            if said != MOVED_ON:
                await shoot(page, mode, "chant")
                theirs = f'.seat:not([data-seat="{me}"]) .bubble'
                said = await said_in(page, hand, theirs)
                assert ANSWER.fullmatch(said) or said == MOVED_ON, said
            if said == MOVED_ON:
                await expect(page.locator("#lines")).to_contain_text(f"Mano {hand}")
            bubble_seen = True
            continue
        if not await play_something(page):
            await page.wait_for_timeout(30)
    await shoot(page, mode, "last")
    await context.close()
    assert wrong == [], kinds(wrong)
    assert errors == []
    assert bubble_seen or not chanted
    # (a chant waiting on Ana comes in most walks, not all: the computer players chant when
    # their cards say so)
    assert reloads["mid-hand"] and reloads["hand ended"], reloads


async def test_the_fosforos_count_every_point(browser: Browser, local_url: str) -> None:
    """Every score of a match to 30 and to 15, drawn: as many matches as points, squares of
    five, las buenas on a band of their own after 15 (only in a match to 30)."""
    context = await browser.new_context(viewport=SIZES["360"], locale="es-AR")
    page = await context.new_page()
    await enter(page, local_url, "Ana")
    drawn = await page.evaluate(
        """() => [30, 15].flatMap((target) => Array.from({ length: target + 1 }, (_, p) => {
             const f = fosforos(p, target);
             return { target, p, matches: f.querySelectorAll(".match").length,
                      buenas: f.querySelectorAll(".buenas").length,
                      label: f.getAttribute("aria-label") };
           }))"""
    )
    for d in drawn:
        assert d["matches"] == d["p"], d
        assert d["buenas"] == (1 if d["target"] == 30 and d["p"] > 15 else 0), d
        assert d["label"].startswith(f"{d['p']} puntos"), d
    await context.close()
