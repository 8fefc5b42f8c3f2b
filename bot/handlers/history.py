"""/historial, /partida <n>, /verificar <n>, and their buttons: reading finished matches."""

from __future__ import annotations

import io
from datetime import UTC, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from telegram import CallbackQuery, Message, Update
from telegram.error import Forbidden
from telegram.ext import Application, CommandHandler, ContextTypes

from bot.app import Services
from bot.callbacks import PageData
from bot.game import Deal, parse_any
from bot.game.record import hands_of
from bot.handlers.commands import tabla_page
from bot.handlers.common import in_group, reply
from bot.i18n import Translator
from bot.service.publisher import edit_row
from bot.storage.repo import Table
from bot.views.history import export_json, history_view, match_markup, match_pages, verify_text

LISTED = 10


def zone(s: Services) -> tzinfo:
    try:
        return ZoneInfo(s.settings.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


async def finished(s: Services, chat_id: int, number: int) -> Table | None:
    """A finished match of this chat (never another group's, never one still in play)."""
    table = await s.store.table(number)
    if table is None or table.chat_id != chat_id or table.is_open or table.state is None:
        return None
    return table


def number_arg(args: list[str] | None) -> int | None:
    if not args or len(args) != 1:
        return None
    word = args[0].lstrip("#")
    return int(word) if word.isdigit() and len(word) <= 12 else None


async def historial(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    command = await in_group(update, context)
    if command is None:
        return
    message, _, chat, s, t = command
    rows = await s.store.recent_matches(chat.id, LISTED)
    listed = []
    for record in rows:
        table = await s.store.table(record["game_id"])
        if table is not None:
            listed.append((record, await s.publisher.who(table)))
    text, markup = history_view(t, listed, zone(s))
    await reply(context, message, text, markup)


async def _numbered(
    update: Update, context: ContextTypes.DEFAULT_TYPE, usage: str, running_too: bool
) -> tuple[Message, Services, Translator, Table] | None:
    """`/partida <n>`, `/verificar <n>`: this group's match `n` (finished, unless `running_too`),
    or None after saying why not."""
    command = await in_group(update, context)
    if command is None:
        return None
    message, _, chat, s, t = command
    number = number_arg(context.args)
    if number is None:
        await reply(context, message, t(usage))
        return None
    if running_too:
        table = await s.store.table(number)
        if table is not None and (table.chat_id != chat.id or table.state is None):
            table = None
    else:
        table = await finished(s, chat.id, number)
    if table is None:
        await reply(context, message, t("partida.not_found"))
        return None
    return message, s, t, table


async def partida(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await _numbered(update, context, "partida.usage", running_too=False)
    if found is not None:
        message, s, t, table = found
        pages = await _pages(s, table, t)
        await reply(context, message, pages[0], match_markup(table.id, 0, len(pages), t))


async def verificar(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await _numbered(update, context, "verificar.usage", running_too=True)
    if found is not None:
        message, s, t, table = found
        await reply(context, message, await _verify(s, table, t))


async def _log(s: Services, table: Table) -> list[Any]:
    return [parse_any(code) for _, _, code in await s.store.action_log(table.id)]


async def _pages(s: Services, table: Table, t: Translator) -> list[str]:
    _, hands = hands_of(table.config, await _log(s, table))
    return match_pages(t, await s.publisher.who(table), table, hands, zone(s))


async def _verify(s: Services, table: Table, t: Translator) -> str:
    deals = [a for a in await _log(s, table) if isinstance(a, Deal)]
    return verify_text(t, table, deals)


async def on_page(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, s: Services, data: PageData,
    t: Translator,
) -> None:  # fmt: skip
    """A tap on a reading button: a page of a match, its export, its verification."""
    message = query.message
    if not isinstance(message, Message):
        await query.answer()
        return
    chat_id = message.chat.id
    if data.view == "t":
        text, markup = await tabla_page(s, t, chat_id, query.from_user.id, data.key, data.page)
        await s.publisher.say(edit_row(chat_id, message.message_id, text, markup))
        await query.answer()
        return
    table = await finished(s, chat_id, data.key)
    if table is None:
        await query.answer(t("partida.not_found"))
        return
    if data.view == "m":
        pages = await _pages(s, table, t)
        page = min(data.page, len(pages) - 1)
        markup = match_markup(table.id, page, len(pages), t)
        if message.text is not None and message.text.startswith("📜"):  # from /historial
            await reply(context, message, pages[page], markup)
        else:
            await s.publisher.say(edit_row(chat_id, message.message_id, pages[page], markup))
        await query.answer()
    elif data.view == "f":
        await reply(context, message, await _verify(s, table, t))
        await query.answer()
    elif data.view == "j":
        names = await s.publisher.names(table)
        record = await s.store.match_record(table.id)
        body = export_json(table, names, record, await _log(s, table))
        try:
            await context.bot.send_document(
                query.from_user.id,
                io.BytesIO(body),
                filename=f"partida-{table.id}.json",
                caption=t("export.caption", number=table.id),
            )
        except Forbidden:
            await query.answer(t("refusal.need_private"), show_alert=True)
            return
        await query.answer(t("export.sent"))


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CommandHandler("historial", historial))
    app.add_handler(CommandHandler("partida", partida))
    app.add_handler(CommandHandler("verificar", verificar))
