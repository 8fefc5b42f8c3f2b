"""Whether a person is in a group, as Telegram says (`getChatMember`): the one reading of its
answer and the one memory of the answers (`Members`), for a join (asked afresh, `Members.check`:
who may sit), the web table (who may watch) and the notes of /avisame."""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from telegram.constants import ChatMemberStatus
from telegram.error import Forbidden, TelegramError
from telegram.ext import ExtBot

from bot.model.refusals import Refusal, Refused

log = logging.getLogger(__name__)

MEMBER_TTL = 120.0  # seconds an answer is trusted
ADMIN_TTL = 300.0  # seconds the bot's own rank in a group is trusted (a change is told at once)
MEMBERS_REMEMBERED = 50_000  # (group, person) answers kept, the least recently asked go first
_IN = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.MEMBER)


async def is_member(bot: ExtBot[Any], chat_id: int, user_id: int) -> bool | None:
    """Whether the user is in the group now; None when Telegram will not say (a supergroup that
    hides its members from a bot that is not an admin, a network error)."""
    try:
        member = await bot.get_chat_member(chat_id, user_id)
    except Forbidden:
        return None
    except TelegramError as error:
        text = str(error).lower()
        if "user not found" in text or "participant_id_invalid" in text:
            return False
        log.info("membership of %s in %s unknown: %s", user_id, chat_id, error)
        return None
    if member.status == ChatMemberStatus.RESTRICTED:  # (restricted, and still in it or not)
        return bool(getattr(member, "is_member", False))
    return member.status in _IN


class Members:
    """`is_member`, each answer remembered `ttl` seconds, at most `size` of them. An unknown
    answer (None) is not remembered: it is a passing fault, or a group that never tells."""

    def __init__(
        self,
        bot: ExtBot[Any],
        clock: Callable[[], float],
        ttl: float = MEMBER_TTL,
        size: int = MEMBERS_REMEMBERED,
    ) -> None:
        self.bot = bot
        self.clock = clock
        self.ttl = ttl
        self.size = size
        self._known: OrderedDict[tuple[int, int], tuple[bool, float]] = OrderedDict()
        self._admin: OrderedDict[int, tuple[bool, float]] = OrderedDict()

    async def of(
        self,
        chat_id: int,
        user_id: int,
        *,
        fresh: bool = False,
        may_ask: Callable[[], bool] | None = None,
    ) -> bool | None:
        """Whether the user is in the group: the answer remembered, unless `fresh` (a join must
        not trust an old one); Telegram is asked only if `may_ask` lets it (a person's lookups
        rate limited: None, unknown, when it does not)."""
        key = (chat_id, user_id)
        known = self._known.get(key)
        if not fresh and known is not None and self.clock() < known[1]:
            self._known.move_to_end(key)
            return known[0]
        if may_ask is not None and not may_ask():
            return None
        member = await is_member(self.bot, chat_id, user_id)
        if member is None:
            self._known.pop(key, None)
            return None
        self._known[key] = (member, self.clock() + self.ttl)
        self._known.move_to_end(key)
        if len(self._known) > self.size:
            self._known.popitem(last=False)
        return member

    async def check(self, chat_id: int, user_id: int, tapped_in_group: bool) -> None:
        """Only the group's members sit at its tables (and sign up for its tournaments), asked
        afresh. When Telegram will not tell (a supergroup that hides its members), a tap on the
        group's own message is taken as proof enough, since only who sees the group can tap
        there; a link alone is not."""
        member = await self.of(chat_id, user_id, fresh=True)
        if member is False or (member is None and not tapped_in_group):
            raise Refusal(Refused.NOT_MEMBER if member is False else Refused.MEMBER_UNKNOWN)

    async def bot_is_admin(self, chat_id: int) -> bool:
        """Whether the bot is an administrator of the group (then it may show a member their
        hand there at any time: Bot API, "Ephemeral messages and commands"). Remembered
        `ADMIN_TTL` seconds; `bot_rank_changed` forgets it when Telegram tells of a change."""
        known = self._admin.get(chat_id)
        if known is not None and self.clock() < known[1]:
            return known[0]
        try:
            member = await self.bot.get_chat_member(chat_id, self.bot.id)
            admin = member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)
        except TelegramError as error:
            log.info("the bot's rank in %s unknown: %s", chat_id, error)
            admin = False
        self._admin[chat_id] = (admin, self.clock() + ADMIN_TTL)
        self._admin.move_to_end(chat_id)
        if len(self._admin) > self.size:
            self._admin.popitem(last=False)
        return admin

    async def can_tag(self, chat_id: int) -> bool:
        """Whether the bot may set members' tags in the group (an administrator with
        `can_manage_tags`, Bot API 9.5), asked when needed (a champion's crowning is rare)."""
        try:
            member = await self.bot.get_chat_member(chat_id, self.bot.id)
        except TelegramError:
            return False
        if member.status == ChatMemberStatus.OWNER:
            return True
        rights = member.api_kwargs.get("can_manage_tags")
        if rights is None:
            rights = getattr(member, "can_manage_tags", None)
        return member.status == ChatMemberStatus.ADMINISTRATOR and bool(rights)

    def bot_rank_changed(self, chat_id: int, admin: bool) -> None:
        """Telegram told that the bot's rank in the group changed (`my_chat_member`)."""
        self._admin[chat_id] = (admin, self.clock() + ADMIN_TTL)
        self._admin.move_to_end(chat_id)
