"""The web table's assembly (aiohttp): `WebTable`, its routes on one application, and the
server that runs it (`serve` for the try-out, `WebServer` beside the bot).

Its rooms: `auth.py` (who asks: Telegram's signed launch data in a header for the Mini App, or
the try-out's session, a header or its SameSite=Strict cookie, in local mode only), `hub.py`
(the live side: the core's subscriber, server-sent events, other workers' notices),
`routes.py` (the routes every web table has; each that changes something checks what its
Telegram button checks), `tryout.py` (the try-out's own routes), `guard.py` (the edge every
request meets first).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

from aiohttp import web

from bot.web.guard import guarded
from bot.web.hub import Hub
from bot.web.routes import MAX_BODY
from bot.web.tryout import TryOutRoutes

log = logging.getLogger(__name__)


class WebTable(TryOutRoutes):
    """The routes on one application. `local` adds the try-out's own: a name, and a new table
    with bots."""

    def app(self) -> web.Application:
        app = web.Application(
            client_max_size=MAX_BODY, middlewares=[guarded(self.local is not None)]
        )
        app.router.add_get("/", self.page)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_get("/cards/{code}.svg", self.card)
        app.router.add_get("/api/words/{language}", self.words)
        table = "/api/table/{id:[0-9]{1,15}}"
        app.router.add_get(table, self.get_table)
        app.router.add_post(table + "/act", self.act)
        app.router.add_post(table + "/sign", self.sign)
        app.router.add_post(table + "/hint", self.hint)
        app.router.add_post(table + "/handoff", self.handoff)
        app.router.add_post(table + "/rematch", self.rematch)
        app.router.add_get(table + "/replay", self.replay)
        app.router.add_get(table + "/review", self.review)
        app.router.add_post(table + "/review/answer", self.review_answer)
        app.router.add_get(table + "/events", self.events)
        app.router.add_get("/api/tourney/{id:[0-9]{1,15}}", self.get_tourney)
        if self.local is not None:
            app.router.add_post("/api/local/login", self.local_login)
            app.router.add_get("/api/local/me", self.local_me)
            app.router.add_post("/api/local/new", self.local_new)
            app.router.add_get("/api/local/tables", self.local_tables)
            app.router.add_post(table + "/join", self.local_join)
        return app


@contextlib.asynccontextmanager
async def serve(
    app: web.Application, host: str, port: int, hub: Hub | None = None
) -> AsyncIterator[web.AppRunner]:
    """The web table on `host:port` while the block runs."""
    # A client that leaves ends its request at once (a stream it watched closes then, not at
    # its next keep-alive); what a request changes in the game is shielded from that.
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    try:
        yield runner
    finally:
        if hub is not None:
            hub.close()
        await runner.cleanup()


class WebServer:
    """The web table served beside the bot (polling or webhook) on its own port."""

    def __init__(self, table: WebTable, hub: Hub, host: str, port: int) -> None:
        self.table = table
        self.hub = hub
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        # Several workers: every worker's commits say which table changed; this one's streams
        # hear them.
        self.hub.listen(self.table.core.tables)
        runner = web.AppRunner(self.table.app(), access_log=None, handler_cancellation=True)
        await runner.setup()
        await web.TCPSite(runner, self.host, self.port).start()
        self._runner = runner
        self.port = runner.addresses[0][1]  # (port 0: the one the system gave)
        log.info("the web table listens on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        self.hub.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
