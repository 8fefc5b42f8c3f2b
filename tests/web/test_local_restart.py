"""A person's identity is theirs on the local try-out: the local server restarted on the same
database file gives nobody anybody's id, seat, cards or league rows, and a session from before
the restart is nobody's (issue 45: "the local try-out hands one person another's seat after a
restart")."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import aiohttp

from bot.core import Core
from bot.model.table import TableStatus
from bot.storage.connect import open_database
from bot.storage.repo import Store
from tests.web.test_tourney_page import serving


def browser(cookies: dict[str, str] | None = None) -> aiohttp.ClientSession:
    """A client that keeps the session's cookie as a browser does (for 127.0.0.1 too)."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True), cookies=cookies)


async def login(s: aiohttp.ClientSession, url: str, name: str) -> dict[str, Any]:
    async with s.post(f"{url}/api/local/login", json={"name": name}) as r:
        assert r.status == 200, await r.text()
        answer: dict[str, Any] = await r.json()
        return answer


async def get(s: aiohttp.ClientSession, url: str) -> tuple[int, Any]:
    async with s.get(url) as r:
        return r.status, await r.json()


async def finish_offline(path: Path, table_id: int) -> None:
    """Between two runs: the match played to its end on the database file (the league rows of
    its players written)."""
    db = await open_database(path)
    core = Core.build(Store(db), seed=4)
    try:
        rng = random.Random(4)
        while True:
            table = await core.tables.get(table_id)
            assert table is not None and table.state is not None
            if table.state.is_over:
                assert table.status is TableStatus.FINISHED
                return
            action = rng.choice(table.state.legal_actions())
            user = table.seats[action.seat]
            assert user is not None
            if user < 0:
                await core.play.bot_act(table_id, action.seat, table.state.step, action)
            else:
                await core.play.act(table_id, user, table.state.step, action.kind, action.card)
    finally:
        await db.close()


async def test_a_restart_gives_nobody_anybodys_seat_cards_or_rows(tmp_path: Path) -> None:
    path = tmp_path / "local.db"
    ids: list[int] = []
    # First run: Ana opens two tables against the computer (one will be finished, one not).
    async with serving(path) as url, browser() as ana:
        me = await login(ana, url, "Ana")
        ids.append(me["user_id"])
        tables = []
        for _ in range(2):
            async with ana.post(f"{url}/api/local/new", json={"target": 15, "level": "facil"}) as r:
                tables.append((await r.json())["table"])
        status, view = await get(ana, f"{url}/api/table/{tables[1]}")
        assert status == 200 and view["seat"] == 0 and len(view["hand"]) == 3
        ana_cookies = {c.key: c.value for c in ana.cookie_jar}
        async with browser(ana_cookies) as tab:  # (her cookie, sent by another tab: Ana)
            assert await get(tab, f"{url}/api/local/me") == (
                200,
                {"user_id": ids[0], "name": "Ana"},
            )
    await finish_offline(path, tables[0])
    # Two more runs on the same file: whoever logs in first is somebody new.
    for run, name in enumerate(("Beto", "Carla")):
        async with serving(path) as url:
            async with browser(ana_cookies) as stale:
                status, me = await get(stale, f"{url}/api/local/me")
                assert status == 200 and me == {"user_id": None, "name": None}, run
                status, _ = await get(stale, f"{url}/api/table/{tables[1]}")
                assert status == 401, run
            async with browser() as someone:
                me = await login(someone, url, name)
                assert me["user_id"] not in ids, (run, me, ids)
                ids.append(me["user_id"])
                status, view = await get(someone, f"{url}/api/table/{tables[1]}")
                assert status == 200 and view["seat"] is None and "hand" not in view, view
                assert view["seats"][0]["name"] == "Ana"
                body = {"step": view["step"], "kind": "p", "card": "1e"}
                async with someone.post(f"{url}/api/table/{tables[1]}/act", json=body) as r:
                    assert r.status == 403, await r.text()
                status, done = await get(someone, f"{url}/api/table/{tables[0]}")
                assert done["seats"][0]["name"] == "Ana"
    # Every local id is a person's own, never a Telegram id, and a page's number holds it whole.
    assert all(2**52 <= user < 2**53 for user in ids), ids
    db = await open_database(path)
    try:
        store = Store(db)
        people = await store.players(ids)
        assert {u: p.name for u, p in people.items()} == dict(
            zip(ids, ["Ana", "Beto", "Carla"], strict=True)
        )
        done = await store.table(tables[0])
        assert done is not None and done.status is TableStatus.FINISHED
        assert ids[0] in done.seats and not set(ids[1:]) & set(done.seats)
    finally:
        await db.close()
