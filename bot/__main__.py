"""python -m bot: load the settings, build the application, poll."""

from __future__ import annotations

import logging
import sys

from pydantic import ValidationError
from telegram import Update

from bot.app import build_application
from bot.config import Settings


def main() -> int:
    try:
        settings = Settings()
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "settings"
        print(f"truco-bot: bad settings: {where}: {first['msg']}")
        return 2
    logging.basicConfig(
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    if settings.bot_token is None:
        print("truco-bot: set TRUCO_BOT_TOKEN (from @BotFather) in the environment or in .env")
        return 2
    app = build_application(settings)
    webhook = settings.webhook_args()
    if webhook is not None:
        app.run_webhook(allowed_updates=Update.ALL_TYPES, **webhook)  # type: ignore[arg-type]
    else:
        app.run_polling(allowed_updates=Update.ALL_TYPES, timeout=settings.poll_timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
