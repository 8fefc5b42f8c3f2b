"""Everything the bot runs, built in one place with constructor arguments: the database, the
game core, the Telegram adapter subscribed to it, the computer players, the league.

`python -m bot` (through `bot/app.py`) and the tests build it the same way; nothing else
creates a service, and nothing is wired by assigning attributes after construction.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from aiohttp import web as aioweb
from telegram.ext import ExtBot

from bot.config import Settings
from bot.core import Core
from bot.metrics import CONTENT_TYPE_LATEST, Metrics
from bot.model.limits import Buckets
from bot.model.occupants import is_person
from bot.model.outbox import Outgoing, Planned
from bot.model.table import TableStatus
from bot.service.ai import AiPlayers
from bot.service.changes import Change, ChangeKind
from bot.service.mailbox import Mailbox
from bot.service.unit import Tables
from bot.telegram.delivery import Deliverer, judge
from bot.telegram.pacing import TelegramPacing
from bot.telegram.planner import Planner
from bot.telegram.say import Say
from bot.web.auth import TelegramAuth
from bot.web.hub import Hub
from bot.web.server import WebServer, WebTable

log = logging.getLogger(__name__)


class MetricsFeed:
    """A subscriber that counts what the core commits (changes, taps, rows, tables in play)."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    async def plan(self, change: Change) -> Sequence[Planned]:
        return ()

    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        table = change.table
        tap = change.kind is ChangeKind.ACTION and is_person(change.tapper)
        playing = table is not None and table.status is TableStatus.PLAYING
        self.metrics.change(change.kind.value, table.id if table else None, playing, tap, len(rows))


class MetricsServer:
    """GET /metrics on its own address, in Prometheus's text format."""

    def __init__(self, metrics: Metrics, host: str, port: int) -> None:
        self.metrics = metrics
        self.host = host
        self.port = port
        self._runner: aioweb.AppRunner | None = None

    async def _serve(self, request: aioweb.Request) -> aioweb.Response:
        response = aioweb.Response(body=self.metrics.render())
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    async def start(self) -> None:
        app = aioweb.Application()
        app.router.add_get("/metrics", self._serve)
        self._runner = aioweb.AppRunner(app, access_log=None)
        await self._runner.setup()
        await aioweb.TCPSite(self._runner, self.host, self.port).start()
        log.info("metrics on http://%s:%d/metrics", self.host, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    core: Core
    outbox: Mailbox  # what the core delivers to Telegram
    planner: Planner  # what the bot says in Telegram about each change
    deliverer: Deliverer  # how each outbox row becomes Bot API calls
    replies: Buckets  # answers to one person's commands in one chat
    say: Say  # what the handlers ask the Telegram adapter to say
    web: WebServer | None = None  # the web table (a Mini App), when TRUCO_WEBAPP_URL is set
    metrics: MetricsServer | None = None  # /metrics, when TRUCO_METRICS_PORT is set

    @staticmethod
    async def open(
        settings: Settings,
        bot: ExtBot[Any],
        clock: Callable[[], float] | None = None,
        metrics: Metrics | None = None,
    ) -> Runtime:
        core = await Core.open(settings, clock=clock)  # (None: the database's)
        pacing = TelegramPacing(
            settings.group_interval,
            settings.private_per_second,
            settings.private_burst,
            watched=settings.watched_board_interval,
        )
        outbox = core.mailbox(
            pacing,
            settings.rate_overall_per_second,
            poll=settings.outbox_poll,
            judge=judge,
            metrics=metrics,
            defer=settings.own_hand_defer,
            defer_above=settings.own_hand_defer_above,
        )
        planner = Planner(core.tables, core.people, outbox, core.tournaments, core.presence)
        deliverer = Deliverer(
            bot, core, outbox, bot.username, settings.webapp_url, settings.webapp_name,
            settings.zone, paid_broadcast=settings.paid_broadcast,
        )  # fmt: skip
        # The core's subscribers: the computer players (`Core.open`), and the Telegram adapter,
        # which plans its rows in every commit.
        core.changes.subscribe(planner)
        served = None
        if metrics is not None and settings.metrics_port is not None:
            core.changes.subscribe(MetricsFeed(metrics))
            served = MetricsServer(metrics, settings.metrics_host, settings.metrics_port)
        web = None
        if settings.webapp_url and settings.bot_token is not None:
            # The web table: a third subscriber, waking the pages that watch a table.
            hub = Hub(settings.web_streams)
            core.changes.subscribe(hub)

            async def member(
                chat_id: int, user_id: int, fresh: bool, may_ask: Callable[[], bool]
            ) -> bool | None:  # (one memory of members: the Telegram adapter's)
                return await deliverer.members.of(chat_id, user_id, fresh=fresh, may_ask=may_ask)

            token = settings.bot_token.get_secret_value()
            auth = TelegramAuth(token, settings.webapp_max_age, core.clock, member)
            table = WebTable(
                core, auth, hub, rate=(settings.web_rate, settings.web_burst),
                proxies=settings.web_proxies,
            )  # fmt: skip
            web = WebServer(table, hub, settings.web_host, settings.web_port)
        # (on the core's clock: a wall clock set back is taken as no time passed, and the tests
        # move it to refill a bucket)
        replies = Buckets(1 / settings.reply_every, settings.reply_burst, clock=core.clock)
        say = Say(core, outbox, bot, settings.paid_broadcast)
        return Runtime(settings, core, outbox, planner, deliverer, replies, say, web, served)

    @property
    def tables(self) -> Tables:
        return self.core.tables

    @property
    def ai(self) -> AiPlayers:
        assert self.core.ai is not None
        return self.core.ai

    async def start(self) -> None:
        # Whatever was decided and not yet sent when the bot stopped (or crashed) goes out now.
        self.outbox.start(self.deliverer.deliver)
        await self.core.start()
        if self.web is not None:
            self.core.presence.start()  # (who has the page open: their hand message waits)
            await self.web.start()
        if self.metrics is not None:
            await self.metrics.start()

    async def sweep(self) -> None:
        await self.core.sweep()
        if self.settings.stats_file is not None:
            self.write_stats(self.settings.stats_file)

    def write_stats(self, path: Path) -> None:
        """What the database door counted so far, for a benchmark or a monitor to read."""
        stats = {
            "pid": os.getpid(),
            "at": time.time(),
            "db": self.core.meter.as_dict(),
            "delays_ms": {str(ms): n for ms, n in self.outbox.delays.items()},
            "gathered": self.outbox.gathered(),
        }
        part = path.with_name(path.name + ".part")
        part.write_bytes(orjson.dumps(stats))
        part.replace(path)

    async def stop(self) -> None:
        """Send what is queued while the bot can still talk (the state is already committed)."""
        if self.web is not None:
            await self.web.stop()
            await self.core.presence.stop()
        if self.metrics is not None:
            await self.metrics.stop()
        await self.core.daily.idle()  # (a hand of the day being posed: before its pool goes)
        self.core.stop()
        await self.core.admission.idle()  # (a table the line just started: its rows go too)
        try:
            await self.outbox.drain(5.0, held=False)
        except Exception:  # what is left stays in the outbox for the next start
            log.warning("stopping with messages still to send", exc_info=True)
        finally:
            await self.outbox.close()

    async def close(self) -> None:
        await self.core.close()
