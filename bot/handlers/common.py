"""What every handler shares: the runtime, the chat's language, replies, membership checks.
Feature modules import this one and nothing else of `bot.handlers`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from datetime import tzinfo
from typing import Any, Literal, NamedTuple, TypeVar, cast, overload

from telegram import CallbackQuery, Chat, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.callbacks import MAX_DIGITS, CallbackData, unpack
from bot.game.state import CHOICES
from bot.i18n import Translator, translator
from bot.model.limits import Admit
from bot.model.table import Table
from bot.runtime import Runtime
from bot.service.changes import Refusal
from bot.telegram.say import Markup
from bot.views.common import refusal_text as refusal_text
from bot.views.common import seating_at

log = logging.getLogger(__name__)


def is_group(chat: Chat | None) -> bool:
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def thread_of(message: Message | None) -> int:
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return 0


def display_name(user: User) -> str:
    return user.full_name or user.username or str(user.id)


def ascii_number(text: str, digits: int = MAX_DIGITS) -> int | None:
    """A number typed or carried in a link: ASCII digits only (`str.isdigit` also takes "²"),
    at most `digits` of them; None for anything else."""
    if not text or len(text) > digits or not text.isascii() or not text.isdigit():
        return None
    return int(text)


def zone(r: Runtime) -> tzinfo:
    """The time zone of the dates the bot shows (and of where a month starts)."""
    return r.settings.zone


def paid(r: Runtime) -> bool | None:
    """A new message's `allow_paid_broadcast` (TRUCO_PAID_BROADCAST; None: not asked)."""
    return True if r.settings.paid_broadcast else None


def runtime(context: ContextTypes.DEFAULT_TYPE) -> Runtime:
    """The bot's services (built in `bot/runtime.py`, handed to the application at start)."""
    return cast(Runtime, context.application.bot_data["runtime"])


async def chat_translator(context: ContextTypes.DEFAULT_TYPE, chat_id: int) -> Translator:
    return translator(await runtime(context).core.chats.language(chat_id))


def table_translator(table: Table | None, fallback: Translator) -> Translator:
    return translator(table.language) if table is not None else fallback


async def reply(
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    text: str,
    markup: Markup | None = None,
) -> None:
    """Answer a message through its chat's lane (paced, coalesced, delivered after a crash).
    In a group, one person's flood of commands gets a few answers, not one each: the group's
    lane (and its board) must not wait behind them. Past the limit the person is told once
    that the bot is pausing, then nothing until the limit has refilled."""
    r = runtime(context)
    asker = message.from_user.id if message.from_user else 0
    chat = message.chat.id
    asked = message.api_kwargs.get("ephemeral_message_id")
    if asked is not None and is_group(message.chat) and asker:
        # An ephemeral command (Bot API 10.2): answered to the asker alone, in the group, in
        # their own lane (the group's is not touched), within Telegram's window for a reply
        await r.say.ephemeral_reply(chat, asker, text, int(asked), markup, thread_of(message))
        return
    admitted = r.replies.admit((chat, asker)) if is_group(message.chat) else Admit.YES
    if admitted is not Admit.YES:
        log.info("reply to %s in %s dropped: too many commands", asker, chat)
        if admitted is Admit.PAUSE:  # said once: silence alone looked like a broken bot
            t = await chat_translator(context, chat)
            await r.say.pausing(chat, asker, t("limit.pause"), thread_of(message),
                                message.message_id)  # fmt: skip
        return
    await r.say.reply(message.chat.id, text, thread_of(message), markup, message.message_id)
    # (if the database takes no write, not even this: bot.app.on_error answers directly)


async def edit_tapped(
    r: Runtime, query: CallbackQuery, message: Message, text: str, markup: Markup | None
) -> None:
    """A new text for the message under a tapped button (a page turned), through its lane.
    An ephemeral message (an answer to an ephemeral command: message_id 0, its
    ephemeral_message_id) is its tapper's alone and is edited as one
    (editEphemeralMessageText): editMessageText finds no message 0."""
    ephemeral = message.api_kwargs.get("ephemeral_message_id")
    if not message.message_id and ephemeral is not None and is_group(message.chat):
        await r.say.edit_ephemeral(
            message.chat.id, query.from_user.id, int(ephemeral), text, markup
        )
    else:
        await r.say.edit(message.chat.id, message.message_id, text, markup)


async def is_member(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool | None:
    """Whether the user is in the group now, asked afresh (a join must not trust an old
    answer); None when Telegram will not say."""
    return await runtime(context).deliverer.members.of(chat_id, user_id, fresh=True)


async def is_admin(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


# Telegram's stand-ins for people who are not shown: a message sent "as a channel"
# (@Channel_Bot), an anonymous group admin (@GroupAnonymousBot), a channel's post forwarded
# into its discussion group (777000). Everyone posting that way has the same id.
CHANNEL_BOT, ANONYMOUS_ADMIN, SERVICE_NOTIFICATIONS = 136817688, 1087968824, 777000
STAND_INS = (CHANNEL_BOT, ANONYMOUS_ADMIN, SERVICE_NOTIFICATIONS)


class GroupCommand(NamedTuple):
    """A group command's parts, in the order handlers unpack them. `group_admin`: it came
    from an anonymous admin (written as the group itself): an admin, who cannot play."""

    message: Message
    user: User
    chat: Chat
    runtime: Runtime
    t: Translator
    group_admin: bool = False

    async def by_admin(self, context: ContextTypes.DEFAULT_TYPE) -> bool:
        return self.group_admin or await is_admin(context, self.chat.id, self.user.id)


async def in_group(
    update: Update, context: ContextTypes.DEFAULT_TYPE, admin_command: bool = False
) -> GroupCommand | None:
    """A command that only makes sense in a group: its parts, or None (after saying so).
    Written as a channel or anonymously it is refused, except an anonymous admin's
    `admin_command` (/config, /cancelar, /idioma): the group itself speaks, an admin."""
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return None
    t = await chat_translator(context, chat.id)
    if not is_group(chat):
        await reply(context, message, t("refusal.group_only"))
        return None
    sender = message.sender_chat
    group_admin = user.id == ANONYMOUS_ADMIN and sender is not None and sender.id == chat.id
    if user.id in STAND_INS and not (group_admin and admin_command):
        # One id for everyone posting as a channel (or anonymously): nobody could manage
        # what it opened, and anyone else posting so would pass for its opener.
        await reply(context, message, t("refusal.not_a_person"))
        return None
    return GroupCommand(message, user, chat, runtime(context), t, group_admin)


async def see(r: Runtime, user: User, can_dm: bool | None = None) -> None:
    await r.core.people.see(user.id, display_name(user), user.username, can_dm)


async def can_write(
    context: ContextTypes.DEFAULT_TYPE, r: Runtime, user: User, t: Translator
) -> bool:
    """Try the private chat: the join confirmation doubles as the check (a call in the bot's
    budget, at a person's own rank: `place_unknown` first where the place is all it is for)."""
    sent = await r.say.at_once(user.id, t("dm.joined"))
    await see(r, user, can_dm=sent)
    return sent


def check_later(r: Runtime, user: User, t: Translator) -> None:
    """`can_write`, after the handler has answered, at a board's rank in the bot's budget: for
    a table that will wait in the admission line once full, whose deal is a match away at
    least, so the check waits behind the turns of the tables in play. In a task of its own (a
    handler waiting for it would hold one of the few updates handled at once); lost at a stop,
    the person is checked at their next join (their hand lives in the group meanwhile)."""

    async def check() -> None:
        try:
            sent = await r.say.at_once(user.id, t("dm.joined"), behind_play=True)
            await see(r, user, can_dm=sent)
        except Exception:  # (a passing fault: the next join checks again)
            log.warning("the private check of %s failed", user.id, exc_info=True)

    task = asyncio.get_running_loop().create_task(check())
    _checks.add(task)
    task.add_done_callback(_checks.discard)


_checks: set[asyncio.Task[None]] = set()  # (held: a task nobody holds may be collected)


async def place_unknown(r: Runtime, user: User) -> bool:
    """Whether a join (or a table opened) must check the person's private chat to know where
    their hand will live: not when they chose the place, nor when the bot could write to them
    when last it tried. At 200 tables the checks of the tables waiting in the admission line
    took the budget from the turns of those in play (issue 71). Nor when their chat refused
    the last check (they never started the bot: their hand lives in the group; a /start
    makes them reachable)."""
    return not (await r.core.people.place_known(user.id) or await r.say.refused(user.id))


async def check_member(
    context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int, tapped_in_group: bool
) -> None:
    """Only the group's members sit at its tables (`Members.check`, the one rule)."""
    await runtime(context).deliverer.members.check(chat_id, user_id, tapped_in_group)


async def cancel_table(
    r: Runtime, table: Table, user_id: int, admin: bool, t: Translator
) -> str | None:
    """Cancel; returns the refusal text, if any (sent as a reply by the caller)."""
    was = table.status
    try:
        table = await r.core.turns.cancel(table.id, user_id, admin)
    except Refusal as refusal:
        return refusal_text(t, refusal)
    log.info("table %s %s (was %s) by %s", table.id, table.status.value, was.value, user_id)
    return None


# -- buttons: one handler per kind of button data ------------------------------------------
D = TypeVar("D", bound=CallbackData)
Context = ContextTypes.DEFAULT_TYPE
Tap = Callable[[CallbackQuery, Context, Runtime, D, Translator], Awaitable[None]]
LeanTap = Callable[[CallbackQuery, Context, Runtime, D], Awaitable[None]]
Handler = Callable[[Update, Context], Coroutine[Any, Any, None]]


class Quiet(Exception):
    """A tap answered with nothing said: a button that needs its message and came without one
    (as an inline message's does)."""


def button_chat(query: CallbackQuery) -> int:
    return query.message.chat.id if query.message else query.from_user.id


def tapped_message(query: CallbackQuery) -> Message:
    """The message of the tapped button (raises `Quiet` when the tap came without one)."""
    if not isinstance(query.message, Message):
        raise Quiet
    return query.message


@overload
def tapped(kind: type[D], tap: Tap[D]) -> Handler: ...


@overload
def tapped(kind: type[D], tap: LeanTap[D], *, lean: Literal[True]) -> Handler: ...


def tapped(kind: type[D], tap: Tap[D] | LeanTap[D], *, lean: bool = False) -> Handler:
    """The one prelude of every button: decode its data (anything not of `kind` is answered
    as a button we did not make), run `tap` with the table's language (else the chat's), and
    answer a refusal in that language (a stale move saying what changed, by name). A `lean`
    tap (a move: the busiest path) reads nothing before it runs and finds its own language."""

    async def handle(update: Update, context: Context) -> None:
        query = update.callback_query
        if query is None:
            return
        data = unpack(query.data)
        if not isinstance(data, kind):
            await unknown_button(update, context)
            return
        r = runtime(context)
        try:
            if lean:
                await cast(LeanTap[D], tap)(query, context, r, data)
            else:
                t = await button_translator(context, r, query, data)
                await cast(Tap[D], tap)(query, context, r, data, t)
        except Quiet:
            await query.answer()
        except Refusal as refusal:
            await _refuse(query, context, r, data, refusal)

    return handle


async def _refuse(
    query: CallbackQuery, context: Context, r: Runtime, data: CallbackData, refusal: Refusal
) -> None:
    t = await button_translator(context, r, query, data)
    who = None
    table_id = getattr(data, "table", None)
    if "since" in refusal.params and isinstance(table_id, int):  # say what changed, by name
        table = await r.core.table(table_id)
        if table is not None:
            who = seating_at(t, table, await r.core.people.at(table))
    await query.answer(refusal_text(t, refusal, who))


async def button_translator(
    context: ContextTypes.DEFAULT_TYPE,
    r: Runtime,
    query: CallbackQuery,
    data: CallbackData,
) -> Translator:
    """The table's language, else the chat's."""
    table_id = getattr(data, "table", None)
    language = await r.core.language_of(table_id) if isinstance(table_id, int) else None
    if language is not None:
        return translator(language)
    return await chat_translator(context, button_chat(query))


async def unknown_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Button data we did not make (forged, or from an older release): said, nothing changes."""
    query = update.callback_query
    if query is not None:
        t = await chat_translator(context, button_chat(query))
        await query.answer(t("refusal.bad_button"))


# "/nueva 2v2": every mode a table may have, as people type it
MODE_WORDS = {
    f"{n // 2}{sep}{n // 2}": n for n in CHOICES["players"] for sep in ("v", "vs", "x")
} | ({"parejas": 4} if 4 in CHOICES["players"] else {})
