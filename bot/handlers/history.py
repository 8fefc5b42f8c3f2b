"""/historial, /partida <n>, /verificar <n>, and their buttons: reading finished matches."""

from __future__ import annotations

import io
from typing import Any

from telegram import CallbackQuery, Message, Update
from telegram.constants import ChatType
from telegram.error import Forbidden
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.callbacks import PageData, PageView, pattern
from bot.game import Deal
from bot.game.record import hands_of
from bot.handlers.common import (
    GroupCommand,
    ascii_number,
    chat_translator,
    edit_tapped,
    in_group,
    paid,
    reply,
    runtime,
    tapped,
    tapped_message,
    zone,
)
from bot.i18n import Translator, translator
from bot.model.table import Table, TableStatus
from bot.runtime import Runtime
from bot.views.common import Button, Keys, seating_at
from bot.views.history import export_json, history_view, match_markup, match_pages, verify_text

LISTED = 10


async def finished(r: Runtime, chat_id: int, number: int) -> Table | None:
    """A finished match of this chat (never another group's, never one still in play)."""
    table = await r.core.history.table(number)
    if table is None or table.chat_id != chat_id or table.is_open or table.state is None:
        return None
    return table


def number_arg(args: list[str] | None) -> int | None:
    if not args or len(args) != 1:
        return None
    return ascii_number(args[0].lstrip("#"))


async def in_group_or_private(
    update: Update, context: ContextTypes.DEFAULT_TYPE
) -> GroupCommand | None:
    """A group's command, or the same in a private chat: there, the matches are the person's
    practices (a practice's place is their chat with the bot)."""
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    private = chat is not None and chat.type == ChatType.PRIVATE
    if message is not None and user is not None and chat is not None and private:
        t = await chat_translator(context, chat.id)
        return GroupCommand(message, user, chat, runtime(context), t)
    return await in_group(update, context)


async def historial(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    command = await in_group_or_private(update, context)
    if command is None:
        return
    message, _, chat, r, t, _ = command
    rows = await r.core.history.recent(chat.id, LISTED)
    listed = []
    for record in rows:
        table = await r.core.history.table(record.table_id)
        if table is not None:
            names = await r.core.people.at(table)
            listed.append((record, seating_at(translator(table.language), table, names)))
    text, keys = history_view(t, listed, zone(r))
    await reply(context, message, text, keys)


async def _numbered(
    update: Update, context: ContextTypes.DEFAULT_TYPE, usage: str, running_too: bool
) -> tuple[Message, Runtime, Translator, Table] | None:
    """`/partida <n>`, `/verificar <n>`: this group's match `n` (finished, unless `running_too`),
    or None after saying why not."""
    command = await in_group_or_private(update, context)
    if command is None:
        return None
    message, _, chat, r, t, _ = command
    number = number_arg(context.args)
    if number is None:
        await reply(context, message, t(usage))
        return None
    if running_too:
        table = await r.core.history.table(number)
        if table is not None and (table.chat_id != chat.id or table.state is None):
            table = None
    else:
        table = await finished(r, chat.id, number)
    if table is None:
        await reply(context, message, t("partida.not_found"))
        return None
    return message, r, t, table


async def partida(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await _numbered(update, context, "partida.usage", running_too=False)
    if found is not None:
        message, r, t, table = found
        pages = await _pages(r, table, t)
        await reply(context, message, pages[0], _keys(context, r, table, 0, len(pages), t))


async def verificar(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await _numbered(update, context, "verificar.usage", running_too=True)
    if found is not None:
        message, r, t, table = found
        await reply(context, message, await _verify(r, table, t))


def _keys(
    context: ContextTypes.DEFAULT_TYPE,
    r: Runtime,
    table: Table,
    page: int,
    pages: int,
    t: Translator,
) -> Keys:
    """A match's buttons, and 📝 for the review of who played it (in private: `/start v<n>`,
    bot/handlers/review.py)."""
    keys = match_markup(table.id, page, pages, t, _watch(context, r, table))
    if table.status is TableStatus.FINISHED and context.bot.username:
        link = f"https://t.me/{context.bot.username}?start=v{table.id}"
        keys = Keys((*keys, (Button(t("revision.button"), url=link),)))
    return keys


def _watch(context: ContextTypes.DEFAULT_TYPE, r: Runtime, table: Table) -> str | None:
    """The web table's direct link to watch match `table` again (None: no web table)."""
    name = r.settings.webapp_name
    if not name or not r.settings.webapp_url:
        return None
    return f"https://t.me/{context.bot.username}/{name}?startapp=r{table.id}"


async def _log(r: Runtime, table: Table) -> list[Any]:
    return list(await r.core.history.log(table.id))


async def _pages(r: Runtime, table: Table, t: Translator) -> list[str]:
    _, hands = hands_of(table.config, await _log(r, table))
    names = await r.core.people.at(table)
    return match_pages(t, seating_at(t, table, names), table, hands, zone(r))


async def _verify(r: Runtime, table: Table, t: Translator) -> str:
    deals = [a for a in await _log(r, table) if isinstance(a, Deal)]
    return verify_text(t, table, deals)


async def _page(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: PageData,
    t: Translator,
) -> None:  # fmt: skip
    """A tap on a reading button: a match from the list, a page of it, its export, its deals
    verified."""
    message = tapped_message(query)
    chat_id = message.chat.id
    table = await finished(r, chat_id, data.key)
    if table is None:
        await query.answer(t("partida.not_found"))
        return
    if data.view in (PageView.MATCH, PageView.PAGE):
        pages = await _pages(r, table, t)
        if data.page >= len(pages):  # (a page this match no longer has: nothing to turn to)
            await query.answer(t("refusal.stale_page"))
            return
        keys = _keys(context, r, table, data.page, len(pages), t)
        if data.view is PageView.MATCH:  # from /historial: the match comes below, the list stays
            await reply(context, message, pages[data.page], keys)
        else:
            await edit_tapped(r, query, message, pages[data.page], keys)
        await query.answer()
    elif data.view is PageView.VERIFY:
        await reply(context, message, await _verify(r, table, t))
        await query.answer()
    elif data.view is PageView.EXPORT:
        names = await r.core.people.at(table)
        record = await r.core.history.record(table.id)
        body = export_json(table, names, record, await _log(r, table))
        try:
            await context.bot.send_document(
                query.from_user.id,
                io.BytesIO(body),
                filename=f"partida-{table.id}.json",
                caption=t("export.caption", number=table.id),
                allow_paid_broadcast=paid(r),
            )
        except Forbidden:
            await query.answer(t("refusal.need_private"), show_alert=True)
            return
        await query.answer(t("export.sent"))


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CommandHandler("historial", historial))
    app.add_handler(CommandHandler("partida", partida))
    app.add_handler(CommandHandler("verificar", verificar))
    reading = pattern(PageData, PageView.MATCH, PageView.PAGE, PageView.EXPORT, PageView.VERIFY)
    app.add_handler(CallbackQueryHandler(tapped(PageData, _page), pattern=reading))
