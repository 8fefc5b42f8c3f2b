"""python -m bot: load the settings, check what the bot needs, build the application, run.

Whatever stops the bot from starting (bad settings, a database it cannot open or write, a
webhook port already taken, a Bot API it cannot reach, a token Telegram refuses) is said in one
line, and the exit code is not 0.

What only a start that gets that far needs (the core, python-telegram-bot, the application) is
imported when it is needed: bad settings or a missing token are told without loading it."""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
import sqlite3
import sys

from pydantic import ValidationError

from bot.config import Settings
from bot.secrets import mask_in_logs


class StartupError(Exception):
    """Something the operator must fix before the bot can run; the message says what."""


async def preflight(settings: Settings) -> None:
    """Open and write the database, take the webhook port, ask Telegram who we are."""
    from telegram import Bot
    from telegram.error import InvalidToken, NetworkError, TelegramError

    from bot.core import Core

    wrong = await Core.check(settings.database)
    if wrong is not None:
        raise StartupError(wrong)
    webhook = settings.webhook_args()
    if webhook is not None:
        with socket.socket() as sock:
            # As the webhook server itself will: a restart right after a crash must not fail
            # on the old connections still in TIME_WAIT.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((settings.webhook_listen, settings.webhook_port))
            except OSError as error:
                raise StartupError(
                    f"cannot listen for the webhook on {settings.webhook_listen}:"
                    f"{settings.webhook_port}: {error.strerror or error}"
                ) from None
    assert settings.bot_token is not None
    bot = Bot(settings.bot_token.get_secret_value(), base_url=settings.api_base_url)
    try:
        await bot.get_me()
    except InvalidToken:
        raise StartupError("Telegram refused the token (TRUCO_BOT_TOKEN)") from None
    except NetworkError as error:
        raise StartupError(
            f"cannot reach the Bot API at {settings.api_base_url}: {error}"
        ) from None
    except TelegramError as error:
        raise StartupError(f"the Bot API answered: {error}") from None
    finally:
        await bot.shutdown()


def settle_memory() -> None:
    """Leave what was loaded at start-up out of the garbage collector's rounds, and run its
    youngest round less often: with CPython's defaults a full round stopped a busy bot every few
    seconds, a burst of late answers at a busy hour (docs/performance.md). Cycles of garbage
    are still collected, only later; reference counting frees everything else at once."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def main() -> int:
    try:
        settings = Settings()
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "settings"
        print(f"truco-bot: bad settings: {where}: {first['msg']}", file=sys.stderr)
        return 2
    # The token and the webhook's secret are masked in every log record from the first one on
    # (python-telegram-bot logs the Bot API URL, the token in it, when a bot is made: the
    # start-up checks make one before the application is built).
    secret = settings.webhook_secret.get_secret_value() if settings.webhook_secret else None
    token = settings.bot_token.get_secret_value() if settings.bot_token else None
    mask_in_logs([token, secret])
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    for noisy in ("httpx", "apscheduler"):  # a line per request, two lines per timer sweep
        logging.getLogger(noisy).setLevel(logging.WARNING)
    if "--local" in sys.argv[1:] or settings.mode == "local":
        from bot.web import local

        return local.main(settings)
    if settings.bot_token is None:
        print(
            "truco-bot: set TRUCO_BOT_TOKEN (from @BotFather) in the environment or in .env",
            file=sys.stderr,
        )
        return 2
    try:
        asyncio.run(preflight(settings))
    except StartupError as error:
        print(f"truco-bot: {error}", file=sys.stderr)
        return 1
    from telegram import Update
    from telegram.error import TelegramError

    from bot.app import build_application, serve

    app = build_application(settings)
    webhook = settings.webhook_args()
    settle_memory()
    try:
        if webhook is not None:
            asyncio.run(serve(app))  # the bot's own webhook server (bot/telegram/webhook.py)
        else:
            app.run_polling(allowed_updates=Update.ALL_TYPES, timeout=settings.poll_timeout)
    except (TelegramError, OSError, sqlite3.Error) as error:  # it went away between the checks
        print(f"truco-bot: stopped: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
