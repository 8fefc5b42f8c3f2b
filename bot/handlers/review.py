"""/revision <n> (/review): a person's review of a match they played, in their private chat;
and the link the group's /partida and the end of a match offer (`/start v<n>`)."""

from __future__ import annotations

from typing import Any

from telegram import CallbackQuery, Message, Update, User
from telegram.constants import ChatType
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    filters,
)

from bot.callbacks import PageData, PageView, QuizData, QuizOp, pattern
from bot.handlers.common import (
    ascii_number,
    chat_translator,
    edit_tapped,
    refusal_text,
    reply,
    runtime,
    see,
    tapped,
    tapped_message,
)
from bot.i18n import Translator
from bot.model.refusals import Refused
from bot.runtime import Runtime
from bot.service.changes import Refusal
from bot.telegram.rows import edit_row
from bot.views.common import Button, Keys, plain, seating_at
from bot.views.quiz import (
    answer_text,
    asked,
    end_keys,
    end_text,
    intro_text,
    next_keys,
    question_keys,
    question_of,
)
from bot.views.review import review_pager, review_pages

START = "v"  # `/start v<n>`: the review of match n, from a link
AGAIN_WORDS = ("repaso", "repasar", "again")  # `/revision repaso`: the moments missed, due now


def review_link(username: str | None, number: int) -> str | None:
    """The link that opens the bot's private chat asking for match `number`'s review."""
    return f"https://t.me/{username}?start={START}{number}" if username else None


async def send_review(
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    user: User,
    r: Runtime,
    t: Translator,
    number: int,
) -> None:
    """The asker's review of match `number` (refused clearly when it is not theirs to have):
    its costly moments asked first, one by one, each answer told after theirs; a review with
    none to ask, whole at once."""
    reviews = r.core.reviews
    try:
        table, _ = await reviews.playable(number, user.id)
        if await reviews.store.get(table.id, user.id) is None:
            await reply(context, message, t("revision.working", number=number))
        found = await reviews.of(number, user.id)
    except Refusal as refusal:
        await reply(context, message, refusal_text(t, refusal))
        return
    order = asked(found)
    if not order:  # nothing to ask: the review, in pages a phone shows whole
        who = seating_at(t, table, await r.core.people.at(table))
        pages = review_pages(t, found, str(number), who)
        await reply(context, message, pages[0], review_pager(number, 0, len(pages)))
        return
    first = order[0]
    puzzle = found.slips[first].puzzle
    assert puzzle is not None
    text = intro_text(t, found, str(number)) + "\n\n" + question_of(t, found, first, str(number))
    await reply(context, message, text, question_keys(t, number, first, puzzle, again=False))


async def send_due(
    context: ContextTypes.DEFAULT_TYPE, message: Message, user: User, r: Runtime, t: Translator
) -> bool:
    """The first of the asker's moments missed before and due again, as a question (False if
    none is due)."""
    due = await r.core.reviews.due(user.id)
    if not due:
        return False
    number, index = due[0]
    found = await r.core.reviews.of(number, user.id)
    puzzle = found.slips[index].puzzle
    assert puzzle is not None
    text = question_of(t, found, index, str(number), again=True)
    await reply(context, message, text, question_keys(t, number, index, puzzle, again=True))
    return True


async def revision(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    r = runtime(context)
    t = await chat_translator(context, chat.id)
    args = context.args or []
    again = len(args) == 1 and args[0].lower() in AGAIN_WORDS  # the moments missed, due now
    number = ascii_number(args[0].lstrip("#")) if len(args) == 1 and not again else None
    if number is None and not args:  # (alone: their last match, a practice's too)
        number = await r.core.history.last_played(user.id)
    if chat.type != ChatType.PRIVATE and (number is not None or again):  # their cards are theirs
        link = review_link(context.bot.username, number) if number is not None else None
        keys = Keys.of([[Button(t("revision.button"), url=link)]]) if link else None
        await reply(context, message, t("revision.private", number=number or "&lt;n&gt;"), keys)
        return
    if chat.type == ChatType.PRIVATE:
        await see(r, user, can_dm=True)
    if again:
        if not await send_due(context, message, user, r, t):
            await reply(context, message, t("quiz.none_due"))
        return
    if number is None:
        await reply(context, message, t("revision.usage"))
        return
    await send_review(context, message, user, r, t, number)


async def start_review(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """`/start v<n>` in private (a review link): the review, and no other /start answer."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    payload = (context.args or [""])[0]
    number = ascii_number(payload[len(START) :])
    if number is None:
        return  # not a review link after all: /start answers as ever
    r = runtime(context)
    await see(r, user, can_dm=True)
    t = await chat_translator(context, chat.id)
    await send_review(context, message, user, r, t, number)
    raise ApplicationHandlerStop


async def _review(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: PageData,
    t: Translator,
) -> None:  # fmt: skip
    """📝 under the end of a match, in the player's private chat: their review, below it."""
    message = tapped_message(query)
    if message.chat.type != ChatType.PRIVATE:  # (never in a group: their cards are theirs)
        await query.answer(plain(t("revision.private", number=data.key)), show_alert=True)
        return
    await query.answer()
    await send_review(context, message, query.from_user, r, t, data.key)


async def _quiz(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: QuizData,
    t: Translator,
) -> None:  # fmt: skip
    """A review answered first, in private: an answer (the question's message then tells what
    was best), the next moment, the next one due again, or the whole review at once."""
    message = tapped_message(query)
    user = query.from_user
    if message.chat.type != ChatType.PRIVATE:
        raise Refusal(Refused.NEED_PRIVATE)
    reviews = r.core.reviews
    if data.op in (QuizOp.ANSWER, QuizOp.AGAIN):
        again = data.op is QuizOp.AGAIN
        found, moment, right = await reviews.answer(data.table, user.id, data.index,
                                                    data.choice or 0)  # fmt: skip
        assert moment.puzzle is not None
        told = question_of(t, found, data.index, str(data.table), again)
        told += "\n\n" + answer_text(t, moment, data.choice or 0, right)
        more = bool(await reviews.due(user.id)) if again else False
        keys = next_keys(t, data.table, data.index, again, more)
        await r.outbox.send([edit_row(message.chat.id, message.message_id, told, keys)])
        await query.answer(plain(t("quiz.right_pop" if right else "quiz.wrong_pop")))
        return
    await query.answer()
    if data.op is QuizOp.DUE:
        if not await send_due(context, message, user, r, t):
            await reply(context, message, t("quiz.none_due"))
        return
    found = await reviews.of(data.table, user.id)
    if data.op is QuizOp.ALL:
        table, _ = await reviews.playable(data.table, user.id)
        who = seating_at(t, table, await r.core.people.at(table))
        pages = review_pages(t, found, str(data.table), who)
        await reply(context, message, pages[0], review_pager(data.table, 0, len(pages)))
        return
    later = [i for i in asked(found) if i >= data.index]
    if later:  # the match's next moment
        index = later[0]
        puzzle = found.slips[index].puzzle
        assert puzzle is not None
        await reply(context, message, question_of(t, found, index, str(data.table)),
                    question_keys(t, data.table, index, puzzle, again=False))  # fmt: skip
        return
    answers = await reviews.first_answers(data.table, user.id)
    due = len(await reviews.due(user.id))
    await reply(context, message, end_text(t, found, answers, due), end_keys(t, data.table, due))


async def _review_page(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: PageData,
    t: Translator,
) -> None:  # fmt: skip
    """◀️ ▶️ under a review: another page of it, in place; only the tapper's own review, and
    only one already made (a page button is never what asks for a review to be computed)."""
    message = tapped_message(query)
    table, found = await r.core.reviews.kept(data.key, query.from_user.id)  # (a Refusal: said)
    if found is None:
        await query.answer(t("refusal.stale_page"))
        return
    who = seating_at(t, table, await r.core.people.at(table))
    pages = review_pages(t, found, str(data.key), who)
    if data.page >= len(pages):
        await query.answer(t("refusal.stale_page"))
        return
    keys = review_pager(data.key, data.page, len(pages))
    await edit_tapped(r, query, message, pages[data.page], keys)
    await query.answer()


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CommandHandler(["revision", "review"], revision))
    private_link = filters.ChatType.PRIVATE & filters.Regex(rf"^/start {START}\d+$")
    app.add_handler(CommandHandler("start", start_review, filters=private_link), group=-1)
    review = tapped(PageData, _review)
    app.add_handler(CallbackQueryHandler(review, pattern=pattern(PageData, PageView.REVIEW)))
    app.add_handler(CallbackQueryHandler(tapped(QuizData, _quiz), pattern=pattern(QuizData)))
    page = tapped(PageData, _review_page)
    app.add_handler(CallbackQueryHandler(page, pattern=pattern(PageData, PageView.REVIEWED)))
