"""The web table as a player meets it, in Chromium: whole matches through the page at phone
sizes and on a wide screen, light and dark, with every control in view whenever it can be used,
no sideways scroll, every round's winning card marked and every hand's end (its last card lit)
drawn before the next deal; the turn's clock; a seat kept by a new tab; the rematch; the
accessibility check (axe-core)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, Page, expect
from playwright.async_api import Error as PlaywrightError

from tests.web.conftest import ARTIFACTS
from tests.web.test_local_table import PLAYABLE, enter, play_something

STYLE = Path(__file__).resolve().parents[2] / "bot" / "web" / "static" / "style.css"

# Every hand's end the page draws, as it draws it (a MutationObserver sees each one, however
# briefly it stays).
WATCH_ENDS = """
window.__ends = [];
window.__duels = 0;
new MutationObserver(() => {
  const worth = document.getElementById("worth");
  if (worth && worth.textContent.includes("⚔️")) window.__duels += 1;
  const banner = document.getElementById("hand-end");
  if (!banner) return;
  const text = banner.textContent;
  if (window.__ends.some((e) => e.text === text)) return;
  const felt = document.getElementById("felt");
  window.__ends.push({
    text,
    figures: felt.querySelectorAll(".played figure").length,
    last: [...felt.querySelectorAll(".played figure.last img")].map((i) => i.dataset.card),
  });
}).observe(document, { childList: true, subtree: true });
"""

# What must hold on the screen at any moment: returns what does not.
CHECK = """
() => {
  const wrong = [];
  const vw = window.innerWidth, vh = window.innerHeight;
  if (document.documentElement.scrollWidth > vw) {
    const wide = [...document.querySelectorAll("body *")]
      .filter((n) => n.getBoundingClientRect().right > vw + 1)
      .slice(0, 3).map((n) => n.tagName + "." + n.className + "#" + n.id);
    wrong.push("sideways scroll " + document.documentElement.scrollWidth + " " + wide.join(" "));
  }
  const inView = (node) => {
    const r = node.getBoundingClientRect();
    return r.top >= -1 && r.bottom <= vh + 1 && r.left >= -1 && r.right <= vw + 1;
  };
  for (const button of document.querySelectorAll("#dock button:not([disabled]), #dock select")) {
    if (!inView(button)) wrong.push("out of view: " + (button.textContent || button.id));
  }
  const worth = document.getElementById("worth");
  // (R40: of the hand in play. While the felt holds a duel's end, the head names that ended
  // duel and the dock is already the next hand's, which may be a hand of señas: the page
  // offers señas only when the view's hand is no duel, so that is the one moment to judge)
  const holding = (document.getElementById("felt") || { classList: { contains: () => false } })
    .classList.contains("holding");
  if (worth && worth.textContent.includes("⚔️") && !holding && document.getElementById("sign")) {
    wrong.push("señas offered in a pica-pica hand");
  }
  const pending = document.getElementById("pending");
  if (pending && document.querySelector("#calls button") && !inView(pending)) {
    wrong.push("pending out of view");
  }
  const felt = document.getElementById("felt");
  // The head names the hand the felt shows (issue 72: "Mano 12" over hand 10's cards), and a
  // hand's end held on the felt is that hand's.
  const headHand = worth && (/\\d+/.exec(worth.textContent) || [])[0];
  if (felt && headHand && felt.dataset.hand !== headHand) {
    wrong.push(`the head says hand ${headHand}, the felt shows hand ${felt.dataset.hand}`);
  }
  const banner = document.getElementById("hand-end");
  if (felt && banner && felt.classList.contains("holding") &&
      banner.dataset.hand !== felt.dataset.hand) {
    wrong.push(`hand ${banner.dataset.hand}'s end over hand ${felt.dataset.hand}'s cards`);
  }
  // Your turn, said in words whenever your seat's plate is lit, in view; on a wide screen in
  // large type (issue 72: a yellow plate and blue rings, small at 1280).
  const me = [...document.querySelectorAll("#felt .seat")].find((s) =>
    /\\((vos|you)\\)$/.test((s.querySelector(".name") || {}).textContent || ""));
  const yours = document.getElementById("your-turn");
  const waited = !!me && me.classList.contains("turn") && !document.getElementById("over");
  if (waited && !(yours && inView(yours) && yours.textContent.trim())) {
    wrong.push("your turn not said in words");
  }
  if (!waited && yours) wrong.push("your turn said when it is not: " + yours.textContent);
  if (yours && vw >= 900 && parseFloat(getComputedStyle(yours).fontSize) < 18) {
    wrong.push("your turn in small type on a wide screen");
  }
  // A pica-pica duel you are out of: your seat as bright as ever, and the page says whose duel
  // plays and when yours comes (issue 72: dimmed to 45%, little to look at).
  if (me && me.classList.contains("apart")) {
    if (parseFloat(getComputedStyle(me).opacity) < 1) wrong.push("your seat dimmed");
    const note = document.getElementById("duel-note");
    if (!(note && inView(note) && note.textContent.trim())) wrong.push("whose duel not said");
  }
  // No line of the record cut by its box (issue 72: sliced at 360×640 during a hand's end).
  const lines = document.getElementById("lines");
  if (lines && lines.clientHeight) {
    const box = lines.getBoundingClientRect();
    const top = box.top + lines.clientTop, bottom = top + lines.clientHeight;
    const texts = document.createTreeWalker(lines, NodeFilter.SHOW_TEXT);
    for (let node; (node = texts.nextNode());) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        const shown = Math.min(r.bottom, bottom) - Math.max(r.top, top);
        if (shown > 0.5 && shown < r.height - 0.5) {
          wrong.push(`a line of the record cut (${Math.round(shown)}/${Math.round(r.height)} px): `
            + node.textContent.trim().slice(0, 40));
        }
      }
    }
  }
  // A finger's room at every control (a fingertip of 44 px centred on it lands on it wherever
  // it touches); no text under 12 px; a rival's card backs 14 px wide at least (issue 72).
  const TIP = [[0, 0], [21.5, 0], [-21.5, 0], [0, 21.5], [0, -21.5],
    [15.2, 15.2], [15.2, -15.2], [-15.2, 15.2], [-15.2, -15.2]];
  for (const control of document.querySelectorAll("#app button, #app summary, #app select")) {
    const r = control.getBoundingClientRect();
    if (!r.width || !r.height || !inView(control)) continue;
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const reach = TIP.map(([dx, dy]) => document.elementFromPoint(x + dx, y + dy));
    if (!reach.every((hit) => hit && control.contains(hit))) {
      wrong.push(`no finger's room: ${control.id || control.textContent.trim().slice(0, 20)} ` +
        `${Math.round(r.width)}×${Math.round(r.height)}`);
    }
  }
  for (const node of document.querySelectorAll("#app *")) {
    if (![...node.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    if (!node.getBoundingClientRect().width) continue;
    const size = parseFloat(getComputedStyle(node).fontSize);
    if (size < 11.95) wrong.push(`text of ${size} px: ${node.textContent.trim().slice(0, 20)}`);
  }
  const back = document.querySelector("#felt .backs img");
  if (back && back.getBoundingClientRect().width < 14) {
    const r = back.getBoundingClientRect();
    wrong.push(`a rival's card backs ${Math.round(r.width)}×${Math.round(r.height)} px`);
  }
  if (felt) {
    const players = felt.querySelectorAll(".seat:not(.apart)").length;  // (a duel: two)
    const byRound = {};
    for (const f of felt.querySelectorAll(".played figure")) {
      (byRound[f.dataset.round] ||= []).push(f);
    }
    for (const [round, figures] of Object.entries(byRound)) {
      const done = figures.length === players;
      const marked = figures.some((f) => f.classList.contains("won")) ||
        figures.every((f) => f.classList.contains("parda"));
      // (a round may end early: the rest go to the mazo; a complete one is always marked)
      if (done && !marked) wrong.push("round " + round + " unmarked");
    }
  }
  return wrong;
}
"""


def kinds(wrong: list[str]) -> str:
    """What was wrong, each kind once (its numbers left out) with how often and its first
    instance: a walk's thousand findings read at a glance."""
    seen: dict[str, list[str]] = {}
    for found in wrong:
        what = re.sub(r"^step \d+ at (\{[^}]*\}|\d+): ", "", found)
        seen.setdefault(re.sub(r"\d+", "#", what), []).append(found)
    return "\n".join(f"{len(all_)} × {all_[0]}" for all_ in seen.values())


Look = tuple[Literal["light", "dark"], dict[str, int]]  # a scheme and a window's size


async def take(page: Page, look: Look, scheme: bool = True) -> None:
    """The window at this size and scheme (`scheme=False`: at this size, in the scheme it has),
    and the page's own answer to a resize (which the browser would run at its next frame) run
    now."""
    colors, size = look
    await page.set_viewport_size(size)
    if scheme:
        await page.emulate_media(color_scheme=colors)
    await page.evaluate('() => window.dispatchEvent(new Event("resize"))')


async def play_to_the_end(
    page: Page, checks: bool = True, duel_shot: str = "", looks: tuple[Look, ...] = ()
) -> list[str]:
    """Play through the page until the match ends, checking the screen at every step (at each
    of `looks`' sizes in turn, the window left at the next look: each tap is made at another
    size and scheme), and, with `duel_shot`, a screenshot of the first pica-pica duel on the
    felt. (The sizes are checked in the scheme the window has: a scheme changes colors alone,
    test_the_schemes_differ_in_colors_alone.)"""
    wrong: list[str] = []
    for step in range(4000):  # a match to 15 is about 60 moves; the deadline is generous
        if await page.locator("#over").count():
            break
        if checks:
            for look in looks or ((None, None),):  # type: ignore[assignment]
                if look[1] is not None:
                    await take(page, look, scheme=False)
                found = await page.evaluate(CHECK)
                wrong += [f"step {step} at {look[1]}: {x}" for x in found]
            if len(looks) > 1:
                await take(page, looks[step % len(looks)])
        if duel_shot and await page.locator("#worth", has_text="⚔️").count():
            await page.screenshot(path=ARTIFACTS / duel_shot)
            duel_shot = ""
        if not await play_something(page):
            await page.wait_for_timeout(40)
    await expect(page.locator("#over")).to_be_visible()
    return wrong


def test_the_schemes_differ_in_colors_alone() -> None:
    """Every rule of the page's style that only the dark or the light scheme reads (a
    `prefers-color-scheme` block, a `.dark` or `.light` selector) sets a custom property to a
    color, and nothing else: the layout at a size is the same in both schemes, so the walks
    check each size in the scheme the window has."""
    css = re.sub(r"/\*.*?\*/", "", STYLE.read_text(), flags=re.S)
    scheme = re.compile(r"prefers-color-scheme|\.(dark|light)\b")
    found: list[tuple[str, str]] = []
    preludes: list[str] = []
    text = ""
    for char in css:
        if char == "{":
            preludes.append(text.strip())
            text = ""
        elif char == "}":
            if any(scheme.search(p) for p in preludes):
                for declaration in filter(str.strip, text.split(";")):
                    name, _, value = declaration.partition(":")
                    found.append((name.strip(), value.strip()))
            preludes.pop()
            text = ""
        else:
            text += char
    assert {"--bg", "--fg", "--felt"} <= {name for name, _ in found}  # (the dark colors, read)
    for name, value in found:
        assert name.startswith("--") and re.fullmatch(r"#[0-9a-fA-F]{3,8}", value), (name, value)


SIDEWAYS = "document.documentElement.scrollWidth - window.innerWidth"


async def new_table(page: Page, url: str, **choices: str) -> None:
    await page.goto(url)
    assert await page.evaluate(SIDEWAYS) <= 0  # the name form: no sideways scroll
    await enter(page, url, "Ana")
    assert await page.evaluate(SIDEWAYS) <= 0  # the options form neither
    for field, value in {"target": "15", "level": "facil", **choices}.items():
        await page.select_option(f"#{field}", value)
    await page.click("#play")
    await expect(page.locator("#hand img")).to_have_count(3)


def hands_of(ends: list[dict[str, Any]]) -> set[int]:
    """The hands whose end a banner told (ends that came together share one)."""
    return {int(n) for e in ends for n in re.findall(r"Mano (\d+)", e["text"])}


PHONE: dict[str, int] = {"width": 360, "height": 640}
# Each mode's walk: the sizes its window takes in turn, each in its scheme (a phone first: the
# replay is stepped through there).
WALKS: dict[str, tuple[Look, ...]] = {
    "1v1": (("light", PHONE), ("dark", {"width": 1280, "height": 800})),
    "2v2": (
        ("dark", PHONE),
        ("light", {"width": 390, "height": 844}),
        ("light", {"width": 1280, "height": 800}),
    ),
    "3v3": (("dark", PHONE),),  # pica-pica hands in it
}


# How much of the record (the last hand's end, the bets) is scrolled out of its box, in px.
RECORD_HIDDEN = "() => { const l = document.querySelector('#lines');" \
    " return l.scrollHeight - l.clientHeight; }"


@pytest.mark.parametrize("mode", list(WALKS))
async def test_a_whole_match_with_everything_in_view(
    browser: Browser, local_url: str, mode: str
) -> None:
    """A whole match through the page, its window taking each of the mode's sizes (and schemes)
    in turn, the screen checked at every size at every step; every hand's end drawn; the
    rematch; the finished match replayed action by action on the phone, each frame as its log
    says (told_whole), and hand by hand back on the other sizes."""
    looks = WALKS[mode]
    scheme, size = looks[0]
    context = await browser.new_context(viewport=size, color_scheme=scheme, locale="es-AR")
    await context.add_init_script(WATCH_ENDS)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await new_table(page, local_url, mode=mode)
    ARTIFACTS.mkdir(exist_ok=True)

    async def shoot(moment: str, on: Page = page) -> None:
        for look in looks:
            await take(on, look)
            assert await on.evaluate(SIDEWAYS) <= 0, (moment, look)  # no sideways scroll
            if moment == "over":  # no controls left: the last hand's record whole, no line cut
                assert await on.evaluate(RECORD_HIDDEN) <= 1, look
            await on.screenshot(
                path=ARTIFACTS / f"web-{mode}-{look[0]}-{look[1]['width']}-{moment}.png"
            )

    await shoot("start")
    await take(page, looks[0])
    duel = f"web-{mode}-{scheme}-{size['width']}-duel.png" if mode == "3v3" else ""
    wrong = await play_to_the_end(page, duel_shot=duel, looks=looks)
    await shoot("over")
    await take(page, looks[0])
    assert wrong == [], kinds(wrong)
    # Every hand's end was drawn, the first to the last, and where cards were played the last
    # of them lit, one card.
    last_hand = int(re.findall(r"\d+", await page.locator("#worth").text_content() or "")[0])
    await page.wait_for_function(  # (the ends the page had not shown yet, one after another)
        "n => window.__ends.some((e) => new RegExp('Mano ' + n + '\\\\D').test(e.text))",
        arg=last_hand,
    )
    ends = await page.evaluate("window.__ends")
    hands = hands_of(ends)
    assert max(hands) == last_hand
    assert hands == set(range(1, max(hands) + 1)), (hands, [e["text"][:80] for e in ends][:6])
    assert all(len(e["last"]) == 1 for e in ends if e["figures"]), ends
    assert any(e["figures"] for e in ends)
    if mode == "3v3":  # pica-pica hands were played, each duel's end drawn
        assert await page.evaluate("window.__duels") > 0
        assert any("duelo" in e["text"] for e in ends)
    # The match's end: the winner, the final score, and the rematch.
    await expect(page.locator("#final")).to_contain_text("Resultado final")
    final = await page.locator("#final").text_content()
    old = page.url
    await page.click("#rematch")
    await expect(page).not_to_have_url(old)  # the new table, the same seats
    await expect(page.locator("#over")).to_have_count(0)
    await expect(page.locator("#hand img")).to_have_count(3)
    # The finished match, watched again on the phone (a window of its own that may run axe's
    # script, the player's session in it): every action one step at a time, each frame as its
    # log says, the deals checked against the seal by the page itself, then a hand at a time
    # (tests/web/test_replay_page.py's told_whole); then at the final frame at every size, and
    # walked back hand by hand on the other sizes. (Imported here: that file imports this one.)
    from tests.web.test_replay_page import told_whole

    table = re.search(r"table=(\d+)", old)
    assert table is not None
    replay = await browser.new_context(
        viewport=size, color_scheme="light", locale="es-AR", bypass_csp=True
    )
    await replay.add_cookies(await context.cookies())
    watch = await replay.new_page()
    watch.on("pageerror", lambda e: errors.append(str(e)))  # (the replay's too, to the end)
    frames, headers = await told_whole(watch, local_url, table.group(1), mode)
    assert frames > 20
    hands_seen = {header.split(" · ")[0] for header in headers}
    assert len(hands_seen) == max(hands)
    count = watch.locator("#replay-count")
    await watch.locator("#replay-at").fill(str(frames - 1))  # (the slider, to the last frame)
    await expect(count).to_have_text(f"{frames} de {frames}")
    await expect(watch.locator("#final")).to_have_text(final or "")
    await shoot("replay", watch)
    # (the other sizes: back to the first frame a hand at a time, each hand's frames seen)
    back: set[str] = set()
    for turn in range(1, 4 * max(hands)):
        await take(watch, looks[turn % len(looks)])
        if await count.text_content() == f"1 de {frames}":
            break
        await watch.click("#replay-prev-hand")
        back.add((await watch.locator("#worth").text_content() or "").split(" · ")[0])
    await expect(count).to_have_text(f"1 de {frames}")
    assert back == hands_seen, (back, hands_seen)
    # A way back from the replay: to the match's table, its end (issue 72: none).
    await watch.get_by_role("button", name=re.compile("Volver")).click()
    await expect(watch.locator("#final")).to_have_text(final or "")
    await expect(watch).to_have_url(re.compile(rf"table={table.group(1)}\b"))
    await replay.close()
    await context.close()
    assert errors == []


async def test_a_chant_waits_with_its_answers_in_view(browser: Browser, local_url: str) -> None:
    """The screenshots of the moments a player sees (the start, a chant waiting, a hand's end),
    and the answers to a chant inside the phone's screen."""
    for scheme in ("light", "dark"):
        context = await browser.new_context(
            viewport={"width": 360, "height": 640}, color_scheme=scheme, locale="es-AR"
        )
        page = await context.new_page()
        await new_table(page, local_url, mode="2v2", target="30")
        for _ in range(3000):
            if await page.locator("#pending").count() and await page.locator("#calls").count():
                break
            if await page.locator("#over").count():
                pytest.fail("no chant waited on Ana in a whole match")
            # Ana plays her cards and chants nothing: the computer players chant to her side.
            cards = page.locator("#hand button.card:not([disabled])")
            try:  # (the page may redraw under the tap: then it is simply tried again)
                await cards.first.click(timeout=500)
            except PlaywrightError:
                await page.wait_for_timeout(40)
        await page.screenshot(path=ARTIFACTS / f"web-chant-{scheme}.png")
        for node in await page.locator("#calls button, #pending").all():
            box = await node.bounding_box()
            assert box is not None and box["y"] + box["height"] <= 640, await node.text_content()
        # Answered with the keyboard alone: the first answer takes the focus, Enter says it.
        before = await page.locator("#pending").text_content()
        await page.locator("#calls button").first.focus()
        await page.keyboard.press("Enter")
        await page.wait_for_function(
            "t => (document.getElementById('pending') || {}).textContent !== t", arg=before
        )
        # The hand's end, held on the felt with its banner and its last card lit.
        for _ in range(3000):
            if await page.locator("#hand-end").count():
                break
            if not await play_something(page):
                await page.wait_for_timeout(40)
        await expect(page.locator("#hand-end")).to_be_visible()
        await page.screenshot(path=ARTIFACTS / f"web-hand-end-{scheme}.png")
        await context.close()


async def test_a_new_tab_keeps_the_seat_and_the_options_are_on_the_page(
    browser: Browser, local_url: str
) -> None:
    context = await browser.new_context(viewport={"width": 360, "height": 640}, locale="es-AR")
    page = await context.new_page()
    await new_table(page, local_url, timer="30")
    # The turn's clock counts down on the seat the game waits on.
    clock = page.locator(".seat.turn .clock .secs").first
    await expect(clock).to_have_text(re.compile(r"\d+ s"))
    first = int((await clock.text_content() or "0 s").split()[0])
    await expect(clock).not_to_have_text(f"{first} s", timeout=10_000)
    assert int((await clock.text_content() or "0 s").split()[0]) < first
    # The options and the seal, explained on the page.
    await page.click("#options summary")
    await expect(page.locator("#options .panel")).to_contain_text("Tiempo por jugada: 30 s")
    await expect(page.locator("#options .panel")).to_contain_text("la repetición")
    # (the local table is not Telegram: no /verificar, a Telegram command)
    await expect(page.locator("#options .panel")).not_to_contain_text("/verificar")
    # Another tab of the same browser: the same person, in the same seat, with the same cards.
    cards = await page.locator("#hand img").evaluate_all("els => els.map(e => e.dataset.card)")
    other = await context.new_page()
    await other.goto(page.url)
    await expect(other.locator("#hand img")).to_have_count(3)
    again = await other.locator("#hand img").evaluate_all("els => els.map(e => e.dataset.card)")
    assert again == cards
    assert await other.locator("#name").count() == 0  # (no name asked again)
    await context.close()


async def test_the_3v3_options_are_asked_at_a_table_of_six_only(
    browser: Browser, local_url: str
) -> None:
    """Pica-pica and the falta in a duel (R42's option) on the new-table form: hidden until
    3v3 is chosen, and the table plays what was chosen (its options panel says so)."""
    context = await browser.new_context(viewport={"width": 360, "height": 640}, locale="es-AR")
    page = await context.new_page()
    await page.goto(local_url)
    await enter(page, local_url, "Ana")
    await expect(page.locator("#pica")).to_be_hidden()
    await page.select_option("#mode", "3v3")
    await expect(page.locator("#pica")).to_be_visible()
    await page.select_option("#pica", "6")
    await page.select_option("#level", "facil")
    await page.click("#play")
    await expect(page.locator("#hand img")).to_have_count(3)
    await page.click("#options summary")
    await expect(page.locator("#options .panel")).to_contain_text("falta 6 en duelo")
    await context.close()


async def test_the_pages_pass_the_accessibility_check(browser: Browser, local_url: str) -> None:
    """axe-core on the name form, the new table form and the table, light and dark: no serious
    or critical violation."""
    axe = Axe()
    found: list[str] = []
    for scheme in ("light", "dark"):
        context = await browser.new_context(
            viewport={"width": 360, "height": 640}, color_scheme=scheme, locale="es-AR",
            bypass_csp=True,  # (axe's script is injected by the test, not served by the page)
            # (the page as it rests: a chant's bubble caught mid-pop, faded in, failed the
            # contrast check once in a whole run; its colors at rest are what is judged)
            reduced_motion="reduce",
        )  # fmt: skip
        page = await context.new_page()
        await page.goto(local_url)
        await expect(page.locator("#name")).to_be_visible()
        results = [("name", await axe.run(page))]
        await page.fill("#name", "Ana")
        await page.click("#enter")
        await expect(page.locator("#new")).to_be_visible()
        results.append(("new", await axe.run(page)))
        await page.select_option("#mode", "2v2")
        await page.click("#play")
        await expect(page.locator("#hand img")).to_have_count(3)
        for _ in range(6):
            await play_something(page)
        # (the computer players' answers in: the page offers the player something again)
        await page.wait_for_function(
            "s => document.querySelector(s)", arg=f"{PLAYABLE}, #calls button", timeout=20_000
        )
        results.append(("table", await axe.run(page)))
        for screen, result in results:
            assert result.response["passes"], screen  # (axe ran its rules on the page)
            for violation in result.response["violations"]:
                if violation["impact"] in ("serious", "critical"):
                    nodes = [n["target"] for n in violation["nodes"]][:3]
                    found.append(f"{scheme} {screen}: {violation['id']} {nodes}")
        await context.close()
    assert found == []


async def test_the_forty_cards_as_a_sheet(browser: Browser, local_url: str) -> None:
    """The baraja as the server draws it, on a phone's screen, light and dark: every card loads
    (screenshots in artifacts/ to look at)."""
    from bot.game import DECK

    for scheme in ("light", "dark"):
        context = await browser.new_context(
            viewport={"width": 360, "height": 640}, color_scheme=scheme, device_scale_factor=2
        )
        page = await context.new_page()
        await page.goto(f"{local_url}/static/style.css")  # (an empty page of the server)
        images = "".join(f'<img src="/cards/{c.code}.svg?lang=es" width="52" alt="">' for c in DECK)
        await page.evaluate(
            "html => { document.body.innerHTML = html; document.body.style.background ="
            " matchMedia('(prefers-color-scheme: dark)').matches ? '#17191c' : '#2e6b45'; }",
            images,
        )
        await page.wait_for_function(
            "() => [...document.images].every((i) => i.complete && i.naturalWidth > 0)"
        )
        assert await page.locator("img").count() == 40
        await page.screenshot(path=ARTIFACTS / f"cards-sheet-{scheme}.png", full_page=True)
        await context.close()
