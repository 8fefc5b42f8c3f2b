"""How each outbox row becomes Bot API calls (see `bot.storage.outbox` and `outbox.py`).

`deliver(row)` makes the call of one row. A board, lobby or hand renders the latest committed
state at that moment, so a burst of actions costs one edit, and a restart delivers whatever was
decided and not yet sent. A message the bot creates has its id committed with the row's
completion (`Delivery.commit`).
"""

from __future__ import annotations

import contextlib
import logging
from collections import OrderedDict
from datetime import UTC, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from telegram import InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError
from telegram.ext import ExtBot

from bot import links
from bot.core import Core
from bot.game.ending import HandEnding
from bot.i18n import Translator, translator
from bot.links import HandLink, JoinLink, TableLink, TourneyLink
from bot.model.outbox import Pending, Record, RowKind
from bot.model.table import HandPlace, Table, TableStatus
from bot.service.mailbox import Committer, Delivery, Mailbox, Verdict, Writer
from bot.service.unit import Conn
from bot.telegram import payloads
from bot.telegram.http import JsonBody
from bot.telegram.members import Members
from bot.telegram.payloads import (
    ClosePayload,
    DailyPayload,
    EditPayload,
    HandPayload,
    TablePayload,
    TagPayload,
    TextPayload,
    TourneyPayload,
)
from bot.telegram.records import (
    BOARD,
    DAILY_FRONT,
    FRONT,
    TelegramTable,
    board_record,
    ephemeral_record,
    hand_record,
    tourney_key,
    turned_page,
    unwatch_record,
)
from bot.telegram.rows import Markup, edit_row, hand_row, text_row
from bot.tourney.model import Status as TourneyStatus
from bot.tourney.model import Tournament
from bot.tourney.views import (
    bracket_keys,
    bracket_pages,
    people_of,
    signup_keys,
    signup_text,
)
from bot.views.common import (
    Button,
    Keys,
    Seating,
    plain,
    seating_at,
    short_name,
)
from bot.views.daily import post_keys, post_text
from bot.views.lobby import lobby_keys, lobby_text
from bot.views.scene import Gap, hands_to_show, last_end, scene_of
from bot.views.standings import league_line
from bot.views.summary import group_ending, private_ending
from bot.views.table import (
    board_markup,
    board_text,
    group_hand_text,
    hand_markup,
    hand_text,
    helper_of,
    rematch_keys,
    sign_menu_keys,
)

log = logging.getLogger(__name__)

SENT_REMEMBERED = 50_000
# A board this many messages up the chat is out of sight (about a phone's screen): the next
# hand's board is sent anew under the chat, and the old one trimmed to a stub (`board.stub`).
BURIED = 8
RING_FRESH = 20.0  # seconds: a ring-out still waiting after this is news no more (dropped)
# Seconds after a person's tap within which the bot may show them a message in the group
# (Telegram allows 15: a row that waited longer is sent as an edit, or not at all)
EPHEMERAL_WINDOW = 13.0
# Given in every call (the application's Defaults reach only PTB's typed methods).
TEXT_OPTIONS = {"parse_mode": "HTML", "link_preview_options": {"is_disabled": True}}


_SOFT_REFUSALS = ("chat not found", "bot was kicked", "not enough rights", "have no rights")


def judge(error: Exception) -> Verdict:
    """What a failed Bot API call means to the mailbox: a 429 is waited out, a network fault
    tried again, a refusal dropped (a chat that left or blocked the bot is nobody's fault)."""
    if isinstance(error, RetryAfter):
        return Verdict(wait=_seconds(error.retry_after), said="429")
    if isinstance(error, Forbidden):
        return Verdict(expected=True, said=f"the chat refuses the bot: {error}")
    if isinstance(error, BadRequest):
        soft = any(refusal in str(error).lower() for refusal in _SOFT_REFUSALS)
        return Verdict(expected=soft, said=str(error))
    if isinstance(error, NetworkError):
        return Verdict(retry=True, said=str(error))
    return Verdict(called=False, said=repr(error))


def _seconds(value: object) -> float:
    total = getattr(value, "total_seconds", None)
    return float(total()) if callable(total) else float(value)  # type: ignore[arg-type]


def _gone(error: BadRequest) -> bool:
    text = str(error).lower()
    return "not found" in text or "can't be edited" in text or "message_id_invalid" in text


def _not_modified(error: BadRequest) -> bool:
    return "not modified" in str(error).lower()


class Deliverer:
    def __init__(
        self,
        bot: ExtBot[Any],
        core: Core,
        sender: Mailbox,
        bot_username: str,
        webapp_url: str | None = None,
        webapp_name: str | None = None,
        zone: tzinfo = UTC,
        *,
        paid_broadcast: bool = False,
    ) -> None:
        self.bot = bot
        # New messages ask Telegram to let them past its free overall limit, paid in Stars
        # (TRUCO_PAID_BROADCAST, docs/operations.md); edits, answers and deletes cannot be.
        self.paid_broadcast = paid_broadcast
        self.zone = zone  # the time zone of the times the bot shows
        self.webapp_url = webapp_url  # the web table, opened as a Mini App from a hand
        self.webapp_name = webapp_name  # its short name: a direct link from the group board
        self.core = core
        self.tables = core.tables
        self.people = core.people
        self.sender = sender
        self.league = core.history
        self.bot_username = bot_username
        # Who is in which group, as Telegram last said (a note goes only to a member)
        self.members = Members(bot, core.tables.clock)
        # What each message of ours shows (to skip an edit that changes nothing); the oldest
        # are forgotten past SENT_REMEMBERED (that only costs one edit, never a wrong one).
        self._sent: OrderedDict[tuple[int, int], int] = OrderedDict()
        self._blocked_told: set[tuple[int, int, int]] = set()
        # The last hand whose end each chat saw of each table: (table, chat) -> hand number.
        self._seen: OrderedDict[tuple[int, int], int] = OrderedDict()
        # Hand messages deleted to be sent anew: a send that failed and is tried again does
        # not delete them twice.
        self._deleted: OrderedDict[tuple[int, int], None] = OrderedDict()
        # The newest message id the bot learned in each group (a command, a tap, its own
        # sends): message ids in a chat are sequential, so it tells how far up a board is.
        self._latest: OrderedDict[int, int] = OrderedDict()
        # The hand each table's board last showed: a board that shows a new hand may move.
        self._board_hand: OrderedDict[int, int] = OrderedDict()
        # What each person's ephemeral hand shows: (group, person, ephemeral id) -> digest
        self._ephemeral_sent: OrderedDict[tuple[int, int, int], int] = OrderedDict()

    def _with_web_table(
        self, t: Translator, table: Table, keys: Keys | None, own: bool
    ) -> Keys | None:
        """The web table's button, when the operator set it up: a Mini App over a player's
        own chat (`web_app` buttons work in private chats), a direct link from the group."""
        if own and self.webapp_url:
            button = Button(t("button.webapp"), web_app=f"{self.webapp_url}?table={table.id}")
        elif not own and self.webapp_name:
            link = links.url(TableLink(table.id), self.bot_username, self.webapp_name)
            button = Button(t("button.webapp_watch"), url=link)
        else:
            return keys
        return Keys((*(keys or ()), (button,)))

    def saw(self, chat_id: int, message_id: int) -> None:
        """A message of the chat the bot learned of (an update, or one it sent)."""
        if chat_id >= 0 or message_id <= self._latest.get(chat_id, 0):
            return
        self._latest[chat_id] = message_id
        self._latest.move_to_end(chat_id)
        if len(self._latest) > SENT_REMEMBERED:
            self._latest.popitem(last=False)

    def buried(self, chat_id: int, message_id: int) -> bool:
        """Is this message of the group a screenful or more up the chat?"""
        return self._latest.get(chat_id, 0) - message_id >= BURIED

    def join_link(self, tg: TelegramTable) -> str:
        return links.url(JoinLink(tg.join or ""), self.bot_username)

    async def records(self, table: Table) -> TelegramTable:
        return TelegramTable.of(await self.tables.records.of(FRONT, table.id))

    async def who(self, table: Table) -> Seating:
        return seating_at(translator(table.language), table, await self.people.at(table))

    # -- delivering: one row, one or two Bot API calls -------------------------------------------
    async def deliver(self, row: Pending) -> Delivery:
        kind = row.kind
        if kind is None:
            log.warning("outbox row %s of a kind this code no longer makes: dropped", row.id)
            return Delivery(called=False)
        payload = payloads.read(kind, row.payload)
        if payload is None:
            log.warning("outbox row %s whose payload fits no %s: dropped", row.id, kind)
            return Delivery(called=False)
        if isinstance(payload, TextPayload):
            return await self._deliver_text(row, payload)
        if isinstance(payload, EditPayload):
            return await self._deliver_edit(row, payload)
        if isinstance(payload, TourneyPayload):
            return await self._deliver_tourney(payload.tourney)
        if isinstance(payload, DailyPayload):
            return await self._deliver_daily(payload.hand)
        if isinstance(payload, TagPayload):
            return await self._deliver_tag(row.chat_id, payload.user, payload.tag)
        assert isinstance(payload, TablePayload | ClosePayload | HandPayload)
        table = await self.tables.to_show(payload.table, row.stamp)
        if table is None:
            return Delivery(called=False)
        if kind is RowKind.BOARD:
            if table.state is None:
                return Delivery(called=False)
            if table.status is not TableStatus.PLAYING and not table.state.is_over:
                return Delivery(called=False)  # cancelled or conceded: its close row tells
            return await self._show_board(table)
        if kind is RowKind.LOBBY:
            if table.status is not TableStatus.LOBBY:
                return Delivery(called=False)
            return await self._show_in_group(table, *await self.lobby_view(table))
        if isinstance(payload, HandPayload):
            tapped = payload.query  # a tap of theirs that lets the bot show them the hand
            fresh = self.sender.now() - row.created_at < EPHEMERAL_WINDOW
            query = tapped if tapped and fresh else None
            if payload.menu is not None:
                return await self._deliver_sign_menu(table, payload.user, payload.menu, query)
            return await self._deliver_hand(table, payload.user, row.loud, query)
        if isinstance(payload, ClosePayload):
            return await self._deliver_close(table, payload.key)
        return await self._deliver_match_end(table)

    async def send(
        self,
        chat_id: int,
        text: str,
        markup: Markup | None = None,
        thread_id: int = 0,
        reply_to: int | None = None,
        effect: str | None = None,
    ) -> int:
        """Send a message; its id. `effect`: a message effect (private chats only)."""
        fields = _message_fields(chat_id, text, markup)
        if effect and chat_id > 0:
            fields["message_effect_id"] = effect
        if thread_id:
            fields["message_thread_id"] = thread_id
        if reply_to:
            fields["reply_parameters"] = {
                "message_id": reply_to,
                "allow_sending_without_reply": True,
            }
        if self.paid_broadcast:
            fields["allow_paid_broadcast"] = True
        sent = await self._call("sendMessage", fields)
        message_id = int(sent["message_id"])
        self.saw(chat_id, message_id)
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
        cost more than the call (docs/performance.md). The mailbox paces its calls itself."""
        return await self.bot.request.post(f"{self.bot.base_url}/{method}", JsonBody(fields))

    def _remember(self, key: tuple[int, int], digest: int) -> None:
        self._sent[key] = digest
        self._sent.move_to_end(key)
        if len(self._sent) > SENT_REMEMBERED:
            self._sent.popitem(last=False)

    def _markup(self, data: dict[str, Any] | None) -> InlineKeyboardMarkup | None:
        return InlineKeyboardMarkup.de_json(data, self.bot) if data else None

    async def _deliver_edit(self, row: Pending, payload: EditPayload) -> Delivery:
        markup = self._markup(payload.markup)
        try:
            if payload.ephemeral is not None:  # a person's ephemeral message in a group (its
                assert payload.group is not None  # lane: theirs)
                called = await self.edit_ephemeral(
                    payload.group, row.chat_id, payload.ephemeral, payload.text, markup
                )
            else:
                assert payload.message is not None
                called = await self.edit(row.chat_id, payload.message, payload.text, markup)
        except BadRequest as error:
            if not _gone(error):
                raise
            return Delivery()
        return Delivery(called=called)

    async def _deliver_text(self, row: Pending, payload: TextPayload) -> Delivery:
        if payload.ring and self.sender.now() - row.created_at > RING_FRESH:
            return Delivery(called=False)  # a ring-out the group's lane was too slow for
        group = payload.member_of
        if group is not None and await self.members.of(group, row.chat_id) is False:
            # An /avisame note for someone no longer in the group: not sent, and their wish
            # for notes goes with them (with the row's completion). A group that will not say
            # (None) still writes to whoever asked: they were a member when they did.
            log.info("note to %s dropped: no longer in %s", row.chat_id, group)
            return Delivery(
                called=False, commit=self._commit(unwatch_record(group, row.chat_id))
            )
        markup = self._markup(payload.markup)
        if payload.asked is not None:  # the answer to an ephemeral command: to its asker alone
            assert payload.group is not None
            try:
                await self.send_ephemeral(
                    payload.group, row.chat_id, payload.text, markup, payload.thread,
                    asked=payload.asked,
                )  # fmt: skip
            except BadRequest as error:  # (its window passed: nothing to do but say why)
                log.info("ephemeral answer to %s not shown: %s", row.chat_id, error)
            return Delivery()
        try:
            await self.send(
                row.chat_id,
                payload.text,
                markup,
                payload.thread,
                payload.reply_to,
                effect=payload.effect,
            )
        except Forbidden:
            if row.chat_id > 0:  # a player who blocked the bot: nothing to do about a text
                await self.people.set_can_dm(row.chat_id, False)
                return Delivery()
            raise
        return Delivery()

    async def _show_in_group(self, table: Table, text: str, markup: Markup | None) -> Delivery:
        """Edit the table's group message; send it anew (and remember it) if it is gone."""
        board = (await self.records(table)).board
        if board:
            try:
                return Delivery(called=await self.edit(table.chat_id, board, text, markup))
            except BadRequest as error:
                if not _gone(error):
                    raise
        message_id = await self.send(table.chat_id, text, markup, table.thread_id)
        return Delivery(commit=self._commit(board_record(table.id, message_id)))

    async def _show_board(self, table: Table) -> Delivery:
        """The board, edited in place; at a new hand, sent anew if chat has buried it (the
        old one trimmed to a one-line stub by a row of its own: the group's pace counts it)."""
        assert table.state is not None
        hand = table.state.hand_number
        before = self._board_hand.get(table.id)
        board = (await self.records(table)).board
        moves = (
            board is not None
            and before is not None
            and hand != before
            and not table.state.is_over
            and self.buried(table.chat_id, board)
        )
        if not moves or board is None:
            shown = await self._show_in_group(table, *await self.board_view(table))
            self._board_showed(table.id, hand)
            return shown
        text, markup = await self.board_view(table)
        message_id = await self.send(table.chat_id, text, markup, table.thread_id)
        self._board_showed(table.id, hand)  # (after the send: one that failed moves it again)
        stub = edit_row(table.chat_id, board, translator(table.language)("board.stub"))

        async def commit(writer: Writer) -> None:
            async def both(conn: Conn) -> None:
                await writer(conn)
                await self.sender.write(conn, [stub])

            await self.tables.records.put([board_record(table.id, message_id)], also=both)
            self.sender.wake([stub])

        return Delivery(commit=commit)

    def _board_showed(self, table_id: int, hand: int) -> None:
        self._board_hand[table_id] = hand
        self._board_hand.move_to_end(table_id)
        if len(self._board_hand) > SENT_REMEMBERED:
            self._board_hand.popitem(last=False)

    async def _deliver_tourney(self, tourney_id: int) -> Delivery:
        """A tournament's group message as it stands now: edited, or sent (again) if gone."""
        tour = await self.core.tournaments.get(tourney_id)
        if tour is None:
            return Delivery(called=False)
        key = tourney_key(tour.id)
        values = await self.tables.records.of(FRONT, key)
        text, markup = await self.tourney_view(tour, values)
        shown = TelegramTable.of(values).board
        if shown:
            try:
                return Delivery(called=await self.edit(tour.chat_id, shown, text, markup))
            except BadRequest as error:
                if not _gone(error):
                    raise
        message_id = await self.send(tour.chat_id, text, markup, tour.thread_id)
        return Delivery(commit=self._commit(board_record(key, message_id)))

    async def _deliver_daily(self, hand_id: int) -> Delivery:
        """A hand of the day's group message as it stands now (how many answered; closed, its
        buttons gone): edited, or sent if it was never sent (or is gone, while open)."""
        hand = await self.core.daily.get(hand_id)
        if hand is None:
            return Delivery(called=False)
        t = translator(hand.language)
        zone = zone_named(str(hand.data.get("zone", "")), self.zone)
        text, markup = post_text(t, hand, zone), post_keys(t, hand)
        shown = (await self.tables.records.of(DAILY_FRONT, hand.id)).get(BOARD)
        if shown:
            try:
                return Delivery(called=await self.edit(hand.chat_id, int(shown), text, markup))
            except BadRequest as error:
                if not _gone(error):
                    raise
                if hand.closed:
                    return Delivery()  # (someone deleted it: the close's message tells)
        message_id = await self.send(hand.chat_id, text, markup)
        return Delivery(commit=self._commit(Record(DAILY_FRONT, hand.id, BOARD, str(message_id))))

    async def _deliver_tag(self, chat_id: int, user_id: int, tag: str) -> Delivery:
        """A member's tag (setChatMemberTag, Bot API 9.5), where the bot is an administrator with
        the right to manage tags; else nothing (and nothing wrong). Telegram tags regular
        members only: an administrator's refusal is expected too."""
        if not await self.members.can_tag(chat_id):
            return Delivery(called=False)
        try:
            await self._call("setChatMemberTag", {"chat_id": chat_id, "user_id": user_id,
                                                  "tag": tag[:16]})  # fmt: skip
        except BadRequest as error:
            log.info("tag of %s in %s not set: %s", user_id, chat_id, error)
        return Delivery()

    async def tourney_view(
        self, tour: Tournament, values: dict[str, str] | None = None
    ) -> tuple[str, Keys | None]:
        """A tournament's group message: its sign-ups, or the page of its bracket someone
        turned to (`values`, its records) while play is where it was, else the page of what
        is being played now."""
        t = translator(tour.language)
        if tour.status is TourneyStatus.SIGNUP:
            names = await self.people.names(people_of(tour))
            return signup_text(t, tour, names, self.zone), signup_keys(t, tour)
        pages, now = await self.tourney_pages(tour)
        turned = turned_page(values or {}, now)
        page = turned if turned is not None and turned < len(pages) else now
        keys = bracket_keys(t, tour, page, len(pages))
        if self.webapp_name:  # the bracket drawn, with its matches to watch, on the web table
            link = links.url(TourneyLink(tour.id), self.bot_username, self.webapp_name)
            keys = Keys((*(keys or ()), (Button(t("tourney.button.web"), url=link),)))
        return pages[page], keys

    async def tourney_pages(self, tour: Tournament) -> tuple[list[str], int]:
        """A started tournament's bracket in pages, and the page of what is played now."""
        t = translator(tour.language)
        names = await self.people.names(people_of(tour))
        live: dict[tuple[int, int], tuple[int, int] | None] = {}
        if tour.status is TourneyStatus.RUNNING:
            for place, table_id in (await self.core.tournaments.tables_of(tour.id)).items():
                table = await self.tables.get(table_id)
                if table is not None and table.is_open:
                    live[place.tie] = live_score(tour, place.round, place.slot, table)
        return bracket_pages(t, tour, names, live, self.tables.clock(), self.zone)

    def _commit(self, record: Record) -> Committer:
        """A message's id, written with the row's completion (one transaction)."""

        async def commit(writer: Writer) -> None:
            await self.tables.records.put([record], also=writer)

        return commit

    async def lobby_view(self, table: Table) -> tuple[str, Keys]:
        t = translator(table.language)
        names = await self.people.at(table)
        link = self.join_link(await self.records(table))
        place = await self.tables.place_in_line(table) if table.in_line else 0
        return lobby_text(t, table, names, place), lobby_keys(t, table, link)

    async def board_view(self, table: Table) -> tuple[str, Keys | None]:
        assert table.state is not None
        t = translator(table.language)
        names = await self.people.at(table)
        gap, ended = self._unseen(table, table.chat_id)
        scene = scene_of(t, table, names, None, ended, gap)
        assert scene.obs is not None
        markup = board_markup(t, table.id, scene.obs)
        if markup is not None:
            markup = self._with_web_table(t, table, markup, own=False)
        text = board_text(t, scene)
        if scene.first_hand and table.status is TableStatus.PLAYING:
            # (whoever plays here and was never shown a message there finds their cards behind
            # 🃏: the bot cannot bring them)
            shown = (await self.records(table)).ephemeral
            here = [u for u in table.players if u not in shown and await self.in_group(table, u)]
            if here and not await self.members.bot_is_admin(table.chat_id):
                text += "\n" + t("board.cards_here")
        return text, markup

    def _unseen(self, table: Table, chat_id: int) -> tuple[Gap | None, tuple[HandEnding, ...]]:
        """The ends of hands to show in `chat_id`'s message of this table (`hands_to_show`),
        from the last hand whose end that chat was shown."""
        state = table.state
        assert state is not None
        key = (table.id, chat_id)
        gap, shown = hands_to_show(state, self._seen.get(key))
        self._seen[key] = last_end(state)  # (0: it saw the table, no end yet)
        self._seen.move_to_end(key)
        if len(self._seen) > SENT_REMEMBERED:
            self._seen.popitem(last=False)
        return gap, shown

    async def in_group(self, table: Table, user_id: int) -> bool:
        """Whether the person's hand at this table lives in the group (an ephemeral message
        only they see) rather than in their private chat: a group's own table (a practice's
        place is the private chat; a tournament's matches are played there), as they chose
        (`People.plays_in`)."""
        if table.practice or table.tournament is not None:
            return False
        return await self.people.plays_in(user_id) is HandPlace.GROUP

    async def _deliver_hand(
        self, table: Table, user_id: int, resend: bool, query: str | None = None
    ) -> Delivery:
        seat = table.seat_of(user_id)
        lobby = seat is not None and table.status is TableStatus.LOBBY and query is not None
        if lobby and await self.in_group(table, user_id):
            # Their tap in the lobby lets the bot show them a message in the group: the place
            # their hand will take at the deal (an edit then, which needs no tap of theirs)
            text = translator(table.language)("hand.waiting_here")
            return await self._show_in_group_to(table, user_id, text, None, False, query)
        if table.state is None or seat is None:
            return Delivery(called=False)
        playing = table.status is TableStatus.PLAYING
        resend = resend and playing
        t = translator(table.language)
        names = await self.people.at(table)
        here = await self.in_group(table, user_id)
        gap, ended = self._unseen(table, user_id) if not here else (None, ())
        scene = scene_of(t, table, names, seat, ended, gap)
        obs = scene.obs
        assert obs is not None
        text = group_hand_text(t, scene) if here else hand_text(t, scene)
        if here and table.outcome is not None and not playing:  # the end, said to them
            side = table.geometry.side(seat)
            text = private_ending(t, scene.who, table.outcome, side, seat, table.state)
        markup = None  # a finished or cancelled match leaves nothing to tap here
        if playing:
            # señas for partners, none in a pica-pica hand (R40)
            signs = bool(table.geometry.partners(seat)) and obs.duel is None
            helper = helper_of(table, obs)
            markup = hand_markup(
                t, table.id, obs, signs=signs, hint=table.hints,
                helper=plain(scene.who.seat(helper))
                if helper is not None and table.handed != obs.step else None,
            )  # fmt: skip
            markup = self._with_web_table(t, table, markup, own=not here)
        if here:
            return await self._show_in_group_to(table, user_id, text, markup, resend, query)
        old = (await self.records(table)).hands.get(user_id)
        try:
            if old and not resend:
                try:
                    return Delivery(called=await self.edit(user_id, old, text, markup))
                except BadRequest as error:
                    if not _gone(error):
                        raise
            if old and resend and (user_id, old) not in self._deleted:
                # Too old or already gone: the new message is what counts.
                with contextlib.suppress(TelegramError):
                    await self.delete(user_id, old)
                self._deleted[(user_id, old)] = None
                if len(self._deleted) > SENT_REMEMBERED:
                    self._deleted.popitem(last=False)
            message_id = await self.send(user_id, text, markup)
        except Forbidden:
            return await self._blocked(table, user_id)

        return Delivery(commit=self._commit(hand_record(table.id, user_id, message_id)))

    async def _deliver_sign_menu(
        self, table: Table, user_id: int, step: int, query: str | None = None
    ) -> Delivery:
        """The señas in place of the hand message's buttons, the hand's text kept; nothing
        when the table moved on from `step` (the hand's own row shows it as it is now) or there
        is no hand message to put them under."""
        seat = table.seat_of(user_id)
        playing = table.status is TableStatus.PLAYING
        if table.state is None or seat is None or not playing or table.state.step != step:
            return Delivery(called=False)
        if await self.in_group(table, user_id):
            t = translator(table.language)
            scene = scene_of(t, table, await self.people.at(table), seat, ())
            keys = sign_menu_keys(t, table.id, step)
            return await self._show_in_group_to(
                table, user_id, group_hand_text(t, scene), keys, False, query
            )
        old = (await self.records(table)).hands.get(user_id)
        if old is None:
            return Delivery(called=False)
        t = translator(table.language)
        names = await self.people.at(table)
        gap, ended = self._unseen(table, user_id)
        text = hand_text(t, scene_of(t, table, names, seat, ended, gap))
        try:
            keys = sign_menu_keys(t, table.id, step)
            return Delivery(called=await self.edit(user_id, old, text, keys))
        except BadRequest as error:
            if not _gone(error):
                raise
            return Delivery()
        except Forbidden:
            return await self._blocked(table, user_id)

    async def _show_in_group_to(
        self,
        table: Table,
        user_id: int,
        text: str,
        markup: Markup | None,
        anew: bool,
        query: str | None,
    ) -> Delivery:
        """A person's hand in the group, an ephemeral message only they see: edited in place;
        sent (again) where the bot may send one: as the answer to a tap of theirs (`query`,
        within Telegram's window), or at any time when the bot is an administrator of the group
        (then also anew, under the chat, when it is their turn: `anew`). Nothing is owed when
        it may not: the board's 🃏 brings the hand back (it is sent anew at that tap, since an
        ephemeral message may never have arrived)."""
        old = (await self.records(table)).ephemeral.get(user_id)
        admin = await self.members.bot_is_admin(table.chat_id)
        if old and query is None and not (anew and admin):
            try:
                called = await self.edit_ephemeral(table.chat_id, user_id, old, text, markup)
                return Delivery(called=called)
            except BadRequest as error:
                if not _gone(error):
                    raise
                if not admin:  # gone, and nothing lets the bot send it again: 🃏 will
                    return Delivery(commit=self._commit(ephemeral_record(table.id, user_id, None)))
        elif query is None and not admin:
            return Delivery(called=False)  # never shown yet: their tap on 🃏 will show it
        if old:  # (it may have arrived after all: one hand on the screen, not two)
            with contextlib.suppress(TelegramError):
                await self._call("deleteEphemeralMessage", {
                    "chat_id": table.chat_id, "receiver_user_id": user_id,
                    "ephemeral_message_id": old,
                })  # fmt: skip
        try:
            shown = await self.send_ephemeral(
                table.chat_id, user_id, text, markup, table.thread_id, query
            )
        except BadRequest as error:
            # Telegram would not show it (its window passed, they left the group...): the
            # documentation promises no delivery; 🃏 asks again.
            log.info("hand of %s at table %s not shown in the group: %s", user_id, table.id, error)
            return Delivery(commit=self._commit(ephemeral_record(table.id, user_id, None)))
        return Delivery(commit=self._commit(ephemeral_record(table.id, user_id, shown)))

    async def send_ephemeral(
        self,
        chat_id: int,
        user_id: int,
        text: str,
        markup: Markup | None = None,
        thread_id: int = 0,
        query: str | None = None,
        asked: int | None = None,
    ) -> int:
        """Show `user_id` alone a message in group `chat_id` (its ephemeral message id): what
        lets the bot (when it is no administrator) is their tap (`query`, its id) or their
        ephemeral message (`asked`, its ephemeral id) of a few seconds ago."""
        fields = _message_fields(chat_id, text, markup)
        parameters: dict[str, Any] = {"receiver_user_id": user_id}
        if query is not None:
            parameters["callback_query_id"] = query
        fields["ephemeral_message_parameters"] = parameters
        if asked is not None:
            fields["reply_parameters"] = {"ephemeral_message_id": asked}
        if thread_id:
            fields["message_thread_id"] = thread_id
        sent = await self._call("sendMessage", fields)
        shown = int(sent["ephemeral_message_id"])
        self._ephemeral_sent[(chat_id, user_id, shown)] = hash((text, markup))
        return shown

    async def edit_ephemeral(
        self, chat_id: int, user_id: int, ephemeral_id: int, text: str, markup: Markup | None
    ) -> bool:
        """Edit a person's ephemeral message unless unchanged; True if Telegram was called."""
        key = (chat_id, user_id, ephemeral_id)
        digest = hash((text, markup))
        if self._ephemeral_sent.get(key) == digest:
            return False
        fields = {
            **_message_fields(chat_id, text, markup),
            "receiver_user_id": user_id,
            "ephemeral_message_id": ephemeral_id,
        }
        try:
            await self._call("editEphemeralMessageText", fields)
        except BadRequest as error:
            if not _not_modified(error):
                raise
        self._ephemeral_sent[key] = digest
        self._ephemeral_sent.move_to_end(key)
        if len(self._ephemeral_sent) > SENT_REMEMBERED:
            self._ephemeral_sent.popitem(last=False)
        return True

    async def _blocked(self, table: Table, user_id: int) -> Delivery:
        """The player blocked the bot (or never started it): tell the group, once a hand."""
        await self.people.set_can_dm(user_id, False)
        hand = table.state.hand_number if table.state else 0
        key = (table.id, user_id, hand)
        if key in self._blocked_told or not table.is_open:
            return Delivery()
        if len(self._blocked_told) > SENT_REMEMBERED:
            self._blocked_told.clear()
        self._blocked_told.add(key)
        names = await self.people.at(table)
        t = translator(table.language)
        name = short_name(names.get(user_id, "?"))
        rows = []
        if await self.in_group(table, user_id):
            # (no private chat, and no choice of one: their hand lives in the group from now)
            text, markup = t("dm.blocked_here", name=name), None
            rows.append(hand_row(table, user_id, urgent=True))  # (shown at once by an admin)
        else:
            text = t("dm.blocked", name=name)
            link = links.url(HandLink(table.id), self.bot_username)
            markup = Keys([(Button(t("button.open_private"), url=link),)])
        notice = text_row(
            table.chat_id, text, table.thread_id, markup, key=f"blocked:{table.id}:{user_id}"
        )

        async def commit(writer: Writer) -> None:
            await self.sender.send([notice, *rows], also=writer)

        return Delivery(commit=commit)

    async def _deliver_close(self, table: Table, key: str) -> Delivery:
        board = (await self.records(table)).board
        if not board:
            return Delivery(called=False)
        text = translator(table.language)(key)
        try:
            return Delivery(called=await self.edit(table.chat_id, board, text, None))
        except BadRequest as error:
            if not _gone(error):
                raise
            return Delivery()

    async def _deliver_match_end(self, table: Table) -> Delivery:
        outcome = table.outcome
        if outcome is None:
            return Delivery(called=False)
        t = translator(table.language)
        who = await self.who(table)
        changes = await self.league.rating_changes(table.id)
        rows = await self.league.standings(table.chat_id) if changes else []
        text = group_ending(t, who, outcome, table, league_line(t, changes, rows))
        await self.send(table.chat_id, text, rematch_keys(t, table.id), table.thread_id)
        return Delivery()


def live_score(tour: Tournament, round_: int, slot: int, table: Table) -> tuple[int, int] | None:
    """A tournament match's score as it stands, its fixture's entry a first (None: not yet
    dealt, or its sides not told by who sits where)."""
    fixture = tour.fixture(round_, slot)
    state = table.state
    if fixture is None or fixture.a is None or state is None:
        return None
    sides = {table.geometry.side(s) for u in tour.entries[fixture.a]
             if (s := table.seat_of(u)) is not None}  # fmt: skip
    if len(sides) != 1:
        return None
    mine = sides.pop()
    return state.scores[mine], state.scores[1 - mine]


def zone_named(name: str, fallback: tzinfo) -> tzinfo:
    try:
        return ZoneInfo(name) if name else fallback
    except (ZoneInfoNotFoundError, ValueError):
        return fallback


def _message_fields(chat_id: int, text: str, markup: Markup | None) -> dict[str, Any]:
    fields: dict[str, Any] = {"chat_id": chat_id, "text": text, **TEXT_OPTIONS}
    if markup is not None:
        fields["reply_markup"] = markup.to_dict()
    return fields
