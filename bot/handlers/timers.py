"""Turn timers: a reminder at half time, the conservative move at the deadline; and lobbies
that nobody filled in time.

Deadlines live in the database (games.deadline, games.created_at) and in the service's cache of
open tables; a sweep checks them against the service's clock, and a timeout is applied only if
the game is still at the step whose deadline passed, so a restart never loses or doubles one.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from telegram.ext import Application, ContextTypes

from bot.app import services
from bot.service.tables import Refusal

STALLED_SECONDS = 10.0


def start_timers(app: Application[Any, Any, Any, Any, Any, Any], tick: float) -> None:
    """One sweep every `tick` seconds over the open tables; cheaper than a job per action and
    nothing to reschedule after a restart (a deadline that passed while down fires at once)."""
    if app.job_queue is not None:
        app.job_queue.run_repeating(_sweep, interval=tick, first=tick, name="turn-timers")


async def _sweep(context: ContextTypes.DEFAULT_TYPE) -> None:
    try:
        await _check_deadlines(context)
        data = context.application.bot_data
        data["sweeps"] = data.get("sweeps", 0) + 1  # a count the tests can wait on
    except asyncio.CancelledError:
        # Shutting down mid-sweep: the deadlines are in the database and the next start checks
        # them again, so there is nothing to lose (and the scheduler would log it as an error).
        return


async def _check_deadlines(context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    if s.tables.shared:  # other processes open, change and close tables too: look again
        now = s.tables.clock()
        due = await s.tables.due_tables(now, s.settings.lobby_seconds, STALLED_SECONDS)
        for table in due:
            # The process that made a table's last change moves its computer players; a
            # table nobody moved for a while (that process died) is taken up here.
            if table.bot_seats and now - table.updated_at > STALLED_SECONDS:
                s.ai.consider(table)
    s.ai.tick()  # computer players whose pause is over
    now = s.tables.clock()
    for table in s.tables.lobbies():
        if now >= table.created_at + s.settings.lobby_seconds:
            with contextlib.suppress(Refusal):  # another process got there first
                await s.tables.expire_lobby(table.id)
    for table in s.tables.playing():
        if table.deadline is None or table.state is None:
            continue
        key = (table.id, table.state.step)
        if now >= table.deadline:
            await _expire(context, *key)
        elif table.vacated is not None:
            continue  # paused for the empty seat's choice: nobody is to move
        elif now >= table.deadline - table.turn_seconds / 2 and table.reminded != key[1]:
            await _remind(context, *key)


async def _remind(context: ContextTypes.DEFAULT_TYPE, table_id: int, step: int) -> None:
    """The service marks the step reminded and, in the same commit, what the players are told."""
    with contextlib.suppress(Refusal):  # another process got there first
        await services(context).tables.remind(table_id, step)


async def _expire(context: ContextTypes.DEFAULT_TYPE, table_id: int, step: int) -> None:
    """The service applies the timeout and, in the same commit, what the group is told."""
    with contextlib.suppress(Refusal):  # the player (or another process) got there first
        await services(context).tables.timeout(table_id, step)
