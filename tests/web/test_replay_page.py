"""A finished match watched again in Chromium, at 360×640, light and dark: every chant and answer
of the log at its frame (a bubble at the seat that said it, the bet's line in the record), every
hand's cards face up at that hand's end (the same as the log's deals), each point's reason on the
frame whose score it changes, a hand at a time with ⏮ ⏭, the seal checked, axe green
(`told_whole`, run on the match each whole-match walk of tests/web/test_table_page.py has just
played, in 1v1, 2v2 and 3v3). A match still in play has no replay, and its table shows no card
it hides."""

from __future__ import annotations

import re
import time
from typing import Any

from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, Page, expect

from tests.web.conftest import ARTIFACTS
from tests.web.test_local_table import play_something
from tests.web.test_table_page import new_table

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


# What check_frame reads of the page, in one call (a round trip to Chromium a frame, not one a
# thing checked: the replay's ~100 frames a match, each with several things to check, were most
# of this file's time): each element's text as Playwright's `to_contain_text` reads it (its
# textContent), the count of what may be missing, and every card's face on the felt by seat.
FRAME = """() => {
  const all = (selector) => [...document.querySelectorAll(selector)];
  const texts = (selector) => all(selector).map((e) => e.textContent);
  const seats = {};
  for (const e of all("#felt [data-seat]")) seats[e.dataset.seat] = true;
  const bySeat = {};
  for (const seat of Object.keys(seats)) {
    const held = all(`#felt .held[data-seat='${seat}']`);
    bySeat[seat] = {
      bubbles: texts(`#felt .bubble[data-seat='${seat}']`),
      held: held.map((e) => e.getAttribute("data-cards")),
      faces: all(`#felt .played figure[data-seat='${seat}'] img`)
        .concat(held.flatMap((e) => [...e.querySelectorAll("img")]))
        .map((i) => i.getAttribute("data-card")),
    };
  }
  const worth = document.getElementById("worth");
  return { lines: texts("#lines"), handEnd: texts("#hand-end"), scored: texts("#scored"),
    held: all("#felt .held").length, seats: bySeat,
    hand: all("#hand img").map((i) => i.getAttribute("data-card")),
    head: worth ? (/\\d+/.exec(worth.textContent) || [""])[0] : "",
    felt: (document.getElementById("felt") || { dataset: {} }).dataset.hand || "" };
}"""

# Where a person taps ▶ (the next frame): the button brought into view, and its middle, if the
# button is what a tap there would reach (not hidden, not covered, not disabled).
STEP = """() => {
  const button = document.querySelector("#replay-step");
  if (!button || button.disabled) return null;
  button.scrollIntoView({ block: "nearest" });
  const box = button.getBoundingClientRect();
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const hit = document.elementFromPoint(x, y);
  return hit && button.contains(hit) ? { x, y } : null;
}"""


async def step(page: Page) -> None:
    """▶ tapped with the mouse where it is: the click a person makes, without the wait for two
    still animation frames that `page.click` adds (a tenth of a second a frame here, most of
    this file's time; the button does not move)."""
    deadline = time.monotonic() + 5
    while (at := await page.evaluate(STEP)) is None and time.monotonic() < deadline:
        await page.wait_for_timeout(50)
    assert at is not None, "▶ cannot be tapped"
    await page.mouse.click(at["x"], at["y"])


def _space(text: str) -> str:
    return " ".join(text.split())  # (as Playwright compares texts: its white space collapsed)


def frame_wrong(
    shown: dict[str, Any], frame: dict[str, Any], deals: list[str], mine: Mine = None
) -> list[str]:
    """What of `frame` the page (`shown`, read by FRAME) does not show; [] when all of it.
    `mine`: the viewer's seat and the cards they had played in the frame's hand, when the
    viewer played the match."""
    wrong: list[str] = []
    # The head names the hand the felt shows (issue 72: ⏭ showed "Mano 4" over hand 3's end).
    if shown["head"] != shown["felt"] or shown["felt"] != str(shown_hand(frame)):
        wrong.append(f"head {shown['head']}, felt {shown['felt']}, frame {shown_hand(frame)}")
    # A player watching their match has their own cards face up, those not played yet, as in
    # their hand then (issue 72: face down during each hand).
    if mine is not None and not frame["hand_over"] and not frame["over"]:
        seat, played = mine
        dealt = deals[frame["hand_number"] - 1].split("|")[seat].split()
        left = [c for c in dealt if c not in played]
        if shown["hand"] != left:
            wrong.append(f"your hand shows {shown['hand']!r}, you held {left!r}")

    def contains(what: str, found: list[str], text: str) -> None:
        # (one element, as `expect(locator).to_contain_text` insists, holding the text)
        if len(found) != 1 or _space(text) not in _space(found[0]):
            wrong.append(f"{what}: {text!r} not in {found!r}")

    seats: dict[str, Any] = shown["seats"]
    nobody = {"bubbles": [], "held": [], "faces": []}
    for word in frame["spoken"]:
        bubbles = seats.get(str(word["seat"]), nobody)["bubbles"]
        contains(f"seat {word['seat']}'s bubble", bubbles, word["text"])
    for line in frame["bets"]:
        contains("#lines", shown["lines"], line)
    if frame["scored"] and frame["hand_over"]:  # (the hand's end says why, in its banner)
        for line in frame["scored"]:
            reason = re.search(r"\+\d+ \((.+)\)$", line)
            assert reason is not None, line
            contains("#hand-end", shown["handEnd"], reason.group(1))
    elif frame["scored"]:
        for line in frame["scored"]:
            contains("#scored", shown["scored"], line)
    elif shown["scored"]:
        wrong.append(f"#scored shown: {shown['scored']!r}")
    if frame["hand_over"]:
        ended = frame["ended"][-1]
        contains("#hand-end", shown["handEnd"], ended["lines"][0])
        dealt = deals[ended["number"] - 1].split("|")  # (a deal a hand; its duels share it)
        for seat, cards in enumerate(dealt):
            at = seats.get(str(seat), nobody)
            if ended["held"][seat] is None:  # (a pica-pica duel: the seats out of it)
                if at["held"]:
                    wrong.append(f"seat {seat} out of the duel shows {at['held']!r}")
                continue
            if at["held"] != [cards]:
                wrong.append(f"seat {seat} holds {at['held']!r}, dealt {cards!r}")
            if sorted(at["faces"]) != sorted(cards.split()):
                wrong.append(f"seat {seat}'s faces {at['faces']!r}, dealt {cards!r}")
    else:
        if shown["held"]:  # (a hand in play, a deal too: its cards face down)
            wrong.append(f"{shown['held']} hands face up in play")
        if frame["ended"] and not any(frame["rounds"]):  # (a deal: the hand before, in words)
            contains("#lines", shown["lines"], frame["ended"][-1]["lines"][0])
    return wrong


Mine = tuple[int, set[str]] | None  # the viewer's seat, and the cards they played in the hand


def shown_hand(frame: dict[str, Any]) -> int:
    """The hand a frame's felt shows: its hand's end from its last action on, else the hand in
    play."""
    if frame["hand_over"] or frame["over"]:
        return int(frame["ended"][-1]["number"])
    return int(frame["hand_number"])


def mine_at(frames: list[dict[str, Any]], index: int, seat: int | None) -> Mine:
    """The viewer's seat and the cards they had played in frame `index`'s hand (in every duel
    of a pica-pica hand)."""
    if seat is None:
        return None
    hand = frames[index]["hand_number"]
    played: set[str] = set()
    for frame in frames[: index + 1]:
        if frame["hand_number"] == hand:
            played |= {p["card"] for plays in frame["rounds"] for p in plays if p["seat"] == seat}
    return seat, played


async def check_frame(
    page: Page, frame: dict[str, Any], deals: list[str], mine: Mine = None
) -> None:
    """What frame `frame` must show: its words at their seats, its bets, its points' reasons
    and, a hand over, every card its players held, face up. (Read again until it does, as
    `expect` would, for as long as `expect` waits.)"""
    deadline = time.monotonic() + 5
    while True:
        wrong = frame_wrong(await page.evaluate(FRAME), frame, deals, mine)
        if not wrong or time.monotonic() > deadline:
            break
        await page.wait_for_timeout(50)
    assert wrong == [], (frame["action"], wrong)


async def told_whole(page: Page, base: str, table: str, mode: str) -> tuple[int, list[str]]:
    """The finished match `table` watched again on `page` (a phone's window, light, that may
    run axe's script): every action one step at a time, each frame as its log says; then dark,
    a hand at a time with ⏭ from the first frame to the last, and ⏮ once. Returns the frames'
    count and what each frame's header said, in order. (The whole-match walks of
    tests/web/test_table_page.py replay the match each has just played through this: a match
    played again only to be replayed was a third of this file's time. The page's own errors are
    the caller's to collect: it watches the page longer.)"""
    answer = await page.request.get(f"{base}/api/table/{table}/replay")
    assert answer.ok
    data = await answer.json()
    frames, deals = data["frames"], data["deals"]
    assert any(f["spoken"] for f in frames) and any(f["scored"] for f in frames)
    seen = await (await page.request.get(f"{base}/api/table/{table}")).json()
    seat = seen["seat"]  # (the page's viewer: the player whose match it was, or None)
    await page.goto(f"{base}/?replay={table}")
    count = page.locator("#replay-count")
    await expect(count).to_have_text(f"1 de {len(frames)}")
    await expect(page.locator("#seal-check")).to_contain_text("Verificado", timeout=20_000)
    await expect(page.locator("#seal-check")).to_contain_text(re.compile(r"(\d+)/\1 "))
    ARTIFACTS.mkdir(exist_ok=True)
    axe = Axe()
    found: list[str] = []
    headers: list[str] = []
    shots = {"chant": False, "end": False, "scored": False}
    # Light: every action, one step at a time.
    for index, frame in enumerate(frames):
        if index:
            await step(page)
        await expect(count).to_have_text(f"{index + 1} de {len(frames)}")
        await check_frame(page, frame, deals, mine_at(frames, index, seat))
        headers.append(await page.locator("#worth").text_content() or "")
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
    # Dark: a hand at a time, back to the start and on to the end, each hand's end drawn; ⏭
    # lands on the next hand's deal, drawn as that hand, the one before told in the record.
    await page.emulate_media(color_scheme="dark")
    await page.locator("#replay-at").fill("0")  # (the slider, to the first frame)
    await expect(count).to_have_text(f"1 de {len(frames)}")
    hands = 0
    while await count.text_content() != f"{len(frames)} de {len(frames)}":
        await page.click("#replay-next-hand")
        at = int((await count.text_content() or "").split()[0]) - 1
        frame = frames[at]
        await check_frame(page, frame, deals, mine_at(frames, at, seat))
        if frames[at - 1]["hand_over"] and frame["hand_number"] != frames[at - 1]["hand_number"]:
            hands += 1  # (the next hand's deal: the hand before told in the record)
            ended = frames[at - 1]["ended"][-1]
            await expect(page.locator("#lines")).to_contain_text(ended["lines"][0])
            await expect(page.locator("#felt .held")).to_have_count(0)
            if hands == 2:
                await settled(page)
                await page.screenshot(path=ARTIFACTS / f"web-replay-{mode}-hand-dark-360.png")
                found += await serious(axe, page, "dark hand")
    assert hands == frames[-1]["hand_number"] - 1
    await page.click("#replay-prev-hand")
    await expect(count).not_to_have_text(f"{len(frames)} de {len(frames)}")
    await page.screenshot(path=ARTIFACTS / f"web-replay-{mode}-prev-dark-360.png")
    assert all(shots.values()), shots
    assert found == []
    return len(frames), headers


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
        if scheme == "light":  # No dead end: a refusal has a way back (issue 72: bare words).
            await page.get_by_role("button", name=re.compile("Volver")).click()
            await expect(page.locator("#new")).to_be_visible()  # (the local menu)
            await page.goto(f"{local_url}/?tourney=999")
            await expect(page.locator("[role=alert]")).to_have_text(
                "No hay tal torneo en tus grupos."
            )
            await page.get_by_role("button", name=re.compile("Volver")).click()
            await expect(page.locator("#new")).to_be_visible()
        await page.goto(live)  # the table itself: the rival's cards only as backs
        await expect(page.locator("#hand img")).not_to_have_count(0)
        rival = page.locator("#felt .seat[data-seat='1']")
        await expect(page.locator("#felt .held")).to_have_count(0)
        # (`all()` does not wait: the rival's backs drawn first, as `expect` waits for them)
        await expect(rival.locator(".more img")).not_to_have_count(0)
        hidden = await rival.locator(".more img").all()
        sources = [await i.get_attribute("src") or "" for i in hidden]
        assert sources and all("back" in src for src in sources), sources
        await context.close()
