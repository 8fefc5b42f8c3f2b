"""Turn timers: a reminder at half time, the conservative move at the deadline.

Deadlines live in the database (games.deadline); jobs are only their shadows, rebuilt at
start, and a job for an old step does nothing, so a restart never loses or doubles a timeout.
"""

from __future__ import annotations

from typing import Any

from telegram.ext import Application, ContextTypes

from bot.app import Services, services
from bot.i18n import translator
from bot.storage.repo import Table, TableStatus
from bot.views.common import short_name
from bot.views.table import kind_label


def schedule_turn(app: Application[Any, Any, Any, Any, Any, Any], table: Table) -> None:
    queue = app.job_queue
    if queue is None:
        return
    for name in (f"turn:{table.id}", f"remind:{table.id}"):
        for job in queue.get_jobs_by_name(name):
            job.schedule_removal()
    if table.status is not TableStatus.PLAYING or table.deadline is None or table.state is None:
        return
    s: Services = app.bot_data["services"]
    now = s.tables.clock()
    data = (table.id, table.state.step)
    half = table.deadline - table.turn_seconds / 2
    if half > now:
        queue.run_once(_remind, when=half - now, data=data, name=f"remind:{table.id}")
    queue.run_once(
        _expire, when=max(table.deadline - now, 0.05), data=data, name=f"turn:{table.id}"
    )


def _job_data(context: ContextTypes.DEFAULT_TYPE) -> tuple[int, int] | None:
    job = context.job
    if job is None or not isinstance(job.data, tuple):
        return None
    table_id, step = job.data
    return int(table_id), int(step)


async def _remind(context: ContextTypes.DEFAULT_TYPE) -> None:
    data = _job_data(context)
    if data is None:
        return
    s = services(context)
    table = await s.tables.get(data[0])
    if table is None or table.state is None or table.state.step != data[1] or not table.deadline:
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


async def _expire(context: ContextTypes.DEFAULT_TYPE) -> None:
    data = _job_data(context)
    if data is None:
        return
    s = services(context)
    result = await s.tables.timeout(*data)
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
