"""Build the python-telegram-bot Application: handlers, error handler, services' life cycle."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any, cast

from telegram import BotCommand, LinkPreviewOptions, Update
from telegram.constants import ParseMode
from telegram.error import TelegramError
from telegram.ext import AIORateLimiter, Application, ApplicationBuilder, ContextTypes, Defaults

from bot.config import Settings
from bot.i18n import LANGUAGES, translator
from bot.service.outbox import Outbox
from bot.service.publisher import Publisher
from bot.service.tables import TableService
from bot.storage.db import Database
from bot.storage.league import League
from bot.storage.repo import Store, TableStatus

log = logging.getLogger(__name__)

COMMANDS = (
    "nueva", "tabla", "yo", "reglas", "ayuda", "cancelar", "abandonar", "idioma", "config",
    "start",
)  # fmt: skip


@dataclass
class Services:
    settings: Settings
    db: Database
    store: Store
    tables: TableService
    outbox: Outbox
    publisher: Publisher
    league: League


def services(context: ContextTypes.DEFAULT_TYPE) -> Services:
    return cast(Services, context.application.bot_data["services"])


def build_application(settings: Settings) -> Application[Any, Any, Any, Any, Any, Any]:
    if settings.bot_token is None:
        raise ValueError("TRUCO_BOT_TOKEN is not set")
    # The Outbox keeps the overall budget (it knows which calls are urgent); the limiter keeps
    # each group under its limit and waits out 429s.
    limiter = AIORateLimiter(
        overall_max_rate=0,
        group_max_rate=settings.rate_group_per_minute,
        max_retries=settings.max_retries,
    )
    app = (
        ApplicationBuilder()
        .token(settings.bot_token.get_secret_value())
        .base_url(settings.api_base_url)
        .rate_limiter(limiter)
        .concurrent_updates(settings.concurrent_updates)
        .defaults(
            Defaults(
                parse_mode=ParseMode.HTML,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
            )
        )
        .post_init(post_init)
        .post_stop(post_stop)
        .post_shutdown(post_shutdown)
        .build()
    )
    app.bot_data["settings"] = settings
    from bot.handlers import buttons, chats, commands, config

    chats.register(app)
    commands.register(app)
    config.register(app)
    buttons.register(app)
    app.add_error_handler(on_error)
    return app


async def post_init(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    settings: Settings = app.bot_data["settings"]
    db = await Database.open(settings.database)
    store = Store(db)
    tables = TableService(store, seed=settings.seed)
    outbox = Outbox(settings.group_interval, settings.rate_overall_per_second)
    league = League(db)
    publisher = Publisher(app.bot, tables, outbox, app.bot.username, league)
    app.bot_data["services"] = Services(settings, db, store, tables, outbox, publisher, league)
    await _set_commands(app)
    from bot.handlers.commands import schedule_lobby_expiry
    from bot.handlers.timers import start_timers

    for table in await tables.open_tables():  # loads every open table into the cache
        if table.status is TableStatus.LOBBY:
            schedule_lobby_expiry(app, table)
        publisher.refresh_all(table)
    start_timers(app, settings.timer_tick)
    log.info("truco-bot ready as @%s", app.bot.username)


async def _set_commands(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    for language in LANGUAGES:
        t = translator(language)
        commands = [BotCommand(name, t(f"cmd.{name}")) for name in COMMANDS]
        try:
            await app.bot.set_my_commands(
                commands, language_code=None if language == "es" else language
            )
        except TelegramError:
            log.warning("could not register the commands for %s", language)


async def post_stop(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Send what is queued while the bot can still talk (the state is already committed)."""
    found: Services | None = app.bot_data.get("services")
    if found is not None:
        await found.outbox.drain(5.0)
        await found.outbox.close()


async def post_shutdown(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    found: Services | None = app.bot_data.pop("services", None)
    if found is not None:
        await found.db.close()


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    log.error("error while handling an update", exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        with suppress(TelegramError):
            await update.callback_query.answer()


@asynccontextmanager
async def running(
    app: Application[Any, Any, Any, Any, Any, Any], poll_timeout: int = 30
) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    """Run polling inside an existing event loop (tests, benchmarks); `run_polling` otherwise."""
    await app.initialize()
    await post_init(app)
    assert app.updater is not None
    settings: Settings = app.bot_data["settings"]
    webhook = settings.webhook_args()
    if webhook is not None:
        await app.updater.start_webhook(allowed_updates=Update.ALL_TYPES, **webhook)  # type: ignore[arg-type]
    else:
        await app.updater.start_polling(timeout=poll_timeout, poll_interval=0.0)
    await app.start()
    try:
        yield app
    finally:
        await app.updater.stop()
        await app.stop()
        await post_stop(app)
        await app.shutdown()
        await post_shutdown(app)
