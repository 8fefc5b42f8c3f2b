"""The sweep, once every tick: python-telegram-bot's job queue runs the runtime's sweep (the
core's deadlines, and the computer players whose pause is over)."""

from __future__ import annotations

import asyncio
from typing import Any

from telegram.ext import Application, ContextTypes

from bot.handlers.common import runtime


def start(app: Application[Any, Any, Any, Any, Any, Any], tick: float) -> None:
    """One sweep every `tick` seconds over the open tables; cheaper than a job per action and
    nothing to reschedule after a restart (a deadline that passed while down fires at once)."""
    if app.job_queue is not None:
        app.job_queue.run_repeating(_sweep, interval=tick, first=tick, name="turn-timers")


async def _sweep(context: ContextTypes.DEFAULT_TYPE) -> None:
    try:
        await runtime(context).sweep()
        data = context.application.bot_data
        data["sweeps"] = data.get("sweeps", 0) + 1  # a count the tests can wait on
    except asyncio.CancelledError:
        # Shutting down mid-sweep: the deadlines are in the database and the next start checks
        # them again, so there is nothing to lose (and the scheduler would log it as an error).
        return
