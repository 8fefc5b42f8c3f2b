"""Every button tap: decode, call the service, answer, show. Always answers the query."""

from __future__ import annotations

import contextlib
from typing import Any

from telegram import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import Application, CallbackQueryHandler, ContextTypes

from bot.ai.signs import SIGNS
from bot.app import Services, services
from bot.callbacks import (
    ActData,
    CardsData,
    ConfigData,
    LanguageData,
    LobbyData,
    PageData,
    SignData,
    VacatedData,
    pack,
    unpack,
)
from bot.game import envido_value, flor_value, has_flor, observe
from bot.handlers.commands import can_write, cancel_table, check_member
from bot.handlers.common import (
    chat_translator,
    is_admin,
    is_group,
    refusal_text,
    see,
    table_translator,
)
from bot.handlers.config import config_tap
from bot.handlers.history import on_page
from bot.i18n import Translator, translator
from bot.service.publisher import edit_row, hand_row, text_row
from bot.service.tables import BOT_LEVEL_ORDER, LobbyOption, Refusal
from bot.storage.outbox import Outgoing
from bot.storage.repo import TableStatus, is_bot
from bot.views.common import cards_text, short_name
from bot.views.table import kind_label


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None:
        return
    s = services(context)
    data = unpack(query.data)
    if isinstance(data, ActData):  # a move speaks its table's language: no chat to look up
        try:
            await _act(query, s, data)
        except Refusal as refusal:
            await _refuse(query, context, s, data, refusal)
        return
    t = await chat_translator(context, _chat_id(query))
    if data is None:
        await query.answer(t("refusal.bad_button"))
        return
    try:
        if isinstance(data, LobbyData):
            await _lobby(query, context, s, data, t)
        elif isinstance(data, CardsData):
            await _my_cards(query, s, data, t)
        elif isinstance(data, SignData):
            await _sign(query, s, data, t)
        elif isinstance(data, VacatedData):
            await _vacated(query, context, s, data, t)
        elif isinstance(data, ConfigData):
            message = query.message
            if message is None:
                await query.answer()
                return
            text = await config_tap(
                s, context, message.chat.id, message.message_id, query.from_user.id, data.option
            )
            await query.answer(text)
        elif isinstance(data, PageData):
            await on_page(query, context, s, data, t)
        else:
            await _language(query, context, s, data, t)
    except Refusal as refusal:
        await _refuse(query, context, s, data, refusal, t)


async def _refuse(
    query: CallbackQuery,
    context: ContextTypes.DEFAULT_TYPE,
    s: Services,
    data: object,
    refusal: Refusal,
    t: Translator | None = None,
) -> None:
    """Answer a refused tap in its table's language, or else the chat's (looked up only then)."""
    table = await s.tables.get(getattr(data, "table", 0)) if hasattr(data, "table") else None
    if table is not None:
        t = translator(table.language)
    elif t is None:
        t = await chat_translator(context, _chat_id(query))
    await query.answer(refusal_text(t, refusal))


def _chat_id(query: CallbackQuery) -> int:
    return query.message.chat.id if query.message else query.from_user.id


async def _act(query: CallbackQuery, s: Services, data: ActData) -> None:
    outcome = await s.tables.act(data.table, query.from_user.id, data.step, data.kind, data.card)
    t = translator(outcome.table.language)
    label = kind_label(t, data.kind) if data.card is None else ""
    await s.publisher.answer(query.id, label)  # the answer to every move: the lean call


async def _lobby(
    query: CallbackQuery,
    context: ContextTypes.DEFAULT_TYPE,
    s: Services,
    data: LobbyData,
    t: Translator,
) -> None:
    user = query.from_user
    table = await s.tables.get(data.table)
    t = table_translator(table, t)
    if table is None or table.status is not TableStatus.LOBBY:
        raise Refusal("lobby_closed")
    await see(s, user)
    if data.op == "j":
        team = int(data.arg) if data.arg.isdigit() else None
        message = query.message
        on_lobby = message is not None and message.chat.id == table.chat_id
        if table.seat_of(user.id) is None:
            await check_member(context, table, user.id, tapped_in_group=on_lobby)
            if not await can_write(context, s, user, t):
                # Telegram opens this link: Start there completes the join.
                await query.answer(url=s.publisher.join_link(table))
                return
        await s.tables.join(table.id, user.id, team)
        await query.answer(t("lobby.joined", name=short_name(user.full_name)))
    elif data.op == "x":
        await s.tables.leave(table.id, user.id)
        await query.answer()
    elif data.op == "b":
        team = int(data.arg) if data.arg.isdigit() else None
        level = await default_bot_level(s, table.chat_id)
        await s.tables.add_bot(table.id, user.id, team, level)
        await query.answer(t("lobby.bot_added"))
    elif data.op == "r":
        await s.tables.remove_bot(table.id, user.id)
        await query.answer(t("lobby.bot_removed"))
    elif data.arg == "cancel":
        admin = user.id != table.opener_id and await is_admin(context, table.chat_id, user.id)
        why = await cancel_table(context, s, table, user.id, admin, t)
        await query.answer(why or "")
    elif data.arg in LobbyOption.ALL:
        await s.tables.set_option(table.id, user.id, data.arg)
        await query.answer()
    else:
        raise Refusal("bad_button")


async def default_bot_level(s: Services, chat_id: int) -> str:
    level = (await s.store.chat_defaults(chat_id)).get("bot", s.settings.bot_level)
    return str(level) if level in BOT_LEVEL_ORDER else "normal"


async def _vacated(
    query: CallbackQuery,
    context: ContextTypes.DEFAULT_TYPE,
    s: Services,
    data: VacatedData,
    t: Translator,
) -> None:
    table = await s.tables.get(data.table)
    t = table_translator(table, t)
    if table is None:
        raise Refusal("no_game")
    level = await default_bot_level(s, table.chat_id)
    await s.tables.fill_vacated(table.id, query.from_user.id, data.choice == "b", level)
    await query.answer(t("vacated.bot_chosen") if data.choice == "b" else t("vacated.ended"))


async def _my_cards(query: CallbackQuery, s: Services, data: CardsData, t: Translator) -> None:
    table = await s.tables.get(data.table)
    t = table_translator(table, t)
    seat = table.seat_of(query.from_user.id) if table is not None else None
    if table is None or table.state is None or seat is None:
        await query.answer(t("popup.not_playing"), show_alert=True)
        return
    obs = observe(table.state, seat)
    text = t("popup.my_cards", cards=cards_text(t, obs.cards) if obs.cards else "—")
    if obs.dealt:
        if obs.config.flor and has_flor(obs.dealt):
            text += "\n" + t("hand.flor", value=flor_value(obs.dealt))
        else:
            text += "\n" + t("popup.envido", value=envido_value(obs.dealt))
    await query.answer(text, show_alert=True)  # only the tapper sees it


async def _sign(query: CallbackQuery, s: Services, data: SignData, t: Translator) -> None:
    user = query.from_user
    table = await s.tables.get(data.table)
    t = table_translator(table, t)
    if table is None or table.state is None or table.status is not TableStatus.PLAYING:
        raise Refusal("no_game")
    seat = table.seat_of(user.id)
    if seat is None:
        raise Refusal("not_seated")
    if table.config.players != 4:
        await query.answer(t("sign.only_2v2"))
        return
    if data.step != table.state.step:
        raise Refusal("stale")
    message = query.message
    if data.sign == "m":
        rows = [
            [
                InlineKeyboardButton(
                    t(f"sign.{key}"), callback_data=pack(SignData(table.id, data.step, key))
                )
                for key in SIGNS[i : i + 2]
            ]
            for i in range(0, len(SIGNS), 2)
        ]
        rows.append(
            [
                InlineKeyboardButton(
                    t("button.back"), callback_data=pack(SignData(table.id, data.step, "b"))
                )
            ]
        )
        await query.answer(t("sign.menu"))
        if message is not None and message.chat.type == ChatType.PRIVATE:
            with contextlib.suppress(TelegramError):
                await s.publisher.bot.edit_message_reply_markup(
                    message.chat.id, message.message_id, reply_markup=InlineKeyboardMarkup(rows)
                )
        return
    if data.sign == "b":
        await query.answer()
        s.publisher.forget(user.id, table.hand_messages.get(user.id))
        await s.publisher.say(hand_row(table, user.id, urgent=True))
        return
    if data.sign not in SIGNS:
        raise Refusal("bad_button")
    partner_seat = (seat + 2) % 4
    partner = table.seats[partner_seat]
    if is_bot(partner):
        s.ai.receive_sign(table, partner_seat, data.sign)
        partner = None  # it reads the seña; there is nobody to message
    names = await s.publisher.names(table)
    sign, meaning = t(f"sign.{data.sign}"), t(f"sign.meaning.{data.sign}")
    name = short_name(names.get(user.id, "?"))
    await query.answer(t("sign.sent"))
    out: list[Outgoing] = []
    if partner is not None:
        text = t("sign.received", name=f"<b>{name}</b>", sign=sign, meaning=meaning)
        out.append(text_row(partner, text))
    out += await s.publisher.caught_sign(table, seat, data.step, data.sign)
    s.publisher.forget(user.id, table.hand_messages.get(user.id))
    out.append(hand_row(table, user.id, urgent=True))
    await s.publisher.say(*out)


async def _language(
    query: CallbackQuery,
    context: ContextTypes.DEFAULT_TYPE,
    s: Services,
    data: LanguageData,
    t: Translator,
) -> None:
    message = query.message
    if message is None:
        await query.answer()
        return
    chat = message.chat
    if is_group(chat) and not await is_admin(context, chat.id, query.from_user.id):
        await query.answer(t("refusal.only_opener_or_admin"))
        return
    await s.store.set_chat_language(chat.id, data.language)
    new = await chat_translator(context, chat.id)
    await query.answer(new("idioma.set"))
    await s.publisher.say(edit_row(chat.id, message.message_id, new("idioma.set")))


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CallbackQueryHandler(on_button))
