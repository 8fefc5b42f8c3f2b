"""With several workers on one PostgreSQL, a page connected to one worker follows a change
committed by another (whose subscribers it never hears): two cores over one database, here
in one process, as two workers would be."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import aiohttp

from bot.core import Core
from bot.game import ActionKind, MatchConfig
from bot.model.occupants import PersonKind
from bot.storage.connect import open_database
from bot.storage.repo import Store
from bot.web.auth import LocalAuth
from bot.web.hub import Hub
from bot.web.server import WebServer, WebTable
from tests import sse
from tests.pg import Cluster
from tests.waiting import until


async def test_a_page_on_one_worker_sees_a_move_made_on_another(pg_cluster: Cluster | None) -> None:
    assert pg_cluster is not None, (
        "PostgreSQL's server binaries are needed (apt-get install postgresql)"
    )
    url = pg_cluster.new_database()
    db_a, db_b = await open_database(url), await open_database(url)
    try:
        core_a, core_b = Core.build(Store(db_a)), Core.build(Store(db_b))
        hub = Hub()
        core_a.changes.subscribe(hub)
        auth = LocalAuth()
        server = WebServer(WebTable(core_a, auth, hub), hub, "127.0.0.1", 0)
        await server.start()
        ana_id = await core_a.people.new_person("Ana", PersonKind.TRYOUT)
        token, ana = auth.login("Ana", ana_id)
        beto = 8_000_000_000_999
        for user_id, name in ((ana.user_id, "Ana"), (beto, "Beto")):
            await core_a.people.see(user_id, name, None)
        config = MatchConfig(players=2, flor=False)
        table = await core_a.lobby.open(-1, 1, ana.user_id, config, "es", seat_opener=True)
        await core_b.lobby.join(table.id, beto)  # worker B: the match starts there
        views: list[dict[str, Any]] = []
        async with (
            aiohttp.ClientSession() as http,
            http.get(
                f"http://127.0.0.1:{server.port}/api/table/{table.id}/events",
                headers={"X-Local-Session": token},
            ) as stream,
        ):

            async def read() -> None:
                async for view in sse.views(stream):
                    views.append(view)

            reader = asyncio.create_task(read())
            await until(lambda: any("step" in v for v in views))
            first = next(v for v in views if "step" in v)
            fresh = await core_b.tables.get(table.id)
            assert fresh is not None and fresh.state is not None
            mover = fresh.seats[fresh.state.legal_actions()[0].seat]
            assert mover is not None
            card = next(a.card for a in fresh.state.legal_actions() if a.card is not None)
            started = time.monotonic()
            await core_b.play.act(table.id, mover, first["step"], ActionKind.PLAY, card)
            await until(lambda: any(v.get("step", 0) > first["step"] for v in views))
            took = time.monotonic() - started
            reader.cancel()
        print(f"a move on worker B reached a page on worker A in {took * 1000:.0f} ms")
        later = [v for v in views if v.get("step", 0) > first["step"]]
        assert later and any(r and r[0]["card"] == card.code for r in later[-1]["rounds"])
        await server.stop()
    finally:
        await db_a.close()
        await db_b.close()
