"""📝 A person's review on the web table, in Chromium against the real local server and its
SQLite: a match played to its end through the page, then the end screen's "📝 Tu revisión"
(while the server computes it the sheet says so), the moments listed (1, 2, 3, ✅), each tap
taking the replay to that moment's step, drawn from the person's seat with their cards then,
and what each move was worth as the review's JSON has it; the keyboard closes it; axe finds
nothing serious, light and dark. Someone who did not play the match gets no 📝 (neither on the
end screen nor on the replay) and the route refuses them.

Screenshots (artifacts/ and, with TRUCO_NOTE_SHOTS, that folder): the end screen with the
button and a moment open, at 360×640 and 390×844, light and dark."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, Page, Route, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from bot.i18n import translator
from bot.model.refusals import Refused
from bot.service.changes import Refusal
from bot.service.review import AGAIN
from bot.views.common import plain, refusal_text
from bot.views.daily import choice_label
from bot.views.quiz import answer_text, answered_text, asked, question_of
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import open_table
from tests.e2e.helpers import play_to_the_end as play_in_telegram
from tests.e2e.test_web import launch
from tests.fakebot import FakeTelegram, FakeUser
from tests.web.conftest import ARTIFACTS
from tests.web.test_local_table import enter
from tests.web.test_replay_page import serious
from tests.web.test_table_page import new_table, play_to_the_end

PHONE = {"width": 360, "height": 640}
TALL = {"width": 390, "height": 844}


def shots() -> list[Path]:
    """Where a screenshot goes: artifacts/, and the note's folder when asked for."""
    folders = [ARTIFACTS]
    if os.environ.get("TRUCO_NOTE_SHOTS"):
        folders.append(Path(os.environ["TRUCO_NOTE_SHOTS"]))
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
    return folders


async def shoot(page: Page, name: str) -> None:
    for folder in shots():
        await page.screenshot(path=folder / f"review-web-{name}.png")


def said(shown: str) -> float:
    """A value as the page says it in Spanish ("−1,2", "+0,7", "0,0") as a number."""
    return float(shown.replace("−", "-").replace(",", "."))


def cards_on_felt(frame: dict[str, Any]) -> list[str]:
    """The cards of the hand in play in `frame`, round by round."""
    return sorted(p["card"] for plays in frame["rounds"] for p in plays)


async def nothing_covers(page: Page) -> list[str]:
    """The felt's cards and the hand's, each clear of the sheet and inside the screen; no text
    under 12 px (issue 72: the review's marks and costs 10.5–11.5 px)."""
    found: list[str] = await page.evaluate(
        """() => {
          const sheet = document.getElementById("review");
          const s = sheet && sheet.getBoundingClientRect();
          const out = [];
          for (const img of document.querySelectorAll("#felt img, #hand img")) {
            const r = img.getBoundingClientRect();
            if (!r.width) continue;
            if (r.bottom > window.innerHeight + 1 || r.right > window.innerWidth + 1 || r.top < 0)
              out.push("off screen: " + img.dataset.card);
            const across = s && r.right > s.left && r.left < s.right;
            if (across && r.bottom > s.top + 1 && r.top < s.bottom - 1)
              out.push("under the sheet: " + img.dataset.card);
          }
          if (s && s.bottom > window.innerHeight + 1) out.push("the sheet is cut");
          // (a round's badge, 1º ✓, is no cover for the card it marks: a fifth of it at most)
          for (const fig of document.querySelectorAll("#felt .played figure")) {
            const img = fig.querySelector("img"), tag = fig.querySelector("figcaption");
            if (!img || !tag) continue;
            const r = img.getBoundingClientRect(), c = tag.getBoundingClientRect();
            const high = Math.min(r.bottom, c.bottom) - Math.max(r.top, c.top);
            const wide = Math.min(r.right, c.right) - Math.max(r.left, c.left);
            if (high > 0 && wide > 0 && high > r.height / 5)
              out.push(`badge over ${Math.round(100 * high / r.height)}% of ${img.dataset.card}`);
          }
          for (const node of document.querySelectorAll("#app *")) {
            const text = [...node.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
            const size = parseFloat(getComputedStyle(node).fontSize);
            if (text && node.getBoundingClientRect().width && size < 11.95) {
              out.push(`text of ${size} px: ${node.textContent.trim().slice(0, 20)}`);
            }
          }
          if (document.documentElement.scrollWidth > window.innerWidth) out.push("sideways");
          return out;
        }"""
    )
    return found


async def felt_cards_seen(page: Page, least: float = 40) -> list[str]:
    """The felt's cards big enough to read on a tall phone with the sheet open (a player's
    reading, 2026-12-07: the rival's cards 22 px wide under an 80 px hand)."""
    widths = """() => [...document.querySelectorAll("#felt .played img")].map(
                 (img) => [img.dataset.card, img.getBoundingClientRect().width])"""
    # (the felt is fitted after the sheet is drawn: waited for, not sampled once)
    with contextlib.suppress(PlaywrightTimeout):
        await page.wait_for_function(
            f"(least) => ({widths})().every(([, width]) => width >= least)", arg=least,
            timeout=10_000,
        )  # fmt: skip
    found: list[list[Any]] = await page.evaluate(widths)
    return [f"felt card {card} {width:.0f} px wide" for card, width in found if width < least]


async def choices_seen(page: Page) -> list[str]:
    """The question's choices on screen without a scroll, inside the sheet (a player's reading,
    2026-12-07: at 360×640 they were under the sheet's edge, a scroll away, unseen)."""
    await expect(page.locator("#quiz-choices button").first).to_be_visible()
    found: list[str] = await page.evaluate(
        """() => {
          const sheet = document.getElementById("review").getBoundingClientRect();
          return [...document.querySelectorAll("#quiz-choices button")].filter((b) => {
            const r = b.getBoundingClientRect();
            return r.bottom > Math.min(sheet.bottom, window.innerHeight) + 1 || r.top < sheet.top;
          }).map((b) => "choice out of sight: " + b.textContent);
        }"""
    )
    return found


async def check_moment(
    page: Page, index: int, moment: dict[str, Any], frames: list[dict[str, Any]]
) -> list[str]:
    """Tap moment `index` (the first is open already: the sheet opens on it) and check the
    replay is at its step, drawn as the person saw it, with what each move was worth as the
    review's JSON says; what covers what, if anything."""
    count = page.locator("#replay-count")
    chip = page.locator(f"#moment-{index + 1}")
    if index:  # (the first is open already: the sheet opens on it)
        await chip.click()
    at = next(i for i, f in enumerate(frames) if f["step"] == moment["step"])
    frame = frames[at]
    # The replay is at that step: its count, its hand, the cards then on the felt.
    await expect(count).to_have_text(f"{at + 1} de {len(frames)}")
    await expect(chip).to_have_attribute("aria-pressed", "true")
    await expect(page.locator("#moment")).to_have_attribute("data-step", str(moment["step"]))
    await expect(page.locator("#worth")).to_contain_text(f"Mano {moment['hand']}")
    felt = [await i.get_attribute("data-card") for i in await page.locator(
        "#felt .played img").all()]  # fmt: skip
    assert sorted(c for c in felt if c) == cards_on_felt(frame), (moment, felt)
    await expect(page.locator("#felt .held")).to_have_count(0)  # (no card they did not see)
    # From their seat, with the cards they held then.
    await expect(page.locator("#felt .seat.spot-bottom .name")).to_contain_text("Ana (vos)")
    hand = [await i.get_attribute("data-card") for i in await page.locator(
        "#hand img").all()]  # fmt: skip
    assert hand == moment["held"], (moment, hand)
    for code, cls in ((moment["made"], "mark-made"), (moment["best"], "mark-best")):
        card = code.split(":")[2] if code.count(":") == 2 else None
        marked = page.locator(f"#hand button.{cls} img")
        await expect(marked).to_have_count(1 if card else 0)
        if card:
            await expect(marked).to_have_attribute("data-card", card)
    # The score then, and what was said at that step, at the seat that said it.
    for word in frame["spoken"]:
        bubble = page.locator(f"#felt .bubble[data-seat='{word['seat']}']")
        await expect(bubble).to_contain_text(word["text"])
    mine, theirs = moment["scores"]
    await expect(page.locator("#score .pts").first).to_have_text(str(mine))
    await expect(page.locator("#score .pts").last).to_have_text(str(theirs))
    # What each move was worth, as the JSON says.
    sheet = page.locator("#moment")
    await expect(sheet.locator(".title")).to_have_text(moment["title"])
    await expect(sheet.locator(".position")).to_have_text(moment["position"])
    for row, key in (("made", "made"), ("best", "best")):
        line = sheet.locator(f".row.{row}")
        await expect(line.locator("dt")).to_contain_text(moment[f"{key}_act"])
        shown = moment[f"{key}_shown"]
        assert abs(said(shown) - moment[f"{key}_points"]) <= 0.05 + 1e-9, moment
        await expect(line.locator(".pts")).to_have_text(shown)
        await expect(line.locator(".pts")).to_have_attribute(
            "data-points", str(moment[f"{key}_points"]).removesuffix(".0")
        )
        assert shown in moment[f"{key}_worth"] or "seguro" in moment[f"{key}_worth"]
        await expect(line.locator(".worth")).to_have_text(moment[f"{key}_worth"])
    await expect(sheet.locator(".row.made .who")).to_have_text("Vos:")
    await expect(sheet.locator(".row.best .who")).to_have_text(
        "La otra:" if moment["praised"] else "🤖 Difícil:"
    )
    await expect(chip.locator(".cost")).to_have_text(moment["shown"])
    assert abs(said(moment["shown"]) + moment["cost"]) <= 0.05 + 1e-9, moment
    return [f"moment {index + 1}: {x}" for x in await nothing_covers(page)]


async def test_a_player_steps_through_their_review_on_the_replay(
    browser: Browser, local_url: str
) -> None:
    context = await browser.new_context(
        viewport=PHONE, color_scheme="light", locale="es-AR",
        bypass_csp=True,  # (axe's script is injected by the test, not served by the page)
    )  # fmt: skip
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await new_table(page, local_url, mode="1v1")
    await play_to_the_end(page, checks=False)
    found = re.search(r"table=(\d+)", page.url)
    assert found is not None
    number = int(found.group(1))

    # The end screen: 📝 beside the rematch, for the person who played.
    button = page.locator("#over #review-open")
    await expect(button).to_have_text("📝 Tu revisión")
    await shoot(page, "end-light-360")
    await page.emulate_media(color_scheme="dark")
    await shoot(page, "end-dark-360")
    await page.emulate_media(color_scheme="light")

    # The first time the review is computed: the sheet says so until the answer comes (the
    # answer held here until the page has said it, so the words are seen whatever the speed).
    seen_loading = asyncio.Event()
    held_answers: list[int] = []

    async def hold(route: Route) -> None:
        answer = await route.fetch()  # (the real server computes it meanwhile)
        await asyncio.wait_for(seen_loading.wait(), 60)
        held_answers.append(answer.status)
        await route.fulfill(response=answer)

    await page.route(f"**/api/table/{number}/review", hold)
    await button.click()
    loading = page.locator("#review-loading")
    await expect(loading).to_contain_text("Repasando tus decisiones")
    await expect(page.locator("#review")).to_have_attribute("aria-busy", "true")
    await shoot(page, "loading-light-360")
    seen_loading.set()

    # The list: each moment of the review's JSON, in its order (the costliest first, ✅ last).
    answer = await page.request.get(f"{local_url}/api/table/{number}/review?all=1")
    assert answer.ok, await answer.text()
    review = await answer.json()
    moments = review["moments"]
    assert moments, review["text"]  # (this match has decisions that cost points)
    chips = page.locator("#moments button.moment")
    await expect(chips).to_have_count(len(moments), timeout=60_000)
    assert held_answers == [200]
    await page.unroute(f"**/api/table/{number}/review")
    await expect(page.locator("#review")).to_have_attribute("aria-busy", "false")
    # Asked first (the next test checks the quiz): its choices seen on a small phone; a tall
    # phone, asked and told, light and dark.
    await expect(page.locator("#quiz-question")).to_contain_text("¿Qué hacés?")
    # (while asked, a small phone gives the felt up to 34 px for the choices: cards 30 px)
    small = [f"asked at 360: {x}" for x in await felt_cards_seen(page, 30)]
    await shoot(page, "quiz-asked-light-360")
    for chip in range(len(moments), 0, -1):  # (each asked, the first left open)
        await page.click(f"#moment-{chip}")
        if await page.locator("#quiz-question").count():
            small += [f"asked {chip} at 360: {x}" for x in await choices_seen(page)]
    await page.set_viewport_size(TALL)
    await expect(page.locator("#quiz-question")).to_contain_text("¿Qué hacés?")
    small += [f"asked: {x}" for x in await felt_cards_seen(page)]
    small += [f"asked: {x}" for x in await nothing_covers(page)]
    await shoot(page, "quiz-asked-light-390")
    await page.emulate_media(color_scheme="dark")
    await shoot(page, "quiz-asked-dark-390")
    await page.locator("#quiz-choices button").first.click()
    await expect(page.locator("#quiz-told")).to_be_visible()
    await shoot(page, "quiz-told-dark-390")
    await page.emulate_media(color_scheme="light")
    await shoot(page, "quiz-told-light-390")
    await page.set_viewport_size(PHONE)
    await page.click("#review-all")  # (the rest at once, as before)
    slips = [m for m in moments if not m["praised"]]
    assert [await c.locator("b").text_content() for c in await chips.all()] == [
        str(i + 1) for i in range(len(slips))
    ] + ["✅"] * (len(moments) - len(slips))
    replay = await (await page.request.get(f"{local_url}/api/table/{number}/replay")).json()
    frames = replay["frames"]
    count = page.locator("#replay-count")

    axe = Axe()
    wrong: list[str] = []
    covered: list[str] = []
    for index, moment in enumerate(moments):
        covered += await check_moment(page, index, moment, frames)
        if index == 0:
            # (a small phone reads the felt's cards too: 22 px wide at 360×640, 2026-12-07)
            small += [f"phone: {x}" for x in await felt_cards_seen(page)]
            await shoot(page, "moment-light-360")
            wrong += await serious(axe, page, "light moment")
            await page.emulate_media(color_scheme="dark")
            await shoot(page, "moment-dark-360")
            wrong += await serious(axe, page, "dark moment")
            await page.emulate_media(color_scheme="light")

    # Off a moment (a step on, past any moment right after): the list stays, no chip pressed,
    # the hand the player's cards then (as on any frame of their replay), none marked.
    steps = {m["step"] for m in moments}
    at = next(i for i, f in enumerate(frames) if f["step"] == moments[-1]["step"])
    while frames[at]["step"] in steps:
        await page.click("#replay-step")
        at += 1
        await expect(count).to_have_text(f"{at + 1} de {len(frames)}")
    await expect(page.locator("#moments button[aria-pressed='true']")).to_have_count(0)
    await expect(page.locator("#review-intro")).to_contain_text("Decisiones tuyas con opciones")
    await expect(page.locator("#hand .mark")).to_have_count(0)
    await expect(page.locator("#hand button.card:not([disabled])")).to_have_count(0)

    # A tall phone, light and dark, the first moment open.
    await page.set_viewport_size(TALL)
    await page.click("#moment-1")
    await expect(page.locator("#moment-1")).to_have_attribute("aria-pressed", "true")
    covered += [f"tall: {x}" for x in await nothing_covers(page)]
    small += [f"tall: {x}" for x in await felt_cards_seen(page)]
    await shoot(page, "moment-light-390")
    await page.emulate_media(color_scheme="dark")
    await shoot(page, "moment-dark-390")
    await page.set_viewport_size({"width": 1280, "height": 800})  # (a desktop: the same)
    await expect(page.locator("#moment-1")).to_have_attribute("aria-pressed", "true")
    covered += [f"wide: {x}" for x in await nothing_covers(page)]
    await shoot(page, "moment-dark-1280")
    await page.set_viewport_size(TALL)

    # The keyboard: the chips are buttons in the tab order; Escape closes the sheet and the
    # focus comes back to 📝.
    await page.focus("#moment-1")
    await page.keyboard.press("Tab")
    after = "#moment-2" if len(moments) > 1 else "#review-close"
    await expect(page.locator(after)).to_be_focused()
    await page.keyboard.press("Enter")
    if len(moments) > 1:  # (Enter on a chip: the replay goes to it, the focus stays on it)
        await expect(page.locator("#moment-2")).to_have_attribute("aria-pressed", "true")
        await expect(page.locator("#moment-2")).to_be_focused()
        await page.keyboard.press("Escape")
    await expect(page.locator("#review")).to_have_count(0)
    await expect(page.locator("#review-open")).to_be_focused()
    assert "review=1" not in page.url
    # A reload with the review open opens it again (kept: not computed twice).
    await page.click("#review-open")
    await expect(page.locator("#moment-1")).to_have_attribute("aria-pressed", "true")
    assert "review=1" in page.url
    await page.reload()
    await expect(page.locator("#moment-1")).to_have_attribute("aria-pressed", "true")

    # The end screen at 390×844 too.
    await page.goto(f"{local_url}/?table={number}")
    await expect(page.locator("#over #review-open")).to_be_visible()
    await shoot(page, "end-dark-390")
    await page.emulate_media(color_scheme="light")
    await shoot(page, "end-light-390")
    assert covered == []
    assert small == []
    assert wrong == []
    assert errors == []

    # Someone who did not play it: no 📝 on the end screen nor on the replay, none with the
    # link of one open either, and the route refuses them.
    other = await browser.new_context(viewport=PHONE, color_scheme="light", locale="es-AR")
    stranger = await other.new_page()
    stranger.on("pageerror", lambda e: errors.append(str(e)))
    await enter(stranger, local_url, "Beto")
    await stranger.goto(f"{local_url}/?table={number}")
    await expect(stranger.locator("#over")).to_be_visible()
    await expect(stranger.locator("#watch")).to_be_visible()
    await expect(stranger.locator("#review-open")).to_have_count(0)
    await stranger.goto(f"{local_url}/?replay={number}&review=1")
    await expect(stranger.locator("#replay-count")).to_have_text(f"1 de {len(frames)}")
    await expect(stranger.locator("#seal-check")).to_contain_text("Verificado", timeout=20_000)
    await expect(stranger.locator("#review-open")).to_have_count(0)
    await expect(stranger.locator("#review")).to_have_count(0)
    refused = await stranger.request.get(f"{local_url}/api/table/{number}/review")
    assert refused.status == 403
    assert (await refused.json())["error"] == refusal_text(
        translator("es"), Refusal(Refused.REVIEW_NOT_YOURS)
    )
    assert errors == []


def answers_kept(db: Path, number: int) -> list[tuple[int, int, int, int, float | None]]:
    """The review_answers rows of match `number`, as the database has them."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT user_id, step, first_right, box, due_at FROM review_answers"
            " WHERE game_id = ? ORDER BY user_id, step", (number,),
        ).fetchall()  # fmt: skip
    return [tuple(r) for r in rows]


async def answered_first(
    h: Harness, page: Page, base: str, number: int, db: Path, ana: FakeUser, carla: FakeUser,
    data: dict[str, Any], opened: Callable[[], str],
) -> None:  # fmt: skip
    """📝 answered first on the web, as /revision asks in Telegram: the first costly moment a
    question (Telegram's words, no answer shown, no card marked); a wrong tap tells what was
    best and is kept as Telegram's tap keeps it (back tomorrow in /revision repaso); a reload
    keeps it answered; a forged answer is refused and changes nothing; a moment answered in
    Telegram is not asked on the web; "📄 Ver la revisión entera" tells the rest at once."""
    T = translator("es")
    review = await h.services.core.reviews.of(number, ana.id)
    order = asked(review)
    assert len(order) >= 2, "a match whose review asks two moments"
    assert order[:2] == [0, 1]  # (the costliest slips have a question: chips 1 and 2)
    await page.set_viewport_size(TALL)
    await page.click("#moment-1")
    question = page.locator("#quiz-question")
    await expect(question).to_have_text(plain(question_of(T, review, 0, str(number))))
    await expect(question).to_contain_text("¿Qué hacés?")
    await expect(page.locator("#moment .row")).to_have_count(0)  # (the answer: after)
    await expect(page.locator("#moment-1 .cost")).to_have_text("?")
    await expect(page.locator("#hand .mark")).to_have_count(0)
    puzzle = review.slips[0].puzzle
    assert puzzle is not None
    labels = [choice_label(T, c.code) for c in puzzle.choices]
    buttons = await page.locator("#quiz-choices button").all()
    assert [await b.text_content() for b in buttons] == labels
    assert answers_kept(db, number) == []
    await shoot(page, "quiz-asked-telegram-dark-390")
    assert await serious(Axe(), page, "quiz asked") == []

    # A wrong tap: Telegram's words for it, and the review_answers row Telegram's tap makes.
    wrong = next(i for i in range(len(puzzle.choices)) if i not in puzzle.right)
    await page.locator(f"#quiz-choices button[data-choice='{wrong}']").click()
    told = page.locator("#quiz-told")
    await expect(told).to_have_text(plain(answer_text(T, review.slips[0], wrong, False)))
    await expect(told).to_contain_text("Lo mejor era")
    await expect(page.locator("#moment .row.made")).to_have_count(1)
    await expect(page.locator("#moment-1 .cost")).to_have_text(data["moments"][0]["shown"])
    step = review.slips[0].step
    now = h.clock.now
    assert answers_kept(db, number) == [(ana.id, step, 0, 1, now + AGAIN[0])]
    await shoot(page, "quiz-told-telegram-dark-390")
    assert await serious(Axe(), page, "quiz told") == []

    # A reload: answered, told with the choice tapped (it is kept), not asked.
    await page.reload()
    await expect(page.locator("#moment-1")).to_have_attribute("aria-pressed", "true")
    await expect(told).to_have_text(plain(answered_text(T, review.slips[0], False, wrong)))
    await expect(told).to_contain_text("Elegiste ")
    await expect(page.locator("#quiz-question")).to_have_count(0)
    await expect(page.locator("#moment .row.best")).to_have_count(1)

    # Forged answers: refused, clearly, and nothing kept.
    def post(who: FakeUser, body: dict[str, Any]) -> Any:
        return page.request.post(
            f"{base}/api/table/{number}/review/answer", data=json.dumps(body),
            headers={"X-Telegram-Init-Data": launch(h, who), "Accept-Language": "es",
                     "Content-Type": "application/json"},
        )  # fmt: skip

    no_question = next((i for i, m in enumerate(review.slips) if m.puzzle is None), 999)
    bad_button = refusal_text(T, Refusal(Refused.BAD_BUTTON))
    for body in ({"index": 999, "choice": 0}, {"index": 1, "choice": 99},
                 {"index": no_question, "choice": 0}, {"index": -1, "choice": 0},
                 {"index": "1", "choice": 0}):  # fmt: skip
        refused = await post(ana, body)
        assert refused.status == 400, (body, refused.status)
        assert (await refused.json())["error"] == bad_button, body
    refused = await post(carla, {"index": 1, "choice": 0})  # (not her review)
    assert refused.status == 403
    assert (await refused.json())["error"] == refusal_text(T, Refusal(Refused.REVIEW_NOT_YOURS))
    assert answers_kept(db, number) == [(ana.id, step, 0, 1, now + AGAIN[0])]

    # In Telegram: the moment missed on the web is due tomorrow in /revision repaso, as a
    # moment missed in Telegram is; there she answers the second moment (right).
    ana.send(ana.id, "/revision repaso")
    await h.settle()
    assert h.fake.last(ana.id).text == T("quiz.none_due")
    ana.send(ana.id, f"/revision {number}")
    await h.settle()
    asking = h.fake.last(ana.id)  # (Telegram asks the match from its first moment, as ever)
    await ana.tap(ana.id, asking.message_id, labels[wrong])
    await h.settle()
    await ana.tap(ana.id, asking.message_id, "Siguiente ▶️")
    await h.settle()
    second = h.fake.last(ana.id)
    assert plain(second.text).startswith("Pregunta 2 de")
    puzzle2 = review.slips[1].puzzle
    assert puzzle2 is not None
    await ana.tap(ana.id, second.message_id, choice_label(T, puzzle2.choices[puzzle2.best].code))
    await h.settle()
    step2 = review.slips[1].step
    assert answers_kept(db, number) == sorted(
        [(ana.id, step, 0, 1, now + AGAIN[0]), (ana.id, step2, 1, 0, None)]
    )  # (the web's answer as it was: asked again before it was due changes nothing)
    await page.reload()  # (the one answered in Telegram: told on the web, not asked)
    await page.click("#moment-2")
    await expect(told).to_have_text(plain(answered_text(T, review.slips[1], True, puzzle2.best)))
    await expect(page.locator("#quiz-question")).to_have_count(0)
    h.clock.advance(AGAIN[0])
    ana.send(ana.id, "/revision repaso")
    await h.settle()
    assert plain(h.fake.last(ana.id).text) == plain(
        question_of(T, review, 0, str(number), again=True)
    )

    # A new day: the page opened afresh (Telegram's launch data of a day before is too old).
    await page.goto(opened())
    await expect(page.locator("#moment-1")).to_have_attribute("aria-pressed", "true")
    # The whole review at once: nothing asked, nothing kept.
    if len(order) > 2:
        await page.click(f"#moment-{order[2] + 1}")
        await expect(question).to_be_visible()
        await page.click("#review-all")
        await expect(question).to_have_count(0)
        await expect(page.locator("#moment .row.made")).to_have_count(1)
    else:
        await page.click("#moment-1")
        await page.click("#review-close")
        await page.click("#review-open")
        await expect(page.locator("#moment-1")).to_have_attribute("aria-pressed", "true")
    await page.click("#moment-1")
    await page.set_viewport_size(PHONE)
    assert len(answers_kept(db, number)) == 2


# Telegram's dark theme, on a phone whose own scheme is light.
TELEGRAM_DARK = {
    "bg_color": "#1c1c1d", "text_color": "#ffffff", "hint_color": "#aaaaaa",
    "button_color": "#3e88f7", "button_text_color": "#ffffff", "secondary_bg_color": "#2c2c2e",
}  # fmt: skip


async def test_in_telegram_the_review_wears_its_theme_and_is_the_players_alone(
    fake: FakeTelegram, tmp_path: Path, browser: Browser
) -> None:
    async with harness_with(
        fake, tmp_path / "review.db", webapp_url="https://x.invalid/t", web_port=0
    ) as h:  # fmt: skip
        ana, juan, carla = h.user(1, "Ana"), h.user(2, "Juan"), h.user(3, "Carla")
        await open_table(h, [ana, juan], "1v1 15 sinflor")
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and h.services.web is not None
        await play_in_telegram(h, [ana, juan], seed=12)  # (Ana's review: slips and ✅)
        await h.settle()
        carla.send(GROUP, "hola")  # a member of the group, who did not play it
        base = f"http://127.0.0.1:{h.services.web.port}"
        theme = quote(json.dumps(TELEGRAM_DARK))
        errors: list[str] = []

        def opened(who: Any) -> str:
            return (f"{base}/?replay={table.id}#tgWebAppData={quote(launch(h, who))}"
                    f"&tgWebAppThemeParams={theme}")  # fmt: skip

        context = await browser.new_context(viewport=PHONE, color_scheme="light", bypass_csp=True)
        page = await context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(opened(ana))
        await expect(page.locator("#replay-count")).to_contain_text(" de ")
        await page.click("#review-open")
        review = h.services.core.reviews
        found = await review.of(table.id, ana.id)
        moments = len(found.slips) + len(found.praise)
        await expect(page.locator("#moments button.moment")).to_have_count(moments, timeout=60_000)
        data = await (
            await page.request.get(
                f"{base}/api/table/{table.id}/review?all=1",
                headers={"X-Telegram-Init-Data": launch(h, ana), "Accept-Language": "es"},
            )
        ).json()
        frames = (
            await (
                await page.request.get(
                    f"{base}/api/table/{table.id}/replay",
                    headers={"X-Telegram-Init-Data": launch(h, ana)},
                )
            ).json()
        )["frames"]
        assert found.praise, data["text"]  # (this match has good decisions too)
        unseen = []  # (each asked moment's choices on this small phone, a chant waiting too)
        for chip in range(moments, 0, -1):
            await page.click(f"#moment-{chip}")
            if await page.locator("#quiz-question").count():
                unseen += [f"asked {chip}: {x}" for x in await choices_seen(page)]
        assert unseen == []
        await answered_first(
            h, page, base, table.id, tmp_path / "review.db", ana, carla, data,
            lambda: opened(ana).replace("?replay=", "?review=1&replay="),
        )  # fmt: skip
        covered: list[str] = []
        praised = [i for i, m in enumerate(data["moments"]) if m["praised"]]
        for index, moment in enumerate(data["moments"]):
            covered += await check_moment(page, index, moment, frames)
            if index == praised[0]:
                await shoot(page, "praise-telegram-dark-360")
        assert covered == []
        await page.click("#moment-1")
        # Telegram's colours on the sheet, the page's dark ones where Telegram gives none.
        assert await page.evaluate("document.documentElement.classList.contains('dark')")
        sheet = page.locator("#review")
        await expect(sheet).to_have_css("background-color", "rgb(44, 44, 46)")
        await expect(sheet).to_have_css("color", "rgb(255, 255, 255)")
        if found.slips:
            await expect(page.locator("#moment-1")).to_have_attribute("aria-pressed", "true")
            await expect(page.locator("#moment .row.made")).to_have_css(
                "border-left-color", "rgb(240, 165, 150)"
            )  # (the dark scheme's "bad")
        await shoot(page, "telegram-dark-360")
        assert await serious(Axe(), page, "telegram dark") == []
        assert errors == []
        # Carla, of the group, watches the replay: no 📝, and the route refuses her.
        other = await browser.new_context(viewport=PHONE)
        watcher = await other.new_page()
        watcher.on("pageerror", lambda e: errors.append(str(e)))
        await watcher.goto(opened(carla))
        await expect(watcher.locator("#replay-count")).to_contain_text(" de ")
        await expect(watcher.locator("#seal-check")).to_contain_text("Verificado", timeout=20_000)
        await expect(watcher.locator("#review-open")).to_have_count(0)
        refused = await watcher.request.get(
            f"{base}/api/table/{table.id}/review",
            headers={"X-Telegram-Init-Data": launch(h, carla)},
        )
        assert refused.status == 403
        assert review.computed == 1  # (Ana's alone)
        assert errors == []
