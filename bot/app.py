"""Build the python-telegram-bot Application: handlers, error handler, services' life cycle."""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

from telegram import BotCommand, LinkPreviewOptions, Update
from telegram.constants import ParseMode
from telegram.error import TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    ContextTypes,
    Defaults,
    JobQueue,
    TypeHandler,
)

from bot.config import Settings
from bot.handlers import (
    buttons,
    chats,
    commands,
    config,
    daily,
    history,
    league,
    review,
    timers,
    tournaments,
)
from bot.handlers.common import chat_translator
from bot.i18n import LANGUAGES, translator
from bot.metrics import Metrics
from bot.model.errors import Unavailable
from bot.runtime import Runtime
from bot.secrets import mask_in_logs
from bot.telegram.http import AiohttpRequest, UpdatesRequest
from bot.telegram.webhook import Webhook

log = logging.getLogger(__name__)

COMMANDS = (
    "nueva", "torneo", "torneos", "tabla", "yo", "historial", "partida", "verificar", "revision",
    "reglas",
    "ayuda", "cancelar", "avisame", "mano",
    "abandonar", "idioma", "config", "start",
)  # fmt: skip

# Commands whose answer only the asker needs: sent ephemerally by a client that can (Bot API
# 10.2 `is_ephemeral`), they are answered so (`bot.handlers.common.reply`); a client that
# cannot sends them as any command, and they are answered in the group as before.
EPHEMERAL_COMMANDS = frozenset({"yo", "reglas", "ayuda", "revision", "mano"})


class SettledJobQueue(JobQueue[Any]):
    """A JobQueue that stops without cancelling a job: the stock one waits for the running jobs
    and then shuts the scheduler down, but the scheduler may start one more job in between,
    which the shutdown cancels before its first step (and logs as an error). Pausing first
    means nothing new starts while the running jobs finish."""

    async def stop(self, wait: bool = True) -> None:
        if self.scheduler.running:
            self.scheduler.pause()
        await super().stop(wait)


def build_application(
    settings: Settings, clock: Callable[[], float] | None = None
) -> Application[Any, Any, Any, Any, Any, Any]:
    """`clock`: the clock of turn and lobby deadlines, if a test drives it by hand (else the
    database's: `Database.now`)."""
    if settings.bot_token is None:
        raise ValueError("TRUCO_BOT_TOKEN is not set")
    secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
    mask_in_logs([settings.bot_token.get_secret_value(), secret])
    # The outbox's calls do not pass here: it paces each chat's lane and keeps the overall
    # budget itself (it knows which calls are urgent), and waits out a 429 without holding up
    # every other chat. The limiter keeps the handlers' own calls (answers, membership checks)
    # under each group's limit and waits out their 429s.
    limiter = AIORateLimiter(
        overall_max_rate=0,
        group_max_rate=settings.rate_group_per_minute,
        max_retries=settings.max_retries,
    )
    metrics = Metrics() if settings.metrics_port is not None else None
    app = (
        ApplicationBuilder()
        .token(settings.bot_token.get_secret_value())
        .base_url(settings.api_base_url)
        .request(AiohttpRequest(answered=metrics.answered if metrics is not None else None))
        .get_updates_request(UpdatesRequest(connection_pool_size=1))
        .rate_limiter(limiter)
        .job_queue(SettledJobQueue())
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
    app.bot_data["metrics"] = metrics
    if clock is not None:
        app.bot_data["clock"] = clock
    # Every message the bot learns of in a group tells how far up its board is: a board the
    # chat has buried is sent anew at the next hand rather than edited out of sight.
    app.add_handler(TypeHandler(Update, seen_in_chat), group=-10)
    for feature in (
        chats, commands, config, daily, history, league, review, tournaments, buttons,
    ):  # fmt: skip
        feature.register(app)
    app.add_error_handler(on_error)
    return app


async def seen_in_chat(update: object, context: Any) -> None:
    """A group's message the bot learned of (a command, a tap's message): its id, to the
    deliverer, which moves a board that chat has buried."""
    runtime = context.application.bot_data.get("runtime")
    message = update.effective_message if isinstance(update, Update) else None
    if runtime is not None and message is not None:
        runtime.deliverer.saw(message.chat.id, message.message_id)


async def post_init(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    settings: Settings = app.bot_data["settings"]
    runtime = await Runtime.open(
        settings, app.bot, app.bot_data.get("clock"), app.bot_data.get("metrics")
    )
    app.bot_data["runtime"] = runtime
    await _set_commands(app)
    await runtime.start()
    timers.start(app, settings.timer_tick)
    log.info("truco-bot ready as @%s", app.bot.username)


async def _set_commands(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    for language in LANGUAGES:
        t = translator(language)
        commands = [
            BotCommand(name, t(f"cmd.{name}"), api_kwargs={"is_ephemeral": True})
            if name in EPHEMERAL_COMMANDS else BotCommand(name, t(f"cmd.{name}"))
            for name in COMMANDS
        ]  # fmt: skip
        try:
            await app.bot.set_my_commands(
                commands, language_code=None if language == "es" else language
            )
        except TelegramError:
            log.warning("could not register the commands for %s", language)


async def post_stop(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    found: Runtime | None = app.bot_data.get("runtime")
    if found is not None:
        await found.stop()


async def post_shutdown(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    found: Runtime | None = app.bot_data.pop("runtime", None)
    if found is not None:
        await found.close()


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A handler failed. When the database would not take a write (locked too long, read-only,
    a full disk), the person is told so at once, directly (the outbox cannot take it either):
    nothing of what they asked happened, and nothing was queued to go out twice."""
    error = context.error
    if isinstance(error, Unavailable):
        log.warning("an update could not be saved: %s", error)
    else:
        log.error("error while handling an update", exc_info=error)
    if not isinstance(update, Update):
        return
    text = None
    if isinstance(error, Unavailable):
        chat = update.effective_chat
        text = (await chat_translator(context, chat.id) if chat else translator(None))(
            "refusal.db_busy"
        )
    with suppress(TelegramError):
        if update.callback_query is not None:
            await update.callback_query.answer(text)
        elif text is not None and update.effective_message is not None:
            await update.effective_message.reply_text(text)


@asynccontextmanager
async def running(
    app: Application[Any, Any, Any, Any, Any, Any], poll_timeout: int = 30
) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    """Run the bot inside an existing event loop, by polling or by its webhook (tests,
    benchmarks, and `python -m bot` with a webhook); `run_polling` otherwise."""
    await app.initialize()
    await post_init(app)
    assert app.updater is not None
    settings: Settings = app.bot_data["settings"]
    hook: Webhook | None = None
    if settings.webhook_url and settings.webhook_secret is not None:
        hook = Webhook(
            app,
            listen=settings.webhook_listen,
            port=settings.webhook_port,
            path=settings.webhook_path,
            url=settings.webhook_url,
            secret=settings.webhook_secret.get_secret_value(),
        )
        await hook.start()
    else:
        await app.updater.start_polling(timeout=poll_timeout, poll_interval=0.0)
    await app.start()
    try:
        yield app
    finally:
        if hook is not None:
            await hook.stop()
        else:
            await app.updater.stop()
        await app.stop()
        await post_stop(app)
        await app.shutdown()
        await post_shutdown(app)


async def serve(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """`python -m bot` with a webhook: serve until SIGINT or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with running(app):
        await stop.wait()
    log.info("stopped")
