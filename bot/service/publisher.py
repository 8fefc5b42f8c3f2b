"""Shows tables in Telegram: the lobby and board in the group, each player's hand in private.

Everything here renders the latest committed state when its call actually goes out (see
Outbox), so a burst of actions costs one edit, and a restart just refreshes what is there.
"""

from __future__ import annotations

import contextlib
import logging

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.game import observe
from bot.game.events import HandDealt
from bot.i18n import translator
from bot.service.outbox import Job, Outbox
from bot.service.tables import ActOutcome, TableService
from bot.storage.league import League
from bot.storage.repo import Table, TableStatus
from bot.views.common import Seating, rules_line, seating, short_name
from bot.views.lobby import lobby_markup, lobby_text
from bot.views.standings import rating_lines
from bot.views.summary import hand_summary, match_summary
from bot.views.table import board_markup, board_text, hand_markup, hand_text

log = logging.getLogger(__name__)


def _gone(error: BadRequest) -> bool:
    text = str(error).lower()
    return "not found" in text or "can't be edited" in text or "message_id_invalid" in text


def _not_modified(error: BadRequest) -> bool:
    return "not modified" in str(error).lower()


class Publisher:
    def __init__(
        self,
        bot: Bot,
        service: TableService,
        outbox: Outbox,
        bot_username: str,
        league: League,
    ) -> None:
        self.bot = bot
        self.league = league
        self.service = service
        self.outbox = outbox
        self.bot_username = bot_username
        self._sent: dict[tuple[int, int], int] = {}
        self._waiting: dict[int, set[int]] = {}
        self._blocked_told: set[tuple[int, int, int]] = set()

    # -- basics --------------------------------------------------------------------------------
    async def names(self, table: Table) -> dict[int, str]:
        players = await self.service.store.players(table.players)
        return {uid: p.name for uid, p in players.items()}

    async def who(self, table: Table) -> Seating:
        return seating(table.seats, await self.names(table))

    async def send(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        thread_id: int = 0,
    ) -> Message:
        message = await self.bot.send_message(
            chat_id,
            text,
            reply_markup=markup,
            message_thread_id=thread_id or None,
        )
        self._sent[(chat_id, message.message_id)] = hash((text, _markup_key(markup)))
        return message

    async def edit(
        self, chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None
    ) -> bool:
        """Edit unless unchanged; True if Telegram was called. Raises BadRequest if gone."""
        key = (chat_id, message_id)
        digest = hash((text, _markup_key(markup)))
        if self._sent.get(key) == digest:
            return False
        try:
            await self.bot.edit_message_text(
                text, chat_id=chat_id, message_id=message_id, reply_markup=markup
            )
        except BadRequest as error:
            if not _not_modified(error):
                raise
        self._sent[key] = digest
        return True

    def post_text(self, chat_id: int, text: str, thread_id: int = 0) -> None:
        """A new message, in order, paced like everything else in its chat."""

        async def job() -> bool:
            try:
                await self.send(chat_id, text, None, thread_id)
            except Forbidden:
                return True
            return True

        self.outbox.post(chat_id, job)

    def forget(self, chat_id: int, message_id: int | None) -> None:
        """The message was changed behind our back (a sign menu): do not skip its next edit."""
        if message_id is not None:
            self._sent.pop((chat_id, message_id), None)

    # -- lobby ---------------------------------------------------------------------------------
    async def lobby_view(self, table: Table) -> tuple[str, InlineKeyboardMarkup]:
        t = translator(table.language)
        return lobby_text(t, table, await self.names(table)), lobby_markup(
            t, table, self.bot_username
        )

    def refresh_lobby(self, table_id: int, chat_id: int) -> None:
        async def job() -> bool:
            table = await self.service.get(table_id)
            if table is None or table.status is not TableStatus.LOBBY or not table.message_id:
                return False
            return await self.show_in_group(table, *await self.lobby_view(table))

        self.outbox.refresh(chat_id, f"lobby:{table_id}", job)

    async def show_in_group(
        self, table: Table, text: str, markup: InlineKeyboardMarkup | None
    ) -> bool:
        """Edit the table's group message; send it anew (and remember it) if it is gone."""
        if table.message_id:
            try:
                return await self.edit(table.chat_id, table.message_id, text, markup)
            except BadRequest as error:
                if not _gone(error):
                    raise
        message = await self.send(table.chat_id, text, markup, table.thread_id)
        await self.service.set_message(table.id, message.message_id)
        return True

    def close_message(self, table: Table, key: str) -> None:
        """The lobby or board of a table that ended without a winner."""
        if not table.message_id:
            return
        text = translator(table.language)(key)
        chat_id, message_id = table.chat_id, table.message_id

        async def job() -> bool:
            try:
                return await self.edit(chat_id, message_id, text, None)
            except BadRequest:
                return True

        self.outbox.post(chat_id, job)

    # -- board ---------------------------------------------------------------------------------
    async def board_view(self, table: Table) -> tuple[str, InlineKeyboardMarkup | None]:
        assert table.state is not None
        t = translator(table.language)
        obs = observe(table.state)
        who = await self.who(table)
        return board_text(t, who, obs, table.calls), board_markup(t, table.id, obs)

    def refresh_board(self, table_id: int, chat_id: int) -> None:
        async def job() -> bool:
            table = await self.service.get(table_id)
            if table is None or table.status is not TableStatus.PLAYING:
                return False
            return await self.show_in_group(table, *await self.board_view(table))

        self.outbox.refresh(chat_id, f"board:{table_id}", job)

    # -- private hands -------------------------------------------------------------------------
    def refresh_hand(self, table_id: int, user_id: int, resend: bool) -> None:
        async def job() -> bool:
            return await self._hand(table_id, user_id, resend)

        if resend:
            self.outbox.post(user_id, job)
        else:
            self.outbox.refresh(user_id, f"hand:{table_id}", job)

    async def _hand(self, table_id: int, user_id: int, resend: bool) -> bool:
        table = await self.service.get(table_id)
        if table is None or table.state is None:
            return False
        seat = table.seat_of(user_id)
        if seat is None:
            return False
        t = translator(table.language)
        obs = observe(table.state, seat)
        who = await self.who(table)
        text = hand_text(t, who, obs, t("hand.title", rules=rules_line(t, table.config)))
        markup = (
            hand_markup(t, table.id, obs, signs=table.config.players == 4)
            if table.status is TableStatus.PLAYING
            else None  # a finished or cancelled match leaves nothing to tap
        )
        old = table.hand_messages.get(user_id)
        try:
            if old and not resend:
                try:
                    return await self.edit(user_id, old, text, markup)
                except BadRequest as error:
                    if not _gone(error):
                        raise
            if old and resend:
                # Too old or already gone: the new message is what counts.
                with contextlib.suppress(TelegramError):
                    await self.bot.delete_message(user_id, old)
            message = await self.send(user_id, text, markup)
        except Forbidden:
            await self._blocked(table, user_id)
            return True
        await self.service.set_hand_message(table.id, user_id, message.message_id)
        return True

    async def _blocked(self, table: Table, user_id: int) -> None:
        await self.service.set_can_dm(user_id, False)
        hand = table.state.hand_number if table.state else 0
        key = (table.id, user_id, hand)
        if key in self._blocked_told:
            return
        self._blocked_told.add(key)
        names = await self.names(table)
        t = translator(table.language)
        text = t("dm.blocked", name=short_name(names.get(user_id, "?")))
        link = f"https://t.me/{self.bot_username}?start=h{table.id}"
        markup = InlineKeyboardMarkup.from_button(
            InlineKeyboardButton(t("button.open_private"), url=link)
        )

        async def job() -> bool:
            await self.send(table.chat_id, text, markup, table.thread_id)
            return True

        self.outbox.post(table.chat_id, job)

    def _waiting_users(self, table: Table) -> set[int]:
        if table.state is None:
            return set()
        seats = {a.seat for a in table.state.legal_actions()}
        return {u for s, u in enumerate(table.seats) if s in seats and u is not None}

    # -- moments of a match --------------------------------------------------------------------
    def match_started(self, table: Table) -> None:
        self.refresh_board(table.id, table.chat_id)
        self._waiting[table.id] = self._waiting_users(table)
        for user in table.players:
            self.refresh_hand(table.id, user, resend=True)

    def refresh_all(self, table: Table) -> None:
        """After a restart: bring every message of a table up to date."""
        if table.status is TableStatus.LOBBY:
            self.refresh_lobby(table.id, table.chat_id)
            return
        self.refresh_board(table.id, table.chat_id)
        self._waiting[table.id] = self._waiting_users(table)
        for user in table.players:
            self.refresh_hand(table.id, user, resend=False)

    async def after_action(self, outcome: ActOutcome, tapper: int) -> None:
        """Show what an accepted action changed. Awaits only the tapper's own hand."""
        table = outcome.table
        new_hand = any(isinstance(e, HandDealt) for e in outcome.events)
        waiting_before = self._waiting.get(table.id, set())
        waiting_now = self._waiting_users(table)
        self._waiting[table.id] = waiting_now
        if outcome.ended_hand is not None:
            await self._hand_over(table, outcome)
        elif table.status is TableStatus.PLAYING:
            self.refresh_board(table.id, table.chat_id)
        mine = self.outbox.refresh(
            tapper, f"hand:{table.id}", self._hand_job(table.id, tapper), urgent=True
        )
        for user in table.players:
            if user == tapper:
                continue
            notify = new_hand or (user in waiting_now and user not in waiting_before)
            self.refresh_hand(table.id, user, resend=notify and table.is_open)
        if new_hand and table.is_open:
            self.refresh_hand(table.id, tapper, resend=True)
        await mine

    def _hand_job(self, table_id: int, user_id: int) -> Job:
        async def job() -> bool:
            return await self._hand(table_id, user_id, False)

        return job

    async def _hand_over(self, table: Table, outcome: ActOutcome) -> None:
        """The board becomes the hand's record; a new board follows (or the match result)."""
        ended = outcome.ended_hand
        assert ended is not None
        t = translator(table.language)
        who = await self.who(table)
        summary = hand_summary(t, who, ended, outcome.events)
        board_id = table.message_id
        chat_id = table.chat_id
        over = table.state is not None and table.state.is_over

        async def job() -> bool:
            if board_id:
                try:
                    await self.edit(chat_id, board_id, summary, None)
                    return True
                except BadRequest as error:
                    if not _gone(error):
                        raise
            await self.send(chat_id, summary, None, table.thread_id)
            return True

        self.outbox.post(chat_id, job)
        if over:
            self.match_over(table)
        else:
            await self.service.set_message(table.id, None)
            self.refresh_board(table.id, chat_id)

    def match_over(self, table: Table, conceded_by: int | None = None) -> None:
        state = table.state
        scores = state.scores if state else [0, 0]
        winner = state.winner if state and state.is_over else None
        if conceded_by is not None:
            winner = 1 - conceded_by
        t = translator(table.language)

        async def job() -> bool:
            who = await self.who(table)
            text = match_summary(t, who, scores, table.config.target, winner, conceded_by)
            changes = await self.league.rating_changes(table.id)
            if changes:
                text += "\n\n" + "\n".join([t("match.ratings"), *rating_lines(t, changes)])
            await self.send(table.chat_id, text, None, table.thread_id)
            return True

        if conceded_by is not None and table.message_id:
            self.close_message(table, "match.ended_board")
        self.outbox.post(table.chat_id, job)
        for user in table.players:
            self.refresh_hand(table.id, user, resend=False)


def _markup_key(markup: InlineKeyboardMarkup | None) -> str:
    return markup.to_json() if markup is not None else ""
