"""The league: /tabla (and its pages), /yo."""

from __future__ import annotations

import functools
from datetime import datetime, tzinfo
from typing import Any

from telegram import CallbackQuery, Chat, Update
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.callbacks import PageData, PageView, Scope, TablaData, pattern
from bot.game.seats import SEAT_COUNTS, mode_of, players_of, seats
from bot.handlers.common import (
    chat_translator,
    edit_tapped,
    in_group,
    is_group,
    reply,
    runtime,
    see,
    tapped,
    tapped_message,
    zone,
)
from bot.i18n import Translator
from bot.runtime import Runtime
from bot.views.common import Keys
from bot.views.daily import name_keys, name_text, tally_text
from bot.views.pages import pager
from bot.views.review import lesson_text, month_luck_text
from bot.views.standings import numbers_pages, standings_pages

MODES = frozenset(mode_of(n) for n in SEAT_COUNTS)  # "1v1", "2v2", "3v3"


def parse_tabla(args: list[str]) -> tuple[int | None, bool] | None:
    """`/tabla [1v1|2v2] [mes]`: (players, this month only), or None if not understood."""
    players: int | None = None
    month = False
    for raw in args:
        word = raw.lower()
        if word in MODES:
            players = players_of(word)
        elif word in ("mes", "month"):
            month = True
        else:
            return None
    return players, month


def month_start(now: float, where: tzinfo) -> float:
    """Midnight of the first day of this month, where the group's dates are told."""
    moment = datetime.fromtimestamp(now, tz=where)
    return moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0).timestamp()


async def tabla(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    command = await in_group(update, context)
    if command is None:
        return
    message, user, chat, r, t, _ = command
    parsed = parse_tabla(list(context.args or []))
    if parsed is None:
        await reply(context, message, t("tabla.usage"))
        return
    players, month = parsed
    text, keys = await tabla_page(r, t, chat.id, user.id, Scope(players, month), 0)
    await reply(context, message, text or t("tabla.empty"), keys)


async def tabla_page(
    r: Runtime, t: Translator, chat_id: int, asker: int, scope_of: Scope, page: int
) -> tuple[str | None, Keys | None]:
    """One page of /tabla: one mode's standings (or every match's), this month's or all (None:
    no such page)."""
    players = scope_of.players
    since = month_start(r.core.clock(), zone(r)) if scope_of.month else None
    rows = await r.core.history.standings(chat_id, players, since)
    scope = " · ".join(
        [t("tabla.scope_month") if since else t("tabla.scope_all")]
        + ([mode_of(players)] if players else [])
    )
    teams = players is not None and seats(players).team_size > 1
    pairs = await r.core.history.pairs(chat_id, players, since) if teams and players else []
    pages = standings_pages(t, rows, scope, pairs, asker)
    if page >= len(pages):  # (a page the table no longer has: the tap is answered so)
        return None, None
    buttons = pager(lambda n: TablaData(scope_of, n), page, len(pages))
    return pages[page], Keys.of([buttons]) if len(pages) > 1 else None


async def _tabla_page(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: TablaData,
    t: Translator,
) -> None:  # fmt: skip
    message = tapped_message(query)
    chat_id = message.chat.id
    text, keys = await tabla_page(r, t, chat_id, query.from_user.id, data.scope, data.page)
    if text is None:
        await query.answer(t("refusal.stale_page"))
        return
    await edit_tapped(r, query, message, text, keys)
    await query.answer()


async def yo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    r = runtime(context)
    t = await chat_translator(context, chat.id)
    await see(r, user)
    text, keys = await yo_page(r, t, user.id, chat, 0)
    await reply(context, message, text or t("yo.none"), keys)


async def yo_page(
    r: Runtime, t: Translator, user_id: int, chat: Chat, page: int
) -> tuple[str | None, Keys | None]:
    """A page of /yo: `user_id`'s numbers, as asked in `chat` (None: no such person, or no
    such page)."""
    name = (await r.core.people.names([user_id])).get(user_id)
    if name is None:
        return None, None
    grouped = is_group(chat)
    here = await r.core.history.numbers(user_id, chat.id if grouped else None)
    everywhere = await r.core.history.numbers(user_id)
    bots = await r.core.history.against_bots(user_id)
    more = []
    lesson = await r.core.reviews.lesson(user_id)  # from their reviewed matches (/revision)
    if lesson is not None:
        more.append(lesson_text(t, *lesson))
    since = month_start(r.core.clock(), zone(r))
    matches, result, decisions, noise = await r.core.reviews.luck_since(user_id, since)
    if matches:  # ¿suerte o viveza? this month, over their reviewed matches
        more.append(month_luck_text(t, matches, result, decisions, noise))
    extra: Keys | None = None
    if grouped:
        played, won = await r.core.tournaments.record_of(chat.id, user_id)
        if played:
            more.append(t("yo.tourneys", played=played, won=won))
        daily = tally_text(t, await r.core.daily.tally(chat.id, user_id))
        if daily:
            more.append(daily)
    else:  # (whether a hand of the day of theirs may name them: theirs to say, in private)
        named = await r.core.daily.named(user_id)
        more.append(name_text(t, named))
        extra = name_keys(t, named)
    pages = numbers_pages(t, name, here, everywhere, bots, grouped, more)
    if page >= len(pages):
        return None, None
    at = functools.partial(PageData, PageView.NUMBERS, user_id)
    rows = [pager(at, page, len(pages))] if len(pages) > 1 else []
    keys = Keys.of([*rows, *(extra or ())])
    return pages[page], keys or None


async def _yo_page(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: PageData,
    t: Translator,
) -> None:  # fmt: skip
    """◀️ ▶️ under /yo: another page of the asker's numbers, in place (an ephemeral answer's
    too)."""
    message = tapped_message(query)
    text, keys = await yo_page(r, t, data.key, message.chat, data.page)
    if text is None:
        await query.answer(t("refusal.stale_page"))
        return
    await edit_tapped(r, query, message, text, keys)
    await query.answer()


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CommandHandler("tabla", tabla))
    app.add_handler(CommandHandler(["yo", "stats"], yo))
    page = tapped(TablaData, _tabla_page)
    app.add_handler(CallbackQueryHandler(page, pattern=pattern(TablaData)))
    numbers = tapped(PageData, _yo_page)
    app.add_handler(CallbackQueryHandler(numbers, pattern=pattern(PageData, PageView.NUMBERS)))
