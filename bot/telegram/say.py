"""What the handlers ask the Telegram adapter to say outside any change of the core (an answer
to a command, a page turned, a message sent anew), and the adapter's own records that go with
it. The handlers parse the update and decide; the rows, their lanes and priorities, and the
records are the adapter's alone (no handler writes an outbox row or a record itself)."""

from __future__ import annotations

from typing import Any

from telegram.error import Forbidden
from telegram.ext import ExtBot

from bot.core import Core
from bot.model.options import TableOptions
from bot.model.outbox import Record
from bot.model.table import Table
from bot.service.mailbox import GROUP, OWN, Mailbox
from bot.telegram.records import (
    FRONT,
    JOIN,
    NOTIFY,
    REFUSED,
    TelegramTable,
    board_record,
    page_record,
    tourney_key,
)
from bot.telegram.rows import Markup as Markup  # (the handlers' keyboards are typed as it)
from bot.telegram.rows import (
    edit_row,
    ephemeral_edit_row,
    ephemeral_reply_row,
    hand_row,
    reply_row,
    text_row,
    tourney_row,
)


class Say:
    def __init__(self, core: Core, sender: Mailbox, bot: ExtBot[Any], paid: bool) -> None:
        self.core = core
        self.sender = sender
        self.bot = bot
        self.paid = True if paid else None  # (None: not asked, TRUCO_PAID_BROADCAST)

    # -- answers to a command ---------------------------------------------------------------------
    async def reply(
        self, chat_id: int, text: str, thread_id: int, markup: Markup | None, reply_to: int
    ) -> None:
        """An answer through the chat's lane (identical ones waiting become one)."""
        await self.sender.send([reply_row(chat_id, text, thread_id, markup, reply_to)])

    async def ephemeral_reply(
        self,
        chat_id: int,
        user_id: int,
        text: str,
        asked: int,
        markup: Markup | None,
        thread_id: int,
    ) -> None:
        """The answer to an ephemeral command, to its asker alone, in their own lane."""
        await self.sender.send(
            [ephemeral_reply_row(chat_id, user_id, text, asked, markup, thread_id)]
        )

    async def pausing(
        self, chat_id: int, user_id: int, text: str, thread_id: int, reply_to: int
    ) -> None:
        """The one word that the bot pauses a person's flood of commands in a group: a key of
        their own, so that it is not queued twice."""
        key = f"pause:{chat_id}:{user_id}"
        await self.sender.send([text_row(chat_id, text, thread_id, reply_to=reply_to, key=key)])

    async def message(self, chat_id: int, text: str, markup: Markup | None = None) -> None:
        """A new message (a private word: a partner's link, a choice said back)."""
        await self.sender.send([text_row(chat_id, text, markup=markup)])

    async def at_once(self, user_id: int, text: str, behind_play: bool = False) -> bool:
        """A private message sent now, outside the outbox (its first words double as the check
        that the bot may write there), within the bot's overall budget as the outbox is, as a
        person's own message or (`behind_play`) a board, behind the turns: False when the
        person has not started the bot or blocked it."""
        try:
            async with self.sender.direct(GROUP if behind_play else OWN):
                await self.bot.send_message(user_id, text, allow_paid_broadcast=self.paid)
        except Forbidden:
            when = repr(self.core.tables.clock())  # (the one clock: the database's)
            await self.core.records.put([Record(REFUSED, user_id, REFUSED, when)])
            return False
        if await self.refused(user_id):
            await self.core.records.put([Record(REFUSED, user_id, REFUSED, None)])
        return True

    async def refused(self, user_id: int) -> bool:
        """Whether the person's private chat refused the bot's last check (`REFUSED`)."""
        return REFUSED in await self.core.records.of(REFUSED, user_id)

    # -- messages of ours, edited -----------------------------------------------------------------
    async def edit(
        self, chat_id: int, message_id: int, text: str, markup: Markup | None = None
    ) -> None:
        await self.sender.send([edit_row(chat_id, message_id, text, markup)])

    async def edit_ephemeral(
        self, chat_id: int, user_id: int, ephemeral_id: int, text: str, markup: Markup | None
    ) -> None:
        """`user_id`'s ephemeral message in group `chat_id`, edited in their own lane."""
        await self.sender.send([ephemeral_edit_row(chat_id, user_id, ephemeral_id, text, markup)])

    async def set_language(
        self, chat_id: int, language: str, message_id: int, text: str, markup: Markup | None = None
    ) -> None:
        """The chat's language set, and the message that set it edited, in one commit."""
        row = edit_row(chat_id, message_id, text, markup)
        await self.core.chats.set_language(chat_id, language, [row])

    async def set_defaults(
        self, chat_id: int, options: TableOptions, message_id: int, text: str, markup: Markup
    ) -> None:
        """The group's defaults set, and its /config panel edited, in one commit."""
        row = edit_row(chat_id, message_id, text, markup)
        await self.core.chats.set_defaults(chat_id, options, [row])

    # -- a player's hand --------------------------------------------------------------------------
    async def hand_anew(self, table: Table, user_id: int) -> None:
        """The person's hand as a new message, so that Telegram notifies them (back after
        blocking the bot)."""
        await self.sender.send([hand_row(table, user_id, loud=True)])

    # -- a tournament's group message -------------------------------------------------------------
    async def tourney_again(self, chat_id: int, tourney_id: int, stub: str) -> None:
        """The tournament's message sent again (and edited from then on); the earlier one
        becomes `stub`, which points down (no buttons that look alive)."""
        key = tourney_key(tourney_id)
        earlier = TelegramTable.of(await self.core.records.of(FRONT, key)).board
        await self.core.records.put([board_record(key, None)])
        rows = [tourney_row(chat_id, tourney_id)]
        if earlier:
            rows.insert(0, edit_row(chat_id, earlier, stub))
        await self.sender.send(rows)

    async def tourney_page(self, chat_id: int, tourney_id: int, page: int, now: int) -> None:
        """The tournament's message turned to `page` (kept while play stays on page `now`)."""
        await self.core.records.put([page_record(tourney_id, page, now)])
        await self.sender.send([tourney_row(chat_id, tourney_id)])

    # -- the adapter's records asked of by a command or a link ------------------------------------
    async def table_joined_by(self, token: str) -> int | None:
        """The table whose join link carries `token`."""
        return await self.core.records.find(FRONT, JOIN, token)

    async def notes_asked(self, chat_id: int, user_id: int) -> bool:
        """Whether `user_id` asked for /avisame's notes of group `chat_id`."""
        return str(user_id) in await self.core.records.of(NOTIFY, chat_id)

    async def ask_notes(self, chat_id: int, user_id: int, title: str | None) -> None:
        """/avisame's notes of group `chat_id` (its `title` said in them) for `user_id`, on;
        None: off."""
        await self.core.records.put([Record(NOTIFY, chat_id, str(user_id), title)])
