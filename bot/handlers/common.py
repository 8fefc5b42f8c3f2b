"""Small helpers the handlers share."""

from __future__ import annotations

import logging
from typing import NamedTuple

from telegram import Chat, InlineKeyboardMarkup, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import Forbidden, TelegramError
from telegram.ext import ContextTypes

from bot.app import Services, services
from bot.i18n import Translator, translator
from bot.service.publisher import reply_row
from bot.service.tables import Refusal
from bot.storage.repo import Table

log = logging.getLogger(__name__)


def is_group(chat: Chat | None) -> bool:
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


def thread_of(message: Message | None) -> int:
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return 0


def display_name(user: User) -> str:
    return user.full_name or user.username or str(user.id)


async def chat_translator(context: ContextTypes.DEFAULT_TYPE, chat_id: int) -> Translator:
    s = services(context)
    return translator(await s.store.chat_language(chat_id) or s.settings.language)


def table_translator(table: Table | None, fallback: Translator) -> Translator:
    return translator(table.language) if table is not None else fallback


def refusal_text(t: Translator, refusal: Refusal) -> str:
    if refusal.code == "illegal":
        reason = refusal.params.get("reason")
        return t(f"reason.{getattr(reason, 'value', 'not_allowed')}")
    return t(f"refusal.{refusal.code}")


async def reply(
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
) -> None:
    """Answer a message through its chat's lane (paced, coalesced, delivered after a crash)."""
    await services(context).publisher.say(
        reply_row(message.chat.id, text, thread_of(message), markup, message.message_id)
    )


async def is_member(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool | None:
    """Whether the user is in the group now; None when Telegram will not say (a supergroup that
    hides its members from a bot that is not an admin, a network error)."""
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except Forbidden:
        return None
    except TelegramError as error:
        text = str(error).lower()
        if "user not found" in text or "participant_id_invalid" in text:
            return False
        log.info("membership of %s in %s unknown: %s", user_id, chat_id, error)
        return None
    if member.status == ChatMemberStatus.RESTRICTED:
        return bool(getattr(member, "is_member", False))
    return member.status in (
        ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER
    )  # fmt: skip


async def is_admin(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


class GroupCommand(NamedTuple):
    """A group command's parts, in the order handlers unpack them."""

    message: Message
    user: User
    chat: Chat
    services: Services
    t: Translator


async def in_group(update: Update, context: ContextTypes.DEFAULT_TYPE) -> GroupCommand | None:
    """A command that only makes sense in a group: its parts, or None (after saying so)."""
    message, user, chat = update.effective_message, update.effective_user, update.effective_chat
    if message is None or user is None or chat is None:
        return None
    t = await chat_translator(context, chat.id)
    if not is_group(chat):
        await reply(context, message, t("refusal.group_only"))
        return None
    return GroupCommand(message, user, chat, services(context), t)


async def see(s: Services, user: User, can_dm: bool | None = None) -> None:
    await s.tables.see_player(user.id, display_name(user), user.username, can_dm)
