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

from bot.callbacks import PageData, PageView, pattern
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
from bot.runtime import Runtime
from bot.service.changes import Refusal
from bot.views.common import Button, Keys, plain, seating_at
from bot.views.review import review_pager, review_pages

START = "v"  # `/start v<n>`: the review of match n, from a link


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
    """The asker's review of match `number` (refused clearly when it is not theirs to have)."""
    reviews = r.core.reviews
    try:
        table, _ = await reviews.playable(number, user.id)
        if await reviews.store.get(table.id, user.id) is None:
            await reply(context, message, t("revision.working", number=number))
        found = await reviews.of(number, user.id)
    except Refusal as refusal:
        await reply(context, message, refusal_text(t, refusal))
        return
    who = seating_at(t, table, await r.core.people.at(table))
    pages = review_pages(t, found, str(number), who)
    await reply(context, message, pages[0], review_pager(number, 0, len(pages)))


async def revision(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    r = runtime(context)
    t = await chat_translator(context, chat.id)
    args = context.args or []
    number = ascii_number(args[0].lstrip("#")) if len(args) == 1 else None
    if number is None and not args:  # (alone: their last match, a practice's too)
        number = await r.core.history.last_played(user.id)
    if chat.type != ChatType.PRIVATE and number is not None:  # their cards are theirs
        link = review_link(context.bot.username, number)
        keys = Keys.of([[Button(t("revision.button"), url=link)]]) if link else None
        await reply(context, message, t("revision.private", number=number), keys)
        return
    if chat.type == ChatType.PRIVATE:
        await see(r, user, can_dm=True)
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
    page = tapped(PageData, _review_page)
    app.add_handler(CallbackQueryHandler(page, pattern=pattern(PageData, PageView.REVIEWED)))
