"""Commands: /nueva, /start, /cancelar, /abandonar, /reglas, /ayuda, /idioma, /tabla."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from html import escape
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Message, Update, User
from telegram.constants import ChatType
from telegram.error import Forbidden
from telegram.ext import Application, CommandHandler, ContextTypes

from bot.app import Services, services
from bot.callbacks import LanguageData, pack
from bot.game import MatchConfig
from bot.handlers.common import (
    chat_translator,
    in_group,
    is_admin,
    is_group,
    is_member,
    refusal_text,
    reply,
    see,
    table_translator,
    thread_of,
)
from bot.handlers.config import defaults_config
from bot.i18n import Translator
from bot.service.publisher import hand_row
from bot.service.tables import Refusal
from bot.storage.repo import Table, TableStatus
from bot.views.history import pager
from bot.views.standings import numbers_text, standings_pages

log = logging.getLogger(__name__)


def parse_options(
    args: list[str], base: MatchConfig | None = None
) -> tuple[MatchConfig, str | None]:
    """`/nueva 2v2 15 sinflor` over the group defaults: (config, first word not understood)."""
    base = base or MatchConfig()
    players, target, flor, house = base.players, base.target, base.flor, base.mazo_penalty
    for raw in args:
        word = raw.lower().replace("-", "").replace(" ", "")
        if word in ("1v1", "1vs1", "1x1"):
            players = 2
        elif word in ("2v2", "2vs2", "2x2", "parejas"):
            players = 4
        elif word in ("30", "15"):
            target = int(word)
        elif word in ("conflor", "flor"):
            flor = True
        elif word in ("sinflor", "noflor"):
            flor = False
        elif word in ("casa", "mazo2"):
            house = True
        elif word in ("sincasa", "mazo1"):
            house = False
        else:
            return MatchConfig(), raw[:32]
    return MatchConfig(players=players, target=target, flor=flor, mazo_penalty=house), None


BOT_WORDS = ("bot", "robot", "maquina", "máquina", "cpu", "ia", "ai")
LEVEL_WORDS = {
    "facil": "facil", "fácil": "facil", "easy": "facil",
    "normal": "normal", "medio": "normal",
    "dificil": "dificil", "difícil": "dificil", "hard": "dificil",
}  # fmt: skip


def parse_bot(args: list[str]) -> tuple[list[str], bool, str | None]:
    """`/nueva bot difícil 15`: (the other words, a computer player wanted, its level)."""
    rest: list[str] = []
    wanted, level = False, None
    for raw in args:
        word = raw.lower()
        if word in BOT_WORDS:
            wanted = True
        elif word in LEVEL_WORDS:
            wanted, level = True, LEVEL_WORDS[word]
        else:
            rest.append(raw)
    return rest, wanted, level


async def can_write(
    context: ContextTypes.DEFAULT_TYPE, s: Services, user: User, t: Translator
) -> bool:
    """Try the private chat: the join confirmation doubles as the check."""
    try:
        await context.bot.send_message(user.id, t("dm.joined"))
    except Forbidden:
        await see(s, user, can_dm=False)
        return False
    await see(s, user, can_dm=True)
    return True


async def check_member(
    context: ContextTypes.DEFAULT_TYPE, table: Table, user_id: int, tapped_in_group: bool
) -> None:
    """Only the group's members sit at its tables. When Telegram will not tell (a supergroup
    that hides its members), a tap on the group's own lobby is taken as proof enough, since only
    who sees the group can tap there; a link alone is not."""
    member = await is_member(context, table.chat_id, user_id)
    if member is False or (member is None and not tapped_in_group):
        raise Refusal("not_member" if member is False else "member_unknown")


async def nueva(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    command = await in_group(update, context)
    if command is None:
        return
    message, user, chat, s, t = command
    defaults = await s.store.chat_defaults(chat.id)
    words, with_bots, level = parse_bot(list(context.args or []))
    config, bad = parse_options(words, defaults_config(defaults))
    if bad is not None:
        await reply(context, message, t("nueva.bad_arg", arg=_plain(bad)) + t("nueva.usage"))
        return
    await see(s, user)
    thread = thread_of(message)
    if await s.tables.table_in(chat.id, thread) is not None:
        await reply(context, message, t("refusal.table_already_open"))
        return
    seated = await can_write(context, s, user, t)  # the opener sits at once if they can
    try:
        table = await s.tables.open_lobby(
            chat.id, thread, user.id, config, t.language,
            int(defaults.get("timer", s.settings.turn_seconds)), seat_opener=seated,
        )  # fmt: skip
    except Refusal as refusal:
        await reply(context, message, refusal_text(t, refusal))
        return
    if with_bots:
        await _fill_with_bots(s, chat.id, table.id, user.id, config.players, level)


async def _fill_with_bots(
    s: Services, chat_id: int, table_id: int, opener: int, players: int, level: str | None
) -> None:
    """`/nueva bot`: computer players in every other seat, so the match starts at once (or
    as soon as the opener, who cannot be messaged yet, joins: one seat is kept for them)."""
    if level is None:
        level = str((await s.store.chat_defaults(chat_id)).get("bot", s.settings.bot_level))
    for team in [0, 1, 1] if players == 4 else [None]:
        try:
            await s.tables.add_bot(table_id, opener, team, level)
        except Refusal:
            return


def _plain(text: str) -> str:
    return escape(text)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    s = services(context)
    t = await chat_translator(context, chat.id)
    if chat.type != ChatType.PRIVATE:
        await reply(context, message, t("help"))
        return
    await see(s, user, can_dm=True)
    payload = (context.args or [""])[0]
    if payload[:1] == "h" and payload[1:].isdigit():  # a player who blocked the bot, back
        table = await s.tables.get(int(payload[1:]))
        if table is not None and table.seat_of(user.id) is not None:
            await s.publisher.say(hand_row(table, user.id, loud=True))
            return
    elif payload[:1] == "j" and len(payload) > 1:
        found = await s.store.table_by_token(payload[1:])
        table = await s.tables.get(found.id) if found is not None else None
        t = table_translator(table, t)
        try:
            if table is None:
                raise Refusal("lobby_closed")
            await check_member(context, table, user.id, tapped_in_group=False)
            await s.tables.join(table.id, user.id)
        except Refusal as refusal:
            await reply(context, message, t("start.join_failed", why=refusal_text(t, refusal)))
            return
        await reply(context, message, t("start.joined"))
        return
    await reply(context, message, t("start.welcome"))


async def group_table(
    update: Update, context: ContextTypes.DEFAULT_TYPE, missing: str
) -> tuple[Message, User, Services, Translator, Table] | None:
    """The open table of the group (or topic) a command came from; replies if there is none."""
    command = await in_group(update, context)
    if command is None:
        return None
    message, user, chat, s, t = command
    table = await s.tables.table_in(chat.id, thread_of(message))
    if table is None or (missing == "no_game" and table.status is not TableStatus.PLAYING):
        await reply(context, message, t(f"refusal.{missing}"))
        return None
    return message, user, s, t, table


async def cancelar(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await group_table(update, context, "no_table")
    if found is None:
        return
    message, user, s, t, table = found
    admin = user.id != table.opener_id and await is_admin(context, table.chat_id, user.id)
    why = await cancel_table(context, s, table, user.id, admin, t)
    if why is not None:
        await reply(context, message, why)


async def cancel_table(
    context: ContextTypes.DEFAULT_TYPE,
    s: Services,
    table: Table,
    user_id: int,
    admin: bool,
    t: Translator,
) -> str | None:
    """Cancel; returns the refusal text, if any (sent as a reply by the caller)."""
    was = table.status
    try:
        table = await s.tables.cancel(table.id, user_id, admin)
    except Refusal as refusal:
        return refusal_text(t, refusal)
    log.info("table %s cancelled (was %s) by %s", table.id, was.value, user_id)
    return None


async def abandonar(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    found = await group_table(update, context, "no_game")
    if found is None:
        return
    message, user, s, t, table = found
    try:
        await s.tables.concede(table.id, user.id)
    except Refusal as refusal:
        await reply(context, message, refusal_text(t, refusal))


async def reglas(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_message and update.effective_chat:
        t = await chat_translator(context, update.effective_chat.id)
        await reply(context, update.effective_message, t("reglas"))


async def ayuda(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_message and update.effective_chat:
        t = await chat_translator(context, update.effective_chat.id)
        await reply(context, update.effective_message, t("help"))


async def idioma(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_message is None or update.effective_chat is None:
        return
    t = await chat_translator(context, update.effective_chat.id)
    markup = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton("🇦🇷 Castellano", callback_data=pack(LanguageData("es"))),
                InlineKeyboardButton("🇬🇧 English", callback_data=pack(LanguageData("en"))),
            ]
        ]
    )
    await reply(context, update.effective_message, t("idioma.choose"), markup)


def parse_tabla(args: list[str]) -> tuple[int | None, bool] | None:
    """`/tabla [1v1|2v2] [mes]`: (players, this month only), or None if not understood."""
    players: int | None = None
    month = False
    for raw in args:
        word = raw.lower()
        if word in ("1v1", "2v2"):
            players = 2 if word == "1v1" else 4
        elif word in ("mes", "month"):
            month = True
        else:
            return None
    return players, month


def month_start(now: float) -> float:
    moment = datetime.fromtimestamp(now, tz=UTC)
    return moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0).timestamp()


async def tabla(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    command = await in_group(update, context)
    if command is None:
        return
    message, _, chat, s, t = command
    parsed = parse_tabla(list(context.args or []))
    if parsed is None:
        await reply(context, message, t("tabla.usage"))
        return
    players, month = parsed
    key = (players or 0) + (100 if month else 0)
    asker = update.effective_user.id if update.effective_user else 0
    text, markup = await tabla_page(s, t, chat.id, asker, key, 0)
    await reply(context, message, text, markup)


async def tabla_page(
    s: Services, t: Translator, chat_id: int, asker: int, key: int, page: int
) -> tuple[str, InlineKeyboardMarkup | None]:
    """One page of /tabla (key: 0 all, 2 1v1, 4 2v2, plus 100 for this month)."""
    players = key % 100 or None
    if players not in (None, 2, 4):
        players = None
    since = month_start(s.tables.clock()) if key >= 100 else None
    rows = await s.league.standings(chat_id, players, since)
    scope = " · ".join(
        [t("tabla.scope_month") if since else t("tabla.scope_all")]
        + (["1v1" if players == 2 else "2v2"] if players else [])
    )
    pairs = await s.league.pairs(chat_id, since) if players == 4 else []
    pages = standings_pages(t, rows, scope, pairs, asker)
    page = max(0, min(page, len(pages) - 1))
    buttons = pager("t", key, page, len(pages))
    return pages[page], InlineKeyboardMarkup([buttons]) if len(pages) > 1 else None


async def yo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    s = services(context)
    t = await chat_translator(context, chat.id)
    await see(s, user)
    here = await s.league.numbers(user.id, chat.id if is_group(chat) else None)
    everywhere = await s.league.numbers(user.id)
    bots = await s.league.against_bots(user.id)
    text = numbers_text(t, user.full_name, here, everywhere, bots)
    await reply(context, message, text)


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CommandHandler("nueva", nueva))
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CommandHandler("cancelar", cancelar))
    app.add_handler(CommandHandler("abandonar", abandonar))
    app.add_handler(CommandHandler("reglas", reglas))
    app.add_handler(CommandHandler(["ayuda", "help"], ayuda))
    app.add_handler(CommandHandler("idioma", idioma))
    app.add_handler(CommandHandler("tabla", tabla))
    app.add_handler(CommandHandler(["yo", "stats"], yo))
