"""Turn timers: a reminder at half time, the conservative move at the deadline.

Deadlines live in the database (games.deadline) and in the service's cache of open tables; a
sweep checks them, and a timeout is applied only if the game is still at the step whose
deadline passed, so a restart never loses or doubles one.
"""

from __future__ import annotations

import asyncio
from typing import Any

from telegram.ext import Application, ContextTypes

from bot.app import services
from bot.i18n import translator
from bot.views.common import short_name
from bot.views.table import kind_label


def start_timers(app: Application[Any, Any, Any, Any, Any, Any], tick: float) -> None:
    """One sweep every `tick` seconds over the open tables; cheaper than a job per action and
    nothing to reschedule after a restart (a deadline that passed while down fires at once)."""
    if app.job_queue is not None:
        app.job_queue.run_repeating(_sweep, interval=tick, first=tick, name="turn-timers")


async def _sweep(context: ContextTypes.DEFAULT_TYPE) -> None:
    try:
        await _check_deadlines(context)
    except asyncio.CancelledError:
        # Shutting down mid-sweep: the deadlines are in the database and the next start checks
        # them again, so there is nothing to lose (and the scheduler would log it as an error).
        return


async def _check_deadlines(context: ContextTypes.DEFAULT_TYPE) -> None:
    s = services(context)
    now = s.tables.clock()
    for table in s.tables.playing():
        if table.deadline is None or table.state is None:
            continue
        key = (table.id, table.state.step)
        if now >= table.deadline:
            await _expire(context, *key)
        elif now >= table.deadline - table.turn_seconds / 2 and key not in _reminded:
            _reminded.add(key)
            await _remind(context, *key)
    if len(_reminded) > 10_000:
        _reminded.clear()


_reminded: set[tuple[int, int]] = set()


async def _remind(context: ContextTypes.DEFAULT_TYPE, table_id: int, step: int) -> None:
    s = services(context)
    table = await s.tables.get(table_id)
    if table is None or table.state is None or table.state.step != step or not table.deadline:
        return
    t = translator(table.language)
    names = await s.publisher.names(table)
    left = max(int(table.deadline - s.tables.clock()), 1)
    seats = sorted({a.seat for a in table.state.legal_actions()})
    for seat in seats:
        user = table.seats[seat]
        if user is None:
            continue
        name = short_name(names.get(user, "?"))
        mention = f'<a href="tg://user?id={user}">{name}</a>'
        s.publisher.post_text(
            table.chat_id, t("timeout.remind", name=mention, seconds=left), table.thread_id
        )
        s.publisher.post_text(user, t("timeout.remind", name=name, seconds=left))


async def _expire(context: ContextTypes.DEFAULT_TYPE, table_id: int, step: int) -> None:
    s = services(context)
    result = await s.tables.timeout(table_id, step)
    if result is None:
        return
    table = result.table
    t = translator(table.language)
    who = await s.publisher.who(table)
    if result.action is None:
        s.publisher.post_text(
            table.chat_id, t("timeout.conceded", side=who.side(t, result.seat % 2)), table.thread_id
        )
        s.publisher.match_over(table, conceded_by=result.seat % 2)
        return
    what = (
        t("timeout.card") if result.action.card is not None else kind_label(t, result.action.kind)
    )
    s.publisher.post_text(
        table.chat_id, t("timeout.acted", name=who.seat(result.seat), action=what), table.thread_id
    )
    assert result.outcome is not None
    user = table.seats[result.seat]
    assert user is not None
    await s.publisher.after_action(result.outcome, user)
