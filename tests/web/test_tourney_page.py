"""A tournament's bracket on the web table, in a real browser: drawn as SVG with every tie,
links to watch the match in play and to replay the finished ones; a liguilla's table; looked
at on a phone (light and dark) and a desktop."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, Page, expect

from bot.game import MatchConfig
from bot.league.tournament import Format, Status, Tournament
from bot.service.core import Core
from bot.storage.connect import open_database
from bot.storage.repo import Store
from bot.web.auth import LOCAL_CHAT
from bot.web.local import run_local
from tests.service.test_league import play_out
from tests.web.conftest import ARTIFACTS, local_settings
from tests.web.test_local_table import enter

NAMES = ["Ana", "Beto", "Caro", "Dani", "Eva", "Fede", "Gabi", "Hugo"]


async def a_tournament(
    path: Path, fmt: Format, people: int, leave_live: bool, names: list[str] = NAMES
) -> int:
    """A tournament of the local table's group played (by the core, as players would) up to
    its last tie, which is left in play (`leave_live`), or to its end."""
    db = await open_database(path)
    core = Core.build(Store(db), seed=2)
    try:
        for user, name in enumerate(names[:people], start=1):
            await core.people.see(user, name, None)
        base = Tournament(0, LOCAL_CHAT, 0, 1, "es", 0.0, 0.0, format=fmt,
                          config=MatchConfig(target=15, flor=False))  # fmt: skip
        t = await core.tournaments.open(LOCAL_CHAT, 0, 1, "es", base)
        for user in range(1, people + 1):
            await core.tournaments.sign(t.id, user)
        await core.tournaments.begin(t.id, 1, False)
        await core.tournaments.idle()
        for _ in range(60):
            found = await core.tournaments.get(t.id)
            assert found is not None
            undecided = [f for f in found.fixtures if not f.decided]
            if found.status is not Status.RUNNING or (leave_live and len(undecided) == 1):
                break
            for table_id in (await core.tournaments.tables_of(t.id)).values():
                table = await core.tables.get(table_id)
                if table is not None and table.is_open:
                    await play_out(core, table_id, loser_side=1)
            await core.tournaments.idle()
        return t.id
    finally:
        await core.tournaments.idle()
        await db.close()


@contextlib.asynccontextmanager
async def serving(path: Path) -> AsyncIterator[str]:
    """The local table on this database, served in this process."""
    stop = asyncio.Event()
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(run_local(local_settings(path), stop, ready=port.set_result))
    try:
        yield f"http://127.0.0.1:{await asyncio.wait_for(port, 30)}"
    finally:
        stop.set()
        await asyncio.wait_for(task, 30)


@pytest.mark.parametrize(
    ("scheme", "size"),
    [
        ("light", {"width": 360, "height": 640}),
        ("dark", {"width": 360, "height": 640}),
        ("light", {"width": 1280, "height": 800}),
    ],
)
async def test_the_bracket_drawn_with_links_to_watch_and_replay(
    browser: Browser, tmp_path: Path, scheme: str, size: dict[str, int]
) -> None:
    path = tmp_path / "local.db"
    number = await a_tournament(path, Format.KNOCKOUT, 8, leave_live=True)
    async with serving(path) as url:
        context = await browser.new_context(viewport=size, color_scheme=scheme, locale="es-AR")
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await enter(page, url, "Mirón")
        await page.goto(f"{url}/?tourney={number}")
        await expect(page.locator("#tourney svg g.tie")).to_have_count(7)
        await expect(page.locator("#tourney h1")).to_have_text(f"🏆 Torneo #{number}")
        # three rounds by name; six ties played (a replay each), the final in play (watch it)
        rounds = await page.locator("#tourney svg text.round").all_text_contents()
        assert rounds == ["Cuartos de final", "Semifinales", "Final"]
        await expect(page.locator("#tourney svg a[href^='?replay=']")).to_have_count(6)
        await expect(page.locator("#tourney svg a[href^='?table=']")).to_have_count(1)
        await expect(page.locator("#tourney svg g.tie.live")).to_have_count(1)
        assert await page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / f"tourney-{scheme}-{size['width']}.png"
        await page.screenshot(path=shot, full_page=True)
        results = await Axe().run(page)
        serious = [
            v for v in results.response["violations"] if v["impact"] in ("serious", "critical")
        ]
        assert serious == [], [v["id"] for v in serious]
        # the final's link opens its table, watched; a quarter's, its replay
        await page.locator("#tourney svg a[href^='?table=']").click()
        await expect(page.locator("#felt, .felt, #worth").first).to_be_visible()
        await page.goto(f"{url}/?tourney={number}")
        await page.locator("#tourney svg a[href^='?replay=']").first.click()
        await expect(page).to_have_url(re.compile(r"replay=\d+"))
        await expect(page.locator("#replay, .replay, #steps").first).to_be_visible()
        assert errors == []
        await context.close()


async def test_a_liguilla_shows_its_table_and_its_champion(
    browser: Browser, tmp_path: Path
) -> None:
    path = tmp_path / "local.db"
    number = await a_tournament(path, Format.LEAGUE, 4, leave_live=False)
    async with serving(path) as url:
        context = await browser.new_context(viewport={"width": 360, "height": 640}, locale="es-AR")
        page = await context.new_page()
        await enter(page, url, "Mirón")
        await page.goto(f"{url}/?tourney={number}")
        await expect(page.locator("#champion")).to_contain_text("Campeón: ")
        champion = (await page.locator("#champion").text_content() or "").split(": ")[1]
        assert champion in NAMES
        rows = page.locator("#standings tbody tr")
        await expect(rows).to_have_count(4)
        await expect(rows.first).to_contain_text(champion)  # the table's first is the champion
        await expect(page.locator("#rounds a[href^='?replay=']")).to_have_count(6)
        await page.screenshot(path=ARTIFACTS / "tourney-liguilla-360.png", full_page=True)
        await context.close()


WIDE = [
    "M" * 18,
    "Ｗ" * 18,
    "W" * 18,
    "Ana",
    "ＭＭＭＭＭＭＭＭＭＭＭＭＭＭＭＭＭＭ",
    "Beto",
    "ÆÆÆÆÆÆÆÆÆÆÆÆÆÆÆÆÆÆ",
    "Caro",
]
# Each name's drawn box against its tie's box and the other texts on its lines (the score,
# "en juego", "sin jugar"), as the browser lays them out.
OVERFLOWS = """() => {
  const out = [];
  for (const tie of document.querySelectorAll("#tourney svg g.tie")) {
    const box = tie.querySelector("rect").getBBox();
    const others = [...tie.querySelectorAll("text:not(.name)")].map((t) => t.getBBox());
    for (const name of tie.querySelectorAll("text.name")) {
      const b = name.getBBox();
      const text = name.querySelector("tspan").textContent;
      if (b.x + b.width > box.x + box.width - 4) out.push(["box", text]);
      for (const o of others) {
        const across = b.x < o.x + o.width && o.x < b.x + b.width;
        const along = b.y < o.y + o.height && o.y < b.y + b.height;
        if (across && along) out.push(["text", text]);
      }
    }
  }
  return out;
}"""


@pytest.mark.parametrize("size", [{"width": 360, "height": 640}, {"width": 1280, "height": 800}])
async def test_a_long_name_of_wide_letters_stays_in_its_box(
    browser: Browser, tmp_path: Path, size: dict[str, int]
) -> None:
    """18 wide letters (M, W, Æ, their full-width forms) fit their tie's box, cut with "…"
    where they must, clear of the score and the notes; the whole name is still there to read
    (the name's title, the tie's label)."""
    path = tmp_path / "local.db"
    number = await a_tournament(path, Format.KNOCKOUT, 8, leave_live=True, names=WIDE)
    async with serving(path) as url:
        context = await browser.new_context(viewport=size, locale="es-AR")
        page = await context.new_page()
        await enter(page, url, "Mirón")
        await page.goto(f"{url}/?tourney={number}")
        await expect(page.locator("#tourney svg g.tie")).to_have_count(7)
        await expect(page.locator("#tourney svg text.name").first).to_be_visible()
        assert await page.evaluate(OVERFLOWS) == []
        shown = await page.locator("#tourney svg text.name").evaluate_all(
            "els => els.map(e => [e.querySelector('title').textContent,"
            " e.querySelector('tspan').textContent])"
        )
        cut = [(full, text) for full, text in shown if full in WIDE and len(full) == 18]
        assert cut and all(text.endswith("…") for _, text in cut), shown
        assert {full for full, _ in shown} <= {*WIDE, "?"}
        await page.screenshot(path=ARTIFACTS / f"tourney-wide-names-{size['width']}.png")
        await context.close()


async def an_arena(path: Path, people: int, waves: int) -> int:
    """An arena of the local table's group: `waves` times every match in play is played out
    (the side at table side 1 loses), then the next pairs are left in play."""
    db = await open_database(path)
    core = Core.build(Store(db), seed=2)
    try:
        for user, name in enumerate(NAMES[:people], start=1):
            await core.people.see(user, name, None)
        base = Tournament(0, LOCAL_CHAT, 0, 1, "es", 0.0, 0.0, format=Format.ARENA,
                          config=MatchConfig(target=15, flor=False))  # fmt: skip
        t = await core.tournaments.open(LOCAL_CHAT, 0, 1, "es", base)
        for user in range(1, people + 1):
            await core.tournaments.sign(t.id, user)
        await core.tournaments.begin(t.id, 1, False)
        await core.tournaments.idle()
        for _ in range(waves):
            for table_id in (await core.tournaments.tables_of(t.id)).values():
                table = await core.tables.get(table_id)
                if table is not None and table.is_open:
                    await play_out(core, table_id, loser_side=1)
            await core.tournaments.idle()
            await core.tournaments.settle(t.id)
            await core.tournaments.idle()
        return t.id
    finally:
        await core.tournaments.idle()
        await db.close()


ARENA_SIZES = [
    ("light", {"width": 360, "height": 640}),
    ("dark", {"width": 360, "height": 640}),
    ("light", {"width": 1280, "height": 800}),
    ("dark", {"width": 1280, "height": 800}),
]


async def looked_at(page: Page, name: str) -> None:
    """No sideways scroll, a screenshot, and no serious finding of axe."""
    assert await page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)
    results = await Axe().run(page)
    serious = [v for v in results.response["violations"] if v["impact"] in ("serious", "critical")]
    assert serious == [], [v["id"] for v in serious]


@pytest.mark.parametrize(("scheme", "size"), ARENA_SIZES)
async def test_an_arena_shows_its_leaderboard_not_a_round_a_match(
    browser: Browser, tmp_path: Path, scheme: str, size: dict[str, int]
) -> None:
    path = tmp_path / "local.db"
    number = await an_arena(path, 6, waves=3)
    async with serving(path) as url:
        context = await browser.new_context(viewport=size, color_scheme=scheme, locale="es-AR")
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await enter(page, url, "Mirón")
        await page.goto(f"{url}/?tourney={number}")
        rows = page.locator("#standings tbody tr")
        await expect(rows).to_have_count(6)
        heads = await page.locator("#standings thead th").all_text_contents()
        assert heads == ["#", "Jugador", "Pts", "Racha", "PJ", "Ahora"]
        # three matches played each: a win scores 2, the third in a row double (🔥 after two)
        points = [int(x) for x in await page.locator("#standings tbody td:nth-child(3)")
                  .all_text_contents()]  # fmt: skip
        assert points == sorted(points, reverse=True) and sum(points) > 0
        assert all(x == "3" for x in await page.locator("#standings tbody td:nth-child(5)")
                   .all_text_contents())  # fmt: skip
        await expect(page.locator("#standings tbody tr.playing")).to_have_count(6)
        # no round a match: the matches in play to watch, the ones played to replay
        await expect(page.locator("#in-play a[href^='?table=']")).to_have_count(3)
        await expect(page.locator("#played a[href^='?replay=']")).to_have_count(9)
        await expect(page.locator("#rounds b", has_text="Ronda")).to_have_count(0)
        await looked_at(page, f"tourney-arena-{scheme}-{size['width']}")
        assert errors == []
        await context.close()


@pytest.mark.parametrize(("scheme", "size"), ARENA_SIZES)
async def test_a_swiss_shows_its_rounds_and_its_standings_with_the_tie_breaks(
    browser: Browser, tmp_path: Path, scheme: str, size: dict[str, int]
) -> None:
    path = tmp_path / "local.db"
    number = await a_tournament(path, Format.SWISS, 7, leave_live=False)
    async with serving(path) as url:
        context = await browser.new_context(viewport=size, color_scheme=scheme, locale="es-AR")
        page = await context.new_page()
        await enter(page, url, "Mirón")
        await page.goto(f"{url}/?tourney={number}")
        rows = page.locator("#standings tbody tr")
        await expect(rows).to_have_count(7)
        heads = await page.locator("#standings thead th").all_text_contents()
        assert heads == ["#", "Jugador", "PJ", "Pts", "Desempate", "Dif"]  # (no chess jargon)
        champion = (await page.locator("#champion").text_content() or "").split(": ")[1]
        await expect(rows.first).to_contain_text(champion)
        await expect(page.locator("#rounds .panel")).to_have_count(3)  # three rounds of seven
        byes = page.locator("#rounds p", has_text="pasa directo")  # one a round, never "null"
        await expect(byes).to_have_count(3)
        await expect(page.locator("#rounds", has_text="null")).to_have_count(0)
        await looked_at(page, f"tourney-swiss-{scheme}-{size['width']}")
        await context.close()
