"""`python -m bot --local`: the web table on this machine, no token and no Telegram. You pick
a name and play against the computer players; friends take seats from other windows. The
local identity exists only here: with a token set, this mode refuses to start."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable

from bot.config import Settings
from bot.core import Core
from bot.web.auth import LocalAuth
from bot.web.hub import Hub
from bot.web.server import WebTable, serve

log = logging.getLogger(__name__)
LOOPBACK = ("127.0.0.1", "::1", "localhost")


class LocalRefused(Exception):
    """Local mode cannot start as set up (a token is set, or it would listen beyond loopback)."""


def check_local(settings: Settings) -> None:
    if settings.bot_token is not None:
        raise LocalRefused("local mode runs without a token: unset TRUCO_BOT_TOKEN")
    if settings.web_host not in LOOPBACK:
        raise LocalRefused(f"local mode listens on loopback only, not {settings.web_host}")


async def run_local(
    settings: Settings,
    stop: asyncio.Event,
    ready: Callable[[int], None] | None = None,
    tick: float = 0.2,
) -> None:
    """Serve the local table until `stop` is set; `ready(port)` once it listens."""
    check_local(settings)
    core = await Core.open(settings, turn_seconds=0, max_live_tables=0)  # (no Telegram budget)
    try:
        hub = Hub(settings.web_streams)
        core.changes.subscribe(hub)
        local = LocalAuth()
        web_table = WebTable(core, local, hub, local, rate=(settings.web_rate, settings.web_burst))
        await core.start()
        async with serve(web_table.app(), settings.web_host, settings.web_port, hub) as runner:
            port = runner.addresses[0][1]
            print(f"truco: the local table is at http://127.0.0.1:{port}", flush=True)
            if ready is not None:
                ready(port)
            while not stop.is_set():
                await core.sweep()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), tick)
        core.stop()
    finally:
        await core.close()


def main(settings: Settings) -> int:
    try:
        check_local(settings)
    except LocalRefused as error:
        print(f"truco-bot: {error}", file=sys.stderr)
        return 2

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        import signal

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await run_local(settings, stop)

    asyncio.run(run())
    return 0
