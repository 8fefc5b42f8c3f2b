"""The table's buttons: moves, the lobby, 🃏 Mis cartas, señas, an empty seat's choice.
Each kind of button data has its own handler (routed by its prefix); each always answers."""

from __future__ import annotations

from typing import Any

from telegram import CallbackQuery
from telegram.constants import ChatType
from telegram.ext import Application, CallbackQueryHandler, ContextTypes

from bot.callbacks import (
    ActData,
    CardsData,
    HintData,
    HintOp,
    LobbyAct,
    LobbyData,
    LobbyOp,
    RematchData,
    SignData,
    SignMove,
    Vacated,
    VacatedData,
    pattern,
)
from bot.game import Observation, envido_value, flor_value, has_flor, observe
from bot.handlers.common import (
    ascii_number,
    can_write,
    cancel_table,
    check_later,
    check_member,
    is_admin,
    place_unknown,
    see,
    tapped,
    unknown_button,
)
from bot.i18n import Translator, translator
from bot.model.options import LOBBY_OPTIONS
from bot.model.refusals import Refused
from bot.model.table import TableStatus
from bot.runtime import Runtime
from bot.service.changes import ChangeKind, Refusal
from bot.service.play import of_this_hand
from bot.views.common import cards_text, plain, plain_name, played, seating_at
from bot.views.hints import hint_text
from bot.views.table import handed_text, kind_label, sign_menu_text


async def _move(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: ActData
) -> None:
    """A card or a chant: the busiest path. It speaks the language of the table it changed
    (read from the change), so nothing more is read before the move."""
    change = await r.core.play.act(
        data.table, query.from_user.id, data.step, data.kind, data.card, in_chat=True
    )
    t = translator(change.the_table.language)
    label = kind_label(t, data.kind) if data.card is None else played(t, data.card)
    if r.planner.shown_at_turn(change):
        # (their own hand message is edited at their next turn, not now: it still shows the
        # card, or the chant, and "👉 Te toca."; the answer says so, as it says what went)
        stop = "" if label.endswith((".", "!", "?")) else "."  # ("Quiero. Tu mensaje …")
        label = f"{label}{stop} {t('move.shown_at_turn')}"
    await r.deliverer.answer(query.id, label)  # the answer to every move: the lean call


async def _lobby(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: LobbyData,
    t: Translator,
) -> None:  # fmt: skip
    user = query.from_user
    table = await r.core.table(data.table)
    if table is None or table.status is not TableStatus.LOBBY:
        raise Refusal(Refused.LOBBY_CLOSED)
    lobby = r.core.lobby
    await see(r, user)
    if data.op is LobbyOp.JOIN:
        team = ascii_number(data.arg, 1)
        message = query.message
        on_lobby = message is not None and message.chat.id == table.chat_id
        here = later = False
        if table.seat_of(user.id) is None:
            await check_member(context, table.chat_id, user.id, tapped_in_group=on_lobby)
            unknown = await place_unknown(r, user)
            # (this join fills a table that will wait in line: the check can wait too, after
            # the answer, behind the turns of the tables in play)
            later = unknown and on_lobby and table.seats.count(None) == 1
            later = later and await lobby.admission.waits()
            if unknown and not later and not await can_write(context, r, user, t) and not on_lobby:
                # A link from outside the group: Telegram opens it; Start completes the join.
                await query.answer(url=r.deliverer.join_link(await r.deliverer.records(table)))
                return
            here = not later and await r.deliverer.in_group(table, user.id)
        change = await lobby.join(table.id, user.id, team)
        # (one who plays in the group is told where their cards will be, and is shown the
        # message, seen by them alone, that becomes their hand at the deal; a table that
        # joined the line says so and its place, in the answer: free of the bot's budget)
        name = plain_name(user.full_name)
        if change.kind is ChangeKind.QUEUED and not here:
            await query.answer(t("lobby.joined_in_line", name=name, place=change.place))
        else:
            await query.answer(t("lobby.joined_here" if here else "lobby.joined", name=name))
        if later:
            check_later(r, user, t)
        if here:  # (in the lobby still, the place of their hand; or, if it just filled, the hand)
            await r.planner.show_hand(table, user.id, query.id)  # (no HTML)
    elif data.op is LobbyOp.LEAVE:
        await lobby.leave(table.id, user.id)
        await query.answer()
    elif data.op is LobbyOp.ADD_BOT:
        team = ascii_number(data.arg, 1)
        level = (await r.core.chats.defaults(table.chat_id)).bot
        await lobby.add_bot(table.id, user.id, team, level)
        await query.answer(t("lobby.bot_added"))
    elif data.op is LobbyOp.REMOVE_BOT:
        await lobby.remove_bot(table.id, user.id)
        await query.answer(t("lobby.bot_removed"))
    elif data.op is LobbyOp.PLACE:
        place = await lobby.place(table.id)
        await query.answer(t("queue.place", place=place) if place else "")
    elif data.arg is LobbyAct.CANCEL:
        admin = user.id != table.opener_id and await is_admin(context, table.chat_id, user.id)
        why = await cancel_table(r, table, user.id, admin, t)
        await query.answer(why or "")
    elif data.arg in LOBBY_OPTIONS:
        await lobby.set_option(table.id, user.id, data.arg)
        await query.answer()
    else:
        raise Refusal(Refused.BAD_BUTTON)


async def _rematch(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: RematchData,
    t: Translator,
) -> None:  # fmt: skip
    """🔁 Revancha, from the match's end in the group or from a player's own chat."""
    user = query.from_user
    old = await r.core.table(data.table)
    if old is None or old.seat_of(user.id) is None:
        raise Refusal(Refused.REMATCH_NOT_YOURS)
    message = query.message
    in_group = message is not None and message.chat.id == old.chat_id
    if not old.practice:  # (a practice's place is its player's own chat: no group to be in)
        await check_member(context, old.chat_id, user.id, tapped_in_group=in_group)
    await see(r, user)
    await r.core.lobby.rematch(old.id, user.id)
    await query.answer(t("rematch.opened") if in_group else t("rematch.opened_private"))


async def _vacated(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: VacatedData,
    t: Translator,
) -> None:  # fmt: skip
    table = await r.core.table(data.table)
    if table is None:
        raise Refusal(Refused.NO_GAME)
    level = (await r.core.chats.defaults(table.chat_id)).bot
    bot = data.choice is Vacated.BOT
    await r.core.turns.fill_vacated(table.id, query.from_user.id, bot, level)
    await query.answer(t("vacated.bot_chosen") if bot else t("vacated.ended"))


def cards_line(t: Translator, obs: Observation, between: str = " · ") -> str:
    """The cards in the tapper's hand and their envido (or flor), plain (a pop-up has no
    parse mode)."""
    text = t("popup.my_cards", cards=cards_text(t, obs.cards) if obs.cards else "—")
    if obs.dealt:
        if obs.config.flor and has_flor(obs.dealt):
            text += between + t("hand.flor", value=flor_value(obs.dealt))
        else:
            text += between + t("popup.envido", value=envido_value(obs.dealt))
    return plain(text)


async def _my_cards(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: CardsData,
    t: Translator,
) -> None:  # fmt: skip
    table = await r.core.table(data.table)
    seat = table.seat_of(query.from_user.id) if table is not None else None
    if table is None or table.state is None or seat is None:
        await query.answer(t("popup.not_playing"), show_alert=True)
        return
    user_id = query.from_user.id
    obs = observe(table.state, seat)
    if table.status is TableStatus.PLAYING and await r.deliverer.in_group(table, user_id):
        # Their hand lives in the group: shown to them alone, under the board, anew (the one
        # shown before may never have arrived, or may have vanished); the answer to the tap
        # tells the cards at once, in a toast, whatever Telegram does with the message
        await query.answer(cards_line(t, obs))
        await r.planner.show_hand(table, user_id, query.id)
        return
    await query.answer(cards_line(t, obs, "\n"), show_alert=True)  # only the tapper sees it


async def _sign(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: SignData,
    t: Translator,
) -> None:  # fmt: skip
    user = query.from_user
    table = await r.core.table(data.table)
    if table is None or table.state is None or table.status is not TableStatus.PLAYING:
        raise Refusal(Refused.NO_GAME)
    if table.seat_of(user.id) is None:
        raise Refusal(Refused.NOT_SEATED)
    if not table.geometry.partners(table.seat_of(user.id) or 0):
        await query.answer(t("sign.only_2v2"))
        return
    if not of_this_hand(table.state, data.step):
        raise Refusal(Refused.STALE)
    message = query.message
    if data.sign is SignMove.MENU:  # the menu of señas, in place of the hand's buttons
        who = seating_at(t, table, await r.core.people.at(table))
        await query.answer(plain(sign_menu_text(t, who, table.seat_of(user.id) or 0)))
        private = message is not None and message.chat.type == ChatType.PRIVATE
        if private or await r.deliverer.in_group(table, user.id):
            await r.planner.show_sign_menu(table, user.id, table.state.step)
        return
    if data.sign is SignMove.BACK:
        await query.answer()
        await r.planner.show_hand_again(table, user.id)
        return
    await r.core.play.sign(table.id, user.id, data.step, data.sign, in_chat=True)
    await query.answer(t("sign.sent"))


async def _hint(
    query: CallbackQuery, context: ContextTypes.DEFAULT_TYPE, r: Runtime, data: HintData,
    t: Translator,
) -> None:  # fmt: skip
    """💡 (what difícil would do, for the tapper alone) or 🤖 (hand the answer to a computer
    partner), from a player's own hand message."""
    user = query.from_user
    if data.op is HintOp.HAND_OFF:
        change = await r.core.play.hand_off(data.table, user.id, data.step, in_chat=True)
        handed = change.the_table
        who = seating_at(t, handed, await r.core.people.at(handed))
        await query.answer(handed_text(t, who, change.seat if change.seat is not None else 0))
        return
    if r.core.ai is None:
        raise Refusal(Refused.NO_HINTS)
    hint = await r.core.ai.hint(data.table, user.id, data.step)
    if hint is None:
        return  # its answer window passed while it waited: Telegram would refuse an answer
    table = await r.core.table(data.table)
    team = table is not None and table.geometry.team_size > 1
    await query.answer(hint_text(t, hint, team), show_alert=True)  # only the tapper sees it


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(CallbackQueryHandler(tapped(HintData, _hint), pattern=pattern(HintData)))
    move = tapped(ActData, _move, lean=True)
    app.add_handler(CallbackQueryHandler(move, pattern=pattern(ActData)))
    app.add_handler(CallbackQueryHandler(tapped(LobbyData, _lobby), pattern=pattern(LobbyData)))
    app.add_handler(CallbackQueryHandler(tapped(CardsData, _my_cards), pattern=pattern(CardsData)))
    app.add_handler(CallbackQueryHandler(tapped(SignData, _sign), pattern=pattern(SignData)))
    app.add_handler(
        CallbackQueryHandler(tapped(VacatedData, _vacated), pattern=pattern(VacatedData))
    )
    app.add_handler(
        CallbackQueryHandler(tapped(RematchData, _rematch), pattern=pattern(RematchData))
    )
    # Anything else is not ours (forged, or from an older release): say so, change nothing.
    app.add_handler(CallbackQueryHandler(unknown_button))
