"""The webhook, on aiohttp's server (python-telegram-bot's own reads a body of up to 100 MB
before it looks at the secret, and compares the secret with `!=`): the secret token is checked
first, in constant time, a body over `MAX_BODY` is refused unread, and each update goes to the
application's queue as polling's would."""

from __future__ import annotations

import hmac
import logging
from typing import Any

import orjson
from aiohttp import web
from telegram import Update
from telegram.ext import Application

log = logging.getLogger(__name__)

MAX_BODY = 1 << 20  # an update is a few KB; Telegram's largest are far below a megabyte
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def webhook_app(application: Application[Any, Any, Any, Any, Any, Any], path: str,
                secret: str) -> web.Application:  # fmt: skip
    expected = secret.encode()

    async def receive(request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, expected):
            return web.Response(status=403)
        if request.content_length is None or request.content_length > MAX_BODY:
            return web.Response(status=413)
        try:
            data = orjson.loads(await request.read())
            update = Update.de_json(data, application.bot)
        except Exception:
            log.warning("webhook: a body that is not an update, refused")
            return web.Response(status=400)
        if update is not None:
            await application.update_queue.put(update)
        return web.Response(status=200)

    app = web.Application(client_max_size=MAX_BODY)
    app.router.add_post("/" + path.strip("/"), receive)
    return app


class Webhook:
    """Serves the webhook and tells Telegram where it is; stops serving on `stop`."""

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        *,
        listen: str,
        port: int,
        path: str,
        url: str,
        secret: str,
    ) -> None:
        self.application = application
        self.listen, self.port, self.url, self.secret = listen, port, url, secret
        self._runner = web.AppRunner(webhook_app(application, path, secret), access_log=None)

    async def start(self) -> None:
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.listen, self.port, reuse_address=True)
        await site.start()
        await self.application.bot.set_webhook(
            self.url, allowed_updates=Update.ALL_TYPES, secret_token=self.secret
        )
        log.info("webhook listening on %s:%s", self.listen, self.port)

    async def stop(self) -> None:
        await self._runner.cleanup()
