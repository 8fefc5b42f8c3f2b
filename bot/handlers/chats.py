"""Chat changes: a group upgraded to a supergroup, the bot removed from a group."""

from __future__ import annotations

import logging
from typing import Any

from telegram import ChatMemberUpdated, Update
from telegram.constants import ChatMemberStatus
from telegram.ext import (
    Application,
    ChatMemberHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from bot.handlers.common import runtime

log = logging.getLogger(__name__)


async def migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        old, new = message.chat.id, message.migrate_to_chat_id
    elif message.migrate_from_chat_id:
        old, new = message.migrate_from_chat_id, message.chat.id
    else:
        return
    moved = await runtime(context).core.chats.move(old, new)
    log.info("chat %s moved to %s with %d open tables", old, new, len(moved))


async def membership(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    change: ChatMemberUpdated | None = update.my_chat_member
    if change is None:
        return
    status = change.new_chat_member.status
    if change.chat.type != "private":  # (may it show a member their hand at any time now?)
        admin = status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
        runtime(context).deliverer.members.bot_rank_changed(change.chat.id, admin)
    gone = status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED)
    if not gone or change.chat.type == "private":
        return
    for table in await runtime(context).core.chats.close(change.chat.id):
        log.info("table %s cancelled: the bot left chat %s", table.id, change.chat.id)


def register(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, migrated))
    app.add_handler(ChatMemberHandler(membership, ChatMemberHandler.MY_CHAT_MEMBER))
