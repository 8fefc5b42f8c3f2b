"""🃏 La mano del día's buttons: a member's answer in the group (one tap, the first counts), and
a person's choice, from /yo in private, to let a decision of theirs be shown with their name."""

from __future__ import annotations

from typing import Any

from telegram import CallbackQuery
from telegram.ext import Application, CallbackQueryHandler, ContextTypes

from bot.callbacks import DailyData, DailyNameData, DailyOp, pattern
from bot.handlers.common import is_group, is_member, see, tapped, tapped_message
from bot.i18n import Translator
from bot.model.refusals import Refused
from bot.runtime import Runtime
from bot.service.changes import Refusal
from bot.telegram.rows import text_row
from bot.views.common import plain
from bot.views.daily import answered_text, name_keys, name_text, puzzle_of


async def _answer(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: DailyData,
    t: Translator,
) -> None:  # fmt: skip
    """A tap on a choice of the group's hand of the day: a member's first answer is taken (the
    answer itself waits for the close); anyone else, or late, is told why not."""
    message = tapped_message(query)
    chat = message.chat
    user = query.from_user
    if not is_group(chat):
        raise Refusal(Refused.DAILY_GONE)
    # (a group that hides its members and will not say: a tap on its own message is proof
    # enough, as for a join)
    if await is_member(context, chat.id, user.id) is False:
        raise Refusal(Refused.DAILY_NOT_MEMBER)
    await see(r, user)
    reply = await r.core.daily.answer(data.hand, chat.id, user.id, data.choice)
    said = answered_text(t, puzzle_of(reply.hand), reply.choice, reply.counted)
    await query.answer(plain(said))


async def _name(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: DailyNameData,
    t: Translator,
) -> None:  # fmt: skip
    """/yo's button in private: a hand of the day of theirs named (or not) at its close. Said
    in a new message with the button that undoes it (a button names what it sets: an old one
    tapped again sets the same)."""
    message = tapped_message(query)
    user = query.from_user
    if message.chat.id != user.id:
        raise Refusal(Refused.NEED_PRIVATE)
    named = data.op is DailyOp.NAMED
    await r.core.daily.set_named(user.id, named)
    await r.outbox.send([text_row(user.id, name_text(t, named), markup=name_keys(t, named))])
    await query.answer()


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CallbackQueryHandler(tapped(DailyData, _answer), pattern=pattern(DailyData)))
    named = tapped(DailyNameData, _name)
    app.add_handler(CallbackQueryHandler(named, pattern=pattern(DailyNameData)))
