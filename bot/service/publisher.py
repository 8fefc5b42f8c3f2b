"""What the bot says about a table, and how it says it.

Two halves meet at the outbox (see `bot.storage.outbox` and `bot.service.outbox`):
- `plan(change)` runs inside a table's commit and decides the rows: the lobby or board to
  refresh, hand messages to refresh or send anew, a hand's record, the end of a match. Texts
  that depend on the moment (a hand's record, a timeout) are rendered here; views of a living
  table are rendered when they go out.
- `deliver(row)` makes the Bot API call of one row. A board, lobby or hand renders the latest
  committed state at that moment, so a burst of actions costs one edit, and a restart delivers
  whatever was decided and not yet sent.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import random
from collections import OrderedDict
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ExtBot

from bot.callbacks import VacatedData, pack
from bot.game import observe
from bot.game.events import HandDealt
from bot.game.fair import commitment
from bot.game.state import HandLog
from bot.http import JsonBody
from bot.i18n import Translator, translator
from bot.service.outbox import Committer, Delivery, Outbox, Writer
from bot.service.tables import VACATED_SECONDS, Change, ChangeKind, TableService
from bot.storage.league import League
from bot.storage.outbox import POST, REFRESH, URGENT, Outgoing, Pending
from bot.storage.repo import BOT_LEVELS, Table, TableStatus, is_bot
from bot.views.common import Keys, Seating, rules_line, seating, short_name
from bot.views.lobby import lobby_markup, lobby_text
from bot.views.standings import rating_lines
from bot.views.summary import hand_record, match_summary
from bot.views.table import board_markup, board_text, hand_markup, hand_text, kind_label

log = logging.getLogger(__name__)

Markup = InlineKeyboardMarkup | Keys  # Keys: the board's and hands' lean keyboards

SENT_REMEMBERED = 50_000
RECORDS_REMEMBERED = 2_000
# Given in every call (the application's Defaults reach only PTB's typed methods).
TEXT_OPTIONS = {"parse_mode": "HTML", "link_preview_options": {"is_disabled": True}}
ATTENTIVE_SECONDS = 20.0  # acted this recently: looking at the chat, no need to notify


def _gone(error: BadRequest) -> bool:
    text = str(error).lower()
    return "not found" in text or "can't be edited" in text or "message_id_invalid" in text


def _not_modified(error: BadRequest) -> bool:
    return "not modified" in str(error).lower()


def bot_name(t: Translator, level: str) -> str:
    """A computer player's name on the board: it says it is one, and its level."""
    return t("bot.name", level=t(f"bot.level.{level}"))


def vacated_markup(t: Translator, table_id: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(t("button.bot_takes_seat"),
                                     callback_data=pack(VacatedData(table_id, "b"))),
                InlineKeyboardButton(t("button.end_match"),
                                     callback_data=pack(VacatedData(table_id, "e"))),
            ]
        ]
    )  # fmt: skip


# -- rows -------------------------------------------------------------------------------------
def _tapper(change: Change) -> int | None:
    """Who tapped to cause the change (None: the timer acted, or nobody did)."""
    return None if change.timed_out else change.actor


def board_row(table: Table) -> Outgoing:
    return Outgoing(table.chat_id, "board", {"t": table.id}, f"board:{table.id}", REFRESH)


def lobby_row(table: Table) -> Outgoing:
    return Outgoing(table.chat_id, "lobby", {"t": table.id}, f"lobby:{table.id}", REFRESH)


def hand_row(table: Table, user_id: int, loud: bool = False, urgent: bool = False) -> Outgoing:
    """The user's hand message: edited, or (loud) sent anew so that Telegram notifies them."""
    priority = URGENT if loud or urgent else REFRESH
    return Outgoing(
        user_id, "hand", {"t": table.id, "u": user_id}, f"hand:{table.id}", priority, loud
    )


def text_row(
    chat_id: int,
    text: str,
    thread_id: int = 0,
    markup: InlineKeyboardMarkup | None = None,
    reply_to: int | None = None,
    key: str | None = None,
) -> Outgoing:
    """A new message. With a `key`, an identical one still waiting is not queued twice."""
    payload: dict[str, Any] = {"text": text}
    if thread_id:
        payload["thread"] = thread_id
    if markup is not None:
        payload["markup"] = markup.to_dict()
    if reply_to:
        payload["reply_to"] = reply_to
    return Outgoing(chat_id, "text", payload, key, POST)


def reply_row(
    chat_id: int,
    text: str,
    thread_id: int = 0,
    markup: InlineKeyboardMarkup | None = None,
    reply_to: int | None = None,
) -> Outgoing:
    """An answer to a command: identical answers waiting in the chat's lane become one (a
    group that floods /tabla gets one table, not a hundred)."""
    body = text + (markup.to_json() if markup is not None else "") + f"|{thread_id}"
    digest = hashlib.sha256(body.encode()).hexdigest()[:24]
    return text_row(chat_id, text, thread_id, markup, reply_to, key=f"reply:{digest}")


def edit_row(
    chat_id: int, message_id: int, text: str, markup: InlineKeyboardMarkup | None = None
) -> Outgoing:
    """A new text for a message of ours (a /config panel): only the latest one counts."""
    payload: dict[str, Any] = {"m": message_id, "text": text}
    if markup is not None:
        payload["markup"] = markup.to_dict()
    return Outgoing(chat_id, "edit", payload, f"edit:{message_id}", REFRESH)


class Publisher:
    def __init__(
        self,
        bot: ExtBot[Any],
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
        # What each message of ours shows (to skip an edit that changes nothing); the oldest
        # are forgotten past SENT_REMEMBERED (that only costs one edit, never a wrong one).
        self._sent: OrderedDict[tuple[int, int], int] = OrderedDict()
        self.sign_catch_chance = 0.0  # set from the settings
        self.seed: int | None = None
        self._blocked_told: set[tuple[int, int, int]] = set()
        # The last hand's record on a board, told once per hand (a replay of the hand), not at
        # every edit of the next one.
        self._records: OrderedDict[tuple[Any, ...], str] = OrderedDict()

    # -- basics --------------------------------------------------------------------------------
    async def names(self, table: Table) -> dict[int, str]:
        known = self.service.names
        people = [*table.players, table.opener_id]
        missing = [u for u in people if u not in known and u > 0]
        if missing:
            for uid, player in (await self.service.store.players(missing)).items():
                known[uid] = player.name
        names = {u: known[u] for u in people if u in known}
        t = translator(table.language)
        for seat in table.bot_seats:
            user = table.seats[seat]
            assert user is not None
            names[user] = bot_name(t, BOT_LEVELS[user])
        return names

    async def who(self, table: Table) -> Seating:
        return seating(table.seats, await self.names(table))

    async def say(self, *rows: Outgoing) -> None:
        """Rows that change nothing else: committed on their own, then delivered."""
        await self.outbox.send(list(rows))

    async def bot_signs(self, table: Table, seat: int, signs: list[str]) -> None:
        """A computer player shows its partner (a person) its señas; rivals may catch them."""
        t = translator(table.language)
        partner = table.seats[(seat + 2) % 4]
        if partner is None or is_bot(partner):
            return
        names = await self.names(table)
        name = short_name(names.get(table.seats[seat] or 0, "?"))
        rows = []
        step = table.state.step if table.state else 0
        for sign in signs:
            sign_text, meaning = t(f"sign.{sign}"), t(f"sign.meaning.{sign}")
            text = t("sign.received", name=f"<b>{name}</b>", sign=sign_text, meaning=meaning)
            rows.append(text_row(partner, text))
            rows += await self.caught_sign(table, seat, step, sign)
        await self.say(*rows)

    async def caught_sign(self, table: Table, seat: int, step: int, sign: str) -> list[Outgoing]:
        """Each rival (a person) catches a seña with `sign_catch_chance`: told to the group."""
        chance = self.sign_catch_chance
        seed = self.seed
        t = translator(table.language)
        names = await self.names(table)
        name = short_name(names.get(table.seats[seat] or 0, "?"))
        rng = random.Random(None if seed is None else f"{seed}:{table.id}:{step}:{seat}:{sign}")
        rows = []
        for rival_seat in ((seat + 1) % 4, (seat + 3) % 4):
            rival = table.seats[rival_seat]
            if rival is not None and rival > 0 and rng.random() < chance:
                caught = t(
                    "sign.caught",
                    rival=f"<b>{short_name(names.get(rival, '?'))}</b>",
                    name=f"<b>{name}</b>",
                    sign=t(f"sign.{sign}"),
                    meaning=t(f"sign.meaning.{sign}"),
                )
                rows.append(text_row(table.chat_id, caught, table.thread_id))
        return rows

    def join_link(self, table: Table) -> str:
        return f"https://t.me/{self.bot_username}?start=j{table.join_token or ''}"

    # -- planning: what a change makes the bot say -----------------------------------------------
    async def plan(self, change: Change) -> list[Outgoing]:
        table = change.table
        kind = change.kind
        t = translator(table.language)
        if kind == ChangeKind.LOBBY:
            return [lobby_row(table)]
        if kind == ChangeKind.STARTED:
            return [board_row(table)] + [hand_row(table, u, loud=True) for u in table.players]
        if kind == ChangeKind.EXPIRED:
            return [self._close(table, "lobby.expired")]
        if kind == ChangeKind.CANCELLED:
            playing = change.was is TableStatus.PLAYING
            rows = [self._close(table, "match.cancelled" if playing else "lobby.cancelled")]
            return rows + ([hand_row(table, u) for u in table.players] if playing else [])
        if kind == ChangeKind.CHAT_GONE:
            return [hand_row(table, u) for u in table.players] if table.state else []
        if kind == ChangeKind.MOVED:
            if table.status is TableStatus.LOBBY:
                return [lobby_row(table)]
            return [board_row(table)] + [hand_row(table, u) for u in table.players]
        if kind == ChangeKind.VACATED:
            assert change.seat is not None
            who = await self.who(table)
            key = "vacated.timeout" if change.timed_out else "vacated.left"
            text = t(key, name=who.seat(change.seat), count=VACATED_SECONDS // 60)
            markup = vacated_markup(t, table.id)
            return [text_row(table.chat_id, text, table.thread_id, markup), board_row(table)]
        if kind == ChangeKind.BOT_IN:
            assert change.seat is not None
            who = await self.who(table)
            text = t("vacated.bot_in", name=who.seat(change.seat))
            rows = [text_row(table.chat_id, text, table.thread_id), board_row(table)]
            return rows + [hand_row(table, u) for u in table.players]
        if kind == ChangeKind.REMIND:
            return await self._reminders(table)
        if kind == ChangeKind.CONCEDED:
            assert change.seat is not None
            rows = []
            if change.timed_out:
                who = await self.who(table)
                text = t(
                    "timeout.conceded",
                    side=who.side(t, change.seat % 2),
                    count=who.size(change.seat % 2),
                )
                rows.append(text_row(table.chat_id, text, table.thread_id))
            return rows + self._match_over(table, change.seat % 2, _tapper(change))
        return await self._after_action(change)

    async def _reminders(self, table: Table) -> list[Outgoing]:
        """Half the time is gone: each person the game waits on, in private and with a
        mention in the group."""
        if table.state is None or not table.deadline:
            return []
        t = translator(table.language)
        names = await self.names(table)
        left = max(int(table.deadline - self.service.clock()), 1)
        step = table.state.step
        rows = []
        for seat in sorted({a.seat for a in table.state.legal_actions()}):
            user = table.seats[seat]
            if user is None or user < 0:
                continue  # a computer player needs no reminder
            name = short_name(names.get(user, "?"))
            mention = f'<a href="tg://user?id={user}">{name}</a>'
            key = f"remind:{table.id}:{step}:{user}"
            rows.append(
                text_row(table.chat_id, t("timeout.remind", name=mention, seconds=left),
                         table.thread_id, key=key)
            )  # fmt: skip
            rows.append(text_row(user, t("timeout.remind", name=name, seconds=left), key=key))
        return rows

    async def _after_action(self, change: Change) -> list[Outgoing]:
        table = change.table
        t = translator(table.language)
        rows: list[Outgoing] = []
        if change.timed_out and change.action is not None and change.seat is not None:
            who = await self.who(table)
            action = change.action
            what = t("timeout.card") if action.card is not None else kind_label(t, action.kind)
            text = t("timeout.acted", name=who.seat(change.seat), action=what)
            rows.append(text_row(table.chat_id, text, table.thread_id))
        new_hand = any(isinstance(e, HandDealt) for e in change.events)
        waiting_now = self.service.waiting_users(table)
        # The end of a hand is told on the board itself (its record on top of the next hand):
        # one coalesced message per group, so the group is never more than a call behind.
        over = table.state is not None and table.state.is_over
        if over or table.status is TableStatus.PLAYING:
            rows.append(board_row(table))
        if over:
            rows += self._match_over(table, actor=_tapper(change))
        if over or not table.is_open:
            return rows
        now = self.service.clock()
        for user in table.players:
            # A new message notifies; an edit does not. Someone who acted a moment ago is
            # looking at the chat: a buzz at every move of a quick match is noise (and a
            # second call), so they get the edit.
            looking = now - table.acted.get(user, float("-inf")) < ATTENTIVE_SECONDS
            turn = new_hand or (user in waiting_now and user not in change.waiting_before)
            notify = turn and not looking
            mine = user == _tapper(change)
            # The tapper's own hand and the hand of whoever must act now go first and never
            # wait for the overall budget; the others' are background refreshes.
            rows.append(hand_row(table, user, loud=notify, urgent=mine or turn))
        return rows

    def _close(self, table: Table, key: str) -> Outgoing:
        """The lobby or board of a table that ended without a winner."""
        return Outgoing(table.chat_id, "close", {"t": table.id, "key": key}, None, POST)

    def _match_over(
        self, table: Table, conceded_by: int | None = None, actor: int | None = None
    ) -> list[Outgoing]:
        """The last board and everyone's last hand; the hand of whoever ended it (the last
        tap, or conceding) goes first, as after any tap."""
        rows = []
        if conceded_by is not None:
            rows.append(self._close(table, "match.ended_board"))
        payload = {"t": table.id, "conceded_by": conceded_by}
        rows.append(Outgoing(table.chat_id, "match_end", payload, None, POST))
        rows += [hand_row(table, u, urgent=u == actor) for u in table.players]
        return rows

    # -- delivering: one row, one or two Bot API calls -------------------------------------------
    async def deliver(self, row: Pending) -> Delivery:
        kind = row.kind
        if kind == "text":
            return await self._deliver_text(row)
        if kind == "edit":
            return await self._deliver_edit(row)
        table = await self.service.get(int(row.payload["t"]))
        if table is None:
            return Delivery(called=False)
        if kind == "board":
            if table.state is None:
                return Delivery(called=False)
            if table.status is not TableStatus.PLAYING and not table.state.is_over:
                return Delivery(called=False)  # cancelled or conceded: its close row tells
            return await self._show_in_group(table, *await self.board_view(table))
        if kind == "lobby":
            if table.status is not TableStatus.LOBBY:
                return Delivery(called=False)
            return await self._show_in_group(table, *await self.lobby_view(table))
        if kind == "hand":
            return await self._deliver_hand(table, int(row.payload["u"]), row.loud)
        if kind == "summary":
            return await self._deliver_summary(table, str(row.payload["text"]))
        if kind == "close":
            return await self._deliver_close(table, str(row.payload["key"]))
        if kind == "match_end":
            return await self._deliver_match_end(table, row.payload.get("conceded_by"))
        log.warning("unknown outbox row %s: dropped", kind)
        return Delivery(called=False)

    async def send(
        self,
        chat_id: int,
        text: str,
        markup: Markup | None = None,
        thread_id: int = 0,
        reply_to: int | None = None,
    ) -> int:
        """Send a message; its id."""
        fields = _message_fields(chat_id, text, markup)
        if thread_id:
            fields["message_thread_id"] = thread_id
        if reply_to:
            fields["reply_parameters"] = {
                "message_id": reply_to,
                "allow_sending_without_reply": True,
            }
        sent = await self._call("sendMessage", fields)
        message_id = int(sent["message_id"])
        self._remember((chat_id, message_id), hash((text, markup)))
        return message_id

    async def edit(self, chat_id: int, message_id: int, text: str, markup: Markup | None) -> bool:
        """Edit unless unchanged; True if Telegram was called. Raises BadRequest if gone."""
        key = (chat_id, message_id)
        digest = hash((text, markup))  # PTB hashes a keyboard by its buttons' contents
        if self._sent.get(key) == digest:
            return False
        fields = {**_message_fields(chat_id, text, markup), "message_id": message_id}
        try:
            await self._call("editMessageText", fields)
        except BadRequest as error:
            if not _not_modified(error):
                raise
        self._remember(key, digest)
        return True

    async def answer(self, query_id: str, text: str = "") -> None:
        """Answer a button tap (a handler's call, not the outbox's: it must go at once)."""
        fields: dict[str, Any] = {"callback_query_id": query_id}
        if text:
            fields["text"] = text
        await self._call("answerCallbackQuery", fields)

    async def delete(self, chat_id: int, message_id: int) -> None:
        await self._call("deleteMessage", {"chat_id": chat_id, "message_id": message_id})

    async def _call(self, method: str, fields: dict[str, Any]) -> Any:
        """A Bot API call, straight to PTB's request layer (which still maps
        Telegram's errors to BadRequest, Forbidden, RetryAfter...) and answered as plain JSON:
        building PTB's parameters and a Message out of every answer (nothing reads but its id)
        was a fifth of the bot's CPU under load. The outbox paces its calls itself."""
        return await self.bot.request.post(f"{self.bot.base_url}/{method}", JsonBody(fields))

    def _remember(self, key: tuple[int, int], digest: int) -> None:
        self._sent[key] = digest
        self._sent.move_to_end(key)
        if len(self._sent) > SENT_REMEMBERED:
            self._sent.popitem(last=False)

    def forget(self, chat_id: int, message_id: int | None) -> None:
        """The message was changed behind our back (a sign menu): do not skip its next edit."""
        if message_id is not None:
            self._sent.pop((chat_id, message_id), None)

    def _markup(self, payload: dict[str, Any]) -> InlineKeyboardMarkup | None:
        data = payload.get("markup")
        return InlineKeyboardMarkup.de_json(data, self.bot) if data else None

    async def _deliver_edit(self, row: Pending) -> Delivery:
        payload = row.payload
        try:
            called = await self.edit(
                row.chat_id, int(payload["m"]), str(payload["text"]), self._markup(payload)
            )
        except BadRequest as error:
            if not _gone(error):
                raise
            return Delivery()
        return Delivery(called=called)

    async def _deliver_text(self, row: Pending) -> Delivery:
        payload = row.payload
        markup = self._markup(payload)
        try:
            await self.send(
                row.chat_id,
                str(payload["text"]),
                markup,
                int(payload.get("thread", 0)),
                payload.get("reply_to"),
            )
        except Forbidden:
            if row.chat_id > 0:  # a player who blocked the bot: nothing to do about a text
                await self.service.set_can_dm(row.chat_id, False)
                return Delivery()
            raise
        return Delivery()

    async def _show_in_group(self, table: Table, text: str, markup: Markup | None) -> Delivery:
        """Edit the table's group message; send it anew (and remember it) if it is gone."""
        if table.message_id:
            try:
                return Delivery(called=await self.edit(table.chat_id, table.message_id, text,
                                                       markup))  # fmt: skip
            except BadRequest as error:
                if not _gone(error):
                    raise
        message_id = await self.send(table.chat_id, text, markup, table.thread_id)
        return Delivery(commit=self._remember_board(table.id, message_id))

    def _remember_board(self, table_id: int, message_id: int | None) -> Committer:
        async def commit(writer: Writer) -> None:
            await self.service.set_message(table_id, message_id, also=writer)

        return commit

    async def lobby_view(self, table: Table) -> tuple[str, InlineKeyboardMarkup]:
        t = translator(table.language)
        return lobby_text(t, table, await self.names(table)), lobby_markup(
            t, table, self.join_link(table)
        )

    async def board_view(self, table: Table) -> tuple[str, Keys | None]:
        assert table.state is not None
        t = translator(table.language)
        state = table.state
        obs = observe(state)
        who = await self.who(table)
        ended = HandLog.of(state.hand) if state.is_over and state.hand else state.last_hand
        record = self._record(t, who, table, ended) if ended is not None else None
        text = board_text(t, who, obs, table.calls, record)
        if table.seed is not None:  # the deals are fixed: see /verificar when it ends
            text += "\n\n" + t("fair.commitment", commitment=commitment(table.seed))
        return text, board_markup(t, table.id, obs)

    def _record(self, t: Translator, who: Seating, table: Table, ended: HandLog) -> str:
        key = (table.id, ended.number, len(ended.history), t.language, who.names)
        text = self._records.get(key)
        if text is None:
            assert table.state is not None
            text = self._records[key] = hand_record(t, who, table.state.config, ended)
            if len(self._records) > RECORDS_REMEMBERED:
                self._records.popitem(last=False)
        return text

    async def _deliver_hand(self, table: Table, user_id: int, resend: bool) -> Delivery:
        seat = table.seat_of(user_id)
        if table.state is None or seat is None:
            return Delivery(called=False)
        resend = resend and table.status is TableStatus.PLAYING
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
                    return Delivery(called=await self.edit(user_id, old, text, markup))
                except BadRequest as error:
                    if not _gone(error):
                        raise
            if old and resend:
                # Too old or already gone: the new message is what counts.
                with contextlib.suppress(TelegramError):
                    await self.delete(user_id, old)
            message_id = await self.send(user_id, text, markup)
        except Forbidden:
            return await self._blocked(table, user_id)

        async def commit(writer: Writer) -> None:
            await self.service.set_hand_message(table.id, user_id, message_id, writer)

        return Delivery(commit=commit)

    async def _blocked(self, table: Table, user_id: int) -> Delivery:
        """The player blocked the bot (or never started it): tell the group, once a hand."""
        await self.service.set_can_dm(user_id, False)
        hand = table.state.hand_number if table.state else 0
        key = (table.id, user_id, hand)
        if key in self._blocked_told or not table.is_open:
            return Delivery()
        if len(self._blocked_told) > SENT_REMEMBERED:
            self._blocked_told.clear()
        self._blocked_told.add(key)
        names = await self.names(table)
        t = translator(table.language)
        text = t("dm.blocked", name=short_name(names.get(user_id, "?")))
        link = f"https://t.me/{self.bot_username}?start=h{table.id}"
        markup = InlineKeyboardMarkup.from_button(
            InlineKeyboardButton(t("button.open_private"), url=link)
        )
        notice = text_row(
            table.chat_id, text, table.thread_id, markup, key=f"blocked:{table.id}:{user_id}"
        )

        async def commit(writer: Writer) -> None:
            async with self.service.store.db.transaction() as conn:
                await writer(conn)
                await self.outbox.write(conn, [notice])
            self.outbox.wake([notice])

        return Delivery(commit=commit)

    async def _deliver_summary(self, table: Table, summary: str) -> Delivery:
        """The board becomes the hand's record; the next board is a new message."""
        board_id = table.message_id
        if board_id:
            try:
                await self.edit(table.chat_id, board_id, summary, None)
                return Delivery(commit=self._remember_board(table.id, None))
            except BadRequest as error:
                if not _gone(error):
                    raise
        await self.send(table.chat_id, summary, None, table.thread_id)
        return Delivery(commit=self._remember_board(table.id, None))

    async def _deliver_close(self, table: Table, key: str) -> Delivery:
        if not table.message_id:
            return Delivery(called=False)
        text = translator(table.language)(key)
        try:
            return Delivery(called=await self.edit(table.chat_id, table.message_id, text, None))
        except BadRequest as error:
            if not _gone(error):
                raise
            return Delivery()

    async def _deliver_match_end(self, table: Table, conceded_by: int | None) -> Delivery:
        state = table.state
        scores = state.scores if state else [0, 0]
        winner = state.winner if state and state.is_over else None
        if conceded_by is not None:
            winner = 1 - conceded_by
        t = translator(table.language)
        who = await self.who(table)
        text = match_summary(t, who, scores, table.config.target, winner, conceded_by)
        changes = await self.league.rating_changes(table.id)
        if changes:
            text += "\n\n" + "\n".join([t("match.ratings"), *rating_lines(t, changes)])
        if table.seed is not None:  # the match is over: the seed behind every deal is public
            text += "\n\n" + t("fair.revealed", seed=table.seed, number=table.id)
        await self.send(table.chat_id, text, None, table.thread_id)
        return Delivery()


def _message_fields(chat_id: int, text: str, markup: Markup | None) -> dict[str, Any]:
    fields: dict[str, Any] = {"chat_id": chat_id, "text": text, **TEXT_OPTIONS}
    if markup is not None:
        fields["reply_markup"] = markup.to_dict()
    return fields
