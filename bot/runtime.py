"""Everything the bot runs, built in one place with constructor arguments: the database, the
game core, the Telegram adapter subscribed to it, the computer players, the league.

`python -m bot` (through `bot/app.py`) and the tests build it the same way; nothing else
creates a service, and nothing is wired by assigning attributes after construction.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError
from telegram.ext import ExtBot

from bot.config import Settings
from bot.model.limits import Buckets
from bot.service.ai import AiPlayers
from bot.service.core import Core
from bot.service.mailbox import Mailbox
from bot.service.unit import Tables
from bot.telegram.delivery import Deliverer, judge
from bot.telegram.planner import Planner
from bot.web.server import Hub, TelegramAuth, WebServer, WebTable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    core: Core
    outbox: Mailbox  # what the core delivers to Telegram
    planner: Planner  # what the bot says in Telegram about each change
    deliverer: Deliverer  # how each outbox row becomes Bot API calls
    replies: Buckets  # answers to one person's commands in one chat
    web: WebServer | None = None  # the web table (a Mini App), when TRUCO_WEBAPP_URL is set

    @staticmethod
    async def open(
        settings: Settings, bot: ExtBot[Any], clock: Callable[[], float] = time.time
    ) -> Runtime:
        core = await Core.open(settings, clock=clock)
        outbox = core.mailbox(
            settings.group_interval,
            settings.rate_overall_per_second,
            poll=settings.outbox_poll,
            judge=judge,
        )
        planner = Planner(core.tables, core.people, outbox, core.tournaments)
        deliverer = Deliverer(
            bot, core, outbox, bot.username, settings.webapp_url, settings.webapp_name,
            settings.zone,
        )  # fmt: skip
        # The core's subscribers: the computer players (`Core.open`), and the Telegram adapter,
        # which plans its rows in every commit.
        core.changes.subscribe(planner)
        web = None
        if settings.webapp_url and settings.bot_token is not None:
            # The web table: a third subscriber, waking the pages that watch a table.
            hub = Hub(settings.web_streams)
            core.changes.subscribe(hub)

            async def is_member(chat_id: int, user_id: int) -> bool | None:
                try:
                    member = await bot.get_chat_member(chat_id, user_id)
                except TelegramError:
                    return None
                return member.status in (
                    ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR,
                    ChatMemberStatus.MEMBER,
                ) or bool(getattr(member, "is_member", False))  # fmt: skip

            token = settings.bot_token.get_secret_value()
            auth = TelegramAuth(token, settings.webapp_max_age, clock, is_member)
            table = WebTable(
                core, auth, hub, rate=(settings.web_rate, settings.web_burst),
                proxies=settings.web_proxies,
            )  # fmt: skip
            web = WebServer(table, hub, settings.web_host, settings.web_port)
        replies = Buckets(1 / settings.reply_every, settings.reply_burst)
        return Runtime(settings, core, outbox, planner, deliverer, replies, web)

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
            await self.web.start()

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
        self.core.stop()
        try:
            await self.outbox.drain(5.0)
        except Exception:  # what is left stays in the outbox for the next start
            log.warning("stopping with messages still to send", exc_info=True)
        finally:
            await self.outbox.close()

    async def close(self) -> None:
        await self.core.close()
