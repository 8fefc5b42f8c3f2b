"""Commands: /nueva, /start, /cancelar, /abandonar, /reglas, /ayuda, /idioma (and its
buttons)."""

from __future__ import annotations

import functools
import logging
from dataclasses import replace
from html import escape
from typing import Any

from telegram import CallbackQuery, Message, Update, User
from telegram.constants import ChatType
from telegram.error import Forbidden
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from bot import links
from bot.callbacks import LanguageData, PageData, PageView, pack, pattern
from bot.game import MatchConfig
from bot.game.seats import seats
from bot.handlers.common import (
    MODE_WORDS,
    GroupCommand,
    Quiet,
    can_write,
    cancel_table,
    chat_translator,
    check_later,
    check_member,
    edit_tapped,
    in_group,
    is_admin,
    is_group,
    paid,
    place_unknown,
    refusal_text,
    reply,
    runtime,
    see,
    table_translator,
    tapped,
    tapped_message,
    thread_of,
)
from bot.i18n import Translator, languages
from bot.i18n import translator as translator_for
from bot.links import Channel, HandLink, JoinLink, NotifyLink, PartnerLink, PlaceLink, PracticeLink
from bot.model.refusals import Refused
from bot.model.table import HandPlace, PlaceKind, Table, TableStatus
from bot.runtime import Runtime
from bot.service.changes import Refusal
from bot.views.common import Button, Keys
from bot.views.pages import pager, text_pages

log = logging.getLogger(__name__)


def parse_options(
    args: list[str], base: MatchConfig | None = None
) -> tuple[MatchConfig, str | None]:
    """`/nueva 2v2 15 sinflor` over the group defaults: (config, first word not understood)."""
    config = base or MatchConfig()
    for raw in args:
        word = raw.lower().replace("-", "").replace(" ", "")
        if word in MODE_WORDS:
            config = replace(config, players=MODE_WORDS[word])
        elif word in ("30", "15"):
            config = replace(config, target=int(word))
        elif word in ("conflor", "flor"):
            config = replace(config, flor=True)
        elif word in ("sinflor", "noflor"):
            config = replace(config, flor=False)
        elif word in ("casa", "mazo2"):
            config = replace(config, house_rule=True)
        elif word in ("sincasa", "mazo1"):
            config = replace(config, house_rule=False)
        elif word in ("malas", "alasmalas", "faltamalas"):  # R46 (matches to 30)
            config = replace(config, falta_malas=True)
        else:
            return MatchConfig(), raw[:32]
    return config, None


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


async def nueva(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is not None and chat is not None and chat.type == ChatType.PRIVATE:
        if user is None:
            return
        if parse_bot(list(context.args or []))[1]:
            await _practice(context, message, user, chat.id)
        else:  # a table with people is a group's
            t = await chat_translator(context, chat.id)
            await reply(context, message, t("practice.private_only"))
        return
    command = await in_group(update, context)
    if command is None:
        return
    message, user, chat, r, t, _ = command
    defaults = await r.core.chats.defaults(chat.id)
    words, with_bots, _ = parse_bot(list(context.args or []))
    config, bad = parse_options(words, defaults.config)
    if bad is not None:
        await reply(context, message, t("nueva.bad_arg", arg=_plain(bad)) + t("nueva.usage"))
        return
    if with_bots:  # practice is private: the group's table stays free
        await _practice(context, message, user, chat.id)
        return
    await see(r, user)
    thread = thread_of(message)
    if await r.core.table_in(chat.id, thread) is not None:
        await reply(context, message, t("refusal.table_already_open"))
        return
    # (whether their hand can live in their private chat; where the table will wait in line
    # once full, checked after the lobby goes, behind the turns of the tables in play)
    unknown = await place_unknown(r, user)
    later = unknown and await r.core.lobby.admission.waits()
    if unknown and not later:
        await can_write(context, r, user, t)
    try:
        await r.core.lobby.open(
            chat.id,
            thread,
            user.id,
            config,
            t.language,
            defaults.timer,
            seat_opener=True,
            hints=defaults.hints,
        )
    except Refusal as refusal:
        await reply(context, message, refusal_text(t, refusal))
        return
    if later:
        check_later(r, user, t)


async def _practice(
    context: ContextTypes.DEFAULT_TYPE, message: Message, user: User, asked_in: int
) -> None:
    """`/nueva bot`: a practice table in the player's private chat with the bot (computer
    players in every other seat, 💡 on, the options of the chat it was asked in), never the
    group's table. Asked in a group, the group is told it goes to private."""
    r = runtime(context)
    t = await chat_translator(context, asked_in)
    in_private = asked_in == user.id
    words, _, level = parse_bot(list(context.args or []))
    defaults = await r.core.chats.defaults(asked_in)
    config, bad = parse_options(words, defaults.config)
    if bad is not None:
        await reply(context, message, t("nueva.bad_arg", arg=_plain(bad)) + t("nueva.usage"))
        return
    await see(r, user, can_dm=True if in_private else None)
    if await r.core.table_in(user.id, 0) is not None:
        key = "practice.already" if in_private else "practice.already_group"
        await reply(context, message, t(key))
        return
    if not in_private and not await _reachable(context, r, user, t("practice.opening")):
        link = links.url(PracticeLink(), context.bot.username)
        keys = Keys.of([[Button(t("button.open_private"), url=link)]])
        await reply(context, message, t("practice.cannot_write"), keys)
        return
    try:
        table = await r.core.lobby.open(
            user.id,
            0,
            user.id,
            config,
            t.language,
            defaults.timer,
            seat_opener=True,
            hints=True,  # a practice table teaches (💡 can go unused)
            place=PlaceKind.PRACTICE,
        )
    except Refusal as refusal:
        await reply(context, message, refusal_text(t, refusal))
        return
    if not in_private:
        await reply(context, message, t("practice.going"))
    await _fill_with_bots(r, table.id, user.id, config.players, level or defaults.bot)


async def _reachable(context: ContextTypes.DEFAULT_TYPE, r: Runtime, user: User, text: str) -> bool:
    """Whether the bot can write to `user` in private (the first words there double as the
    check)."""
    try:
        await context.bot.send_message(user.id, text, allow_paid_broadcast=paid(r))
    except Forbidden:
        await see(r, user, can_dm=False)
        return False
    await see(r, user, can_dm=True)
    return True


async def _fill_with_bots(r: Runtime, table_id: int, opener: int, players: int, level: str) -> None:
    """`/nueva bot`: computer players in every other seat, so the match starts at once (or
    as soon as the opener, who cannot be messaged yet, joins: one seat is kept for them)."""
    table = seats(players)
    teams: list[int | None] = [None]
    if table.team_size > 1:  # the opener sits in team 1: its free seats, then team 2's
        teams = [*[0] * (table.team_size - 1), *[1] * table.team_size]
    for team in teams:
        try:
            await r.core.lobby.add_bot(table_id, opener, team, level)
        except Refusal:
            return


async def avisame(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/avisame in a group: a note in private when a table opens there (on, or off again)."""
    command = await in_group(update, context)
    if command is None:
        return
    message, user, chat, r, t, _ = command
    if await r.say.notes_asked(chat.id, user.id):
        await r.say.ask_notes(chat.id, user.id, None)
        await reply(context, message, t("avisame.off"))
        return
    title = " ".join((chat.title or "").split())[:64]
    group = f"<b>{escape(title)}</b>" if title else t("avisame.the_group")
    if not await _reachable(context, r, user, t("avisame.on_private", group=group)):
        link = links.url(NotifyLink(), context.bot.username)
        keys = Keys.of([[Button(t("button.open_private"), url=link)]])
        await reply(context, message, t("avisame.cannot_write"), keys)
        return
    await r.say.ask_notes(chat.id, user.id, title)
    await reply(context, message, t("avisame.on"))


PLACE_WORDS = {
    "grupo": HandPlace.GROUP, "group": HandPlace.GROUP,
    "privado": HandPlace.PRIVATE, "private": HandPlace.PRIVATE,
}  # fmt: skip


async def mano(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/mano [grupo|privado]: where the person's hand lives at a group's table (in the group,
    seen by them alone, or in their private chat with the bot); without a word, where it is."""
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    r = runtime(context)
    t = await chat_translator(context, chat.id)
    in_private = chat.type == ChatType.PRIVATE
    await see(r, user, can_dm=True if in_private else None)
    args = [a.lower() for a in context.args or []]
    if not args:
        now = await r.core.people.plays_in(user.id)
        await reply(context, message, t(f"mano.now_{now.value}") + "\n" + t("mano.usage"))
        return
    place = PLACE_WORDS.get(args[0])
    if place is None or len(args) > 1:
        await reply(context, message, t("mano.usage"))
        return
    if place is HandPlace.PRIVATE and not in_private and not await can_write(context, r, user, t):
        link = links.url(PlaceLink(), context.bot.username)
        keys = Keys.of([[Button(t("button.open_private"), url=link)]])
        await reply(context, message, t("mano.start_first"), keys)
        return
    await r.core.people.choose_place(user.id, place)
    await reply(context, message, t(f"mano.chosen_{place.value}"))


def _plain(text: str) -> str:
    return escape(text)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return
    r = runtime(context)
    t = await chat_translator(context, chat.id)
    if chat.type != ChatType.PRIVATE:
        shown = reading_page(t, PageView.HELP, 0)
        assert shown is not None
        await reply(context, message, *shown)
        return
    await see(r, user, can_dm=True)
    link = links.decode(Channel.START, (context.args or [""])[0])
    if isinstance(link, HandLink):  # a player who blocked the bot, back
        table = await r.tables.get(link.table)
        if table is not None and table.seat_of(user.id) is not None:
            await r.say.hand_anew(table, user.id)
            return
    elif isinstance(link, PartnerLink):  # a partner's link to a tournament
        try:
            tour = await r.core.tournaments.open_with_invite(link.token)
            if tour is None:
                raise Refusal(Refused.NO_TOURNEY)
            t = translator_for(tour.language)
            await check_member(context, tour.chat_id, user.id, tapped_in_group=False)
            tour, inviter = await r.core.tournaments.join_team(link.token, user.id)
        except Refusal as refusal:
            await reply(context, message, t("start.join_failed", why=refusal_text(t, refusal)))
            return
        names = await r.core.people.names([inviter])
        partner = escape(names.get(inviter, "?"))
        await reply(context, message, t("tourney.partner_joined", number=tour.number, name=partner))
        return
    elif isinstance(link, JoinLink):
        found = await r.say.table_joined_by(link.token)
        table = await r.tables.get(found) if found is not None else None
        t = table_translator(table, t)
        try:
            if table is None:
                raise Refusal(Refused.LOBBY_CLOSED)
            await check_member(context, table.chat_id, user.id, tapped_in_group=False)
            await r.core.lobby.join(table.id, user.id)
        except Refusal as refusal:
            await reply(context, message, t("start.join_failed", why=refusal_text(t, refusal)))
            return
        await reply(context, message, t("start.joined"))
        return
    await reply(context, message, t("start.welcome"))


async def group_table(
    update: Update, context: ContextTypes.DEFAULT_TYPE, missing: str, admin_command: bool = False
) -> tuple[GroupCommand, Table] | None:
    """The open table of the group (or topic) a command came from; replies if there is none."""
    command = await in_group(update, context, admin_command)
    if command is None:
        return None
    message, _, chat, r, t, _ = command
    table = await r.core.table_in(chat.id, thread_of(message))
    if table is None or (missing == "no_game" and table.status is not TableStatus.PLAYING):
        await reply(context, message, t(f"refusal.{missing}"))
        return None
    return command, table


async def cancelar(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    private = chat is not None and chat.type == ChatType.PRIVATE
    if message is not None and chat is not None and user is not None and private:
        r = runtime(context)  # a practice, played here: conceded
        t = await chat_translator(context, chat.id)
        practice = await r.core.table_in(chat.id, 0)
        if practice is None:
            await reply(context, message, t("refusal.no_game"))
            return
        why = await cancel_table(r, practice, user.id, False, t)
        if why is not None:
            await reply(context, message, why)
        return
    found = await group_table(update, context, "no_table", admin_command=True)
    if found is None:
        return
    command, table = found
    message, user, _, r, t, _ = command
    admin = user.id != table.opener_id and await command.by_admin(context)
    why = await cancel_table(r, table, user.id, admin, t)
    if why is not None:
        await reply(context, message, why)


async def abandonar(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Concede your match: the group's (or topic's) table, or your tournament match, which is
    played in private (so /abandonar works in the private chat too)."""
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    if message is None or chat is None or user is None:
        return
    r = runtime(context)
    t = await chat_translator(context, chat.id)
    table = None
    if is_group(chat):
        table = await r.core.table_in(chat.id, thread_of(message))
        if table is not None and table.seat_of(user.id) is None:
            table = None
    elif chat.type == ChatType.PRIVATE:
        table = await r.core.table_in(chat.id, 0)  # a practice, played here
    if table is None:
        table = await r.core.tournaments.match_of(user.id, chat.id if is_group(chat) else None)
    if table is None or table.status is not TableStatus.PLAYING:
        if table is not None and table.in_line:  # (not begun: /cancelar or 🚪 takes it out)
            place = await r.core.place_in_line(table)
            await reply(context, message, t("refusal.in_line", place=place))
            return
        await reply(context, message, t("refusal.no_game"))
        return
    try:
        await r.core.turns.concede(table.id, user.id)
    except Refusal as refusal:
        await reply(context, message, refusal_text(t, refusal))


async def reglas(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The machete; and R46 where this chat plays it (its table's rules, or its defaults)."""
    message, chat = update.effective_message, update.effective_chat
    if message and chat:
        t = await chat_translator(context, chat.id)
        r = runtime(context)
        table = await r.core.table_in(chat.id, thread_of(message))
        if table is not None:
            config = table.config
        else:
            config = (await r.core.chats.defaults(chat.id)).config
        shown = reading_page(t, PageView.RULES, int(config.falta_malas and config.target == 30))
        assert shown is not None
        await reply(context, message, *shown)


def _reading(t: Translator, view: PageView, key: int) -> str | None:
    """The text of a paged reading of the locales: /reglas (`key` 1: with R46, falta a las
    malas), /ayuda (None: a key no such reading has)."""
    if view is PageView.RULES and key in (0, 1):
        # (this table's own rule first, under the title: not on a last page to be found)
        title, rest = t("reglas").split("\n\n", 1)
        return title + (t("reglas.falta_malas") if key else "") + "\n\n" + rest
    if view is PageView.HELP and key == 0:
        return t("help")
    return None


def reading_page(
    t: Translator, view: PageView, key: int, page: int = 0
) -> tuple[str, Keys | None] | None:
    """A page of /reglas or /ayuda, a paragraph never cut, its pager (None: no such page)."""
    text = _reading(t, view, key)
    pages = text_pages(text) if text is not None else []
    if page >= len(pages):
        return None
    at = functools.partial(PageData, view, key)
    return pages[page], Keys.of([pager(at, page, len(pages))]) if len(pages) > 1 else None


async def _reading_page(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: PageData,
    t: Translator,
) -> None:  # fmt: skip
    """◀️ ▶️ under /reglas or /ayuda: another page, in place (in an ephemeral answer too)."""
    message = tapped_message(query)
    shown = reading_page(t, data.view, data.key, data.page)
    if shown is None:
        await query.answer(t("refusal.stale_page"))
        return
    await edit_tapped(r, query, message, *shown)
    await query.answer()


async def ayuda(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_message and update.effective_chat:
        t = await chat_translator(context, update.effective_chat.id)
        shown = reading_page(t, PageView.HELP, 0)
        assert shown is not None
        await reply(context, update.effective_message, *shown)


async def idioma(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if update.effective_message is None or update.effective_chat is None:
        return
    t = await chat_translator(context, update.effective_chat.id)
    await reply(context, update.effective_message, t("idioma.choose"), language_keys())


def language_keys() -> Keys:
    """/idioma's buttons: every language we speak, each named in itself."""
    return Keys.of(
        [[Button(translator_for(language)("language.name"), pack(LanguageData(language)))
          for language in languages()]]
    )  # fmt: skip


async def _language(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: LanguageData,
    t: Translator,
) -> None:  # fmt: skip
    """A tap on /idioma's buttons (admins only, in a group)."""
    message = query.message
    if message is None:
        raise Quiet
    chat_id, message_id, language = message.chat.id, message.message_id, data.language
    if is_group(message.chat) and not await is_admin(context, chat_id, query.from_user.id):
        await query.answer(t("refusal.only_opener_or_admin"))
        return
    new = translator_for(language)
    await r.say.set_language(chat_id, language, message_id, new("idioma.set"))
    await query.answer(new("idioma.set"))


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CommandHandler("nueva", nueva))
    app.add_handler(CommandHandler("avisame", avisame))
    app.add_handler(CommandHandler(["mano", "hand"], mano))
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CommandHandler("cancelar", cancelar))
    app.add_handler(CommandHandler("abandonar", abandonar))
    app.add_handler(CommandHandler("reglas", reglas))
    app.add_handler(CommandHandler(["ayuda", "help"], ayuda))
    app.add_handler(CommandHandler("idioma", idioma))
    reading = tapped(PageData, _reading_page)
    paged = pattern(PageData, PageView.RULES, PageView.HELP)
    app.add_handler(CallbackQueryHandler(reading, pattern=paged))
    language = tapped(LanguageData, _language)
    app.add_handler(CallbackQueryHandler(language, pattern=pattern(LanguageData)))
