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
from bot.i18n import translator
from bot.service.publisher import text_row
from bot.service.tables import Refusal
from bot.views.common import short_name

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
        for table in await s.tables.open_tables():
            # The process that made a table's last change moves its computer players; a
            # table nobody moved for a while (that process died) is taken up here.
            if now - table.updated_at > STALLED_SECONDS:
                s.ai.consider(table)
    s.ai.tick()  # computer players whose pause is over
    now = s.tables.clock()
    for table in s.tables.lobbies():
        if now >= table.created_at + s.settings.lobby_seconds:
            with contextlib.suppress(Refusal):  # another process got there first
                await s.tables.expire_lobby(table.id)
    reminded: set[tuple[int, int]] = context.application.bot_data.setdefault("reminded", set())
    for table in s.tables.playing():
        if table.deadline is None or table.state is None:
            continue
        key = (table.id, table.state.step)
        if now >= table.deadline:
            await _expire(context, *key)
        elif table.vacated is not None:
            continue  # paused for the empty seat's choice: nobody is to move
        elif now >= table.deadline - table.turn_seconds / 2 and key not in reminded:
            reminded.add(key)
            await _remind(context, *key)
    if len(reminded) > 10_000:
        reminded.clear()


async def _remind(context: ContextTypes.DEFAULT_TYPE, table_id: int, step: int) -> None:
    s = services(context)
    table = await s.tables.get(table_id)
    if table is None or table.state is None or table.state.step != step or not table.deadline:
        return
    t = translator(table.language)
    names = await s.publisher.names(table)
    left = max(int(table.deadline - s.tables.clock()), 1)
    seats = sorted({a.seat for a in table.state.legal_actions()})
    rows = []
    for seat in seats:
        user = table.seats[seat]
        if user is None or user < 0:
            continue  # a computer player needs no reminder
        name = short_name(names.get(user, "?"))
        mention = f'<a href="tg://user?id={user}">{name}</a>'
        key = f"remind:{table.id}:{step}:{user}"
        rows.append(
            text_row(table.chat_id, t("timeout.remind", name=mention, seconds=left),
                     table.thread_id, key=key)
        )  # fmt: skip
        rows.append(text_row(user, t("timeout.remind", name=name, seconds=left), key=key))
    await s.publisher.say(*rows)


async def _expire(context: ContextTypes.DEFAULT_TYPE, table_id: int, step: int) -> None:
    """The service applies the timeout and, in the same commit, what the group is told."""
    with contextlib.suppress(Refusal):  # the player (or another process) got there first
        await services(context).tables.timeout(table_id, step)
