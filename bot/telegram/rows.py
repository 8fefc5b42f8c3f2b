"""Outbox rows the Telegram adapter writes: one constructor per kind of row."""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

from bot.model.outbox import FIRST, LATER, POST, REFRESH, URGENT, WATCHED, Outgoing, RowKind
from bot.model.table import Table
from bot.telegram.payloads import (
    ClosePayload,
    DailyPayload,
    EditPayload,
    HandPayload,
    TablePayload,
    TagPayload,
    TextPayload,
    TourneyPayload,
    write,
)


class Markup(Protocol):
    """A keyboard: the views' `Keys`, or python-telegram-bot's InlineKeyboardMarkup."""

    def to_dict(self) -> dict[str, Any]: ...


def board_row(table: Table, watched: bool = False) -> Outgoing:
    """The group's board, rendered when it goes; `watched`: only watchers need it now (its
    players see the table in their own hand messages), at most one a window (`WATCHED`)."""
    priority = WATCHED if watched else REFRESH
    return Outgoing(
        table.chat_id, RowKind.BOARD, write(TablePayload(table.id)), f"board:{table.id}", priority
    )


def tourney_row(chat_id: int, tourney_id: int) -> Outgoing:
    """A tournament's group message (its sign-ups, then its bracket): edited in place."""
    payload = write(TourneyPayload(tourney_id))
    return Outgoing(chat_id, RowKind.TOURNEY, payload, f"tourney:{tourney_id}", REFRESH)


def daily_row(chat_id: int, hand_id: int) -> Outgoing:
    """A group's hand of the day: sent, then edited in place (how many answered, the close)."""
    payload = write(DailyPayload(hand_id))
    return Outgoing(chat_id, RowKind.DAILY, payload, f"daily:{hand_id}", REFRESH)


def lobby_row(table: Table) -> Outgoing:
    """The lobby, rendered when it goes. A table waiting in the admission line has nobody to
    seat and nothing to start: its lobby waits as a board does (`WATCHED`: at most one a
    window, its latest state, behind the turns of the tables in play); a lobby that seats
    people ranks with a person's own message (they wait for it to sit)."""
    priority = WATCHED if table.in_line else REFRESH
    payload = write(TablePayload(table.id))
    return Outgoing(table.chat_id, RowKind.LOBBY, payload, f"lobby:{table.id}", priority)


def hand_row(
    table: Table,
    user_id: int,
    loud: bool = False,
    urgent: bool = False,
    first: bool = False,
    later: bool = False,
) -> Outgoing:
    """The user's hand message: edited, or (loud) sent anew so that Telegram notifies them;
    `first`: the table's first deal, before everything else waiting (they just sat down);
    `later`: the tapper's own, which waits for their next turn (a bounded wait: `LATER`)."""
    priority = FIRST if first else URGENT if loud or urgent else LATER if later else REFRESH
    payload = write(HandPayload(table.id, user_id))
    return Outgoing(user_id, RowKind.HAND, payload, f"hand:{table.id}", priority, loud)


def shown_row(table: Table, user_id: int, query_id: str) -> Outgoing:
    """The user's hand shown to them anew, as the answer to their tap (`query_id`) on 🃏: in
    the group, where it lives there (a message only they see, which Telegram lets the bot send
    within seconds of their tap), else edited as any hand row."""
    payload = write(HandPayload(table.id, user_id, query=query_id))
    return Outgoing(user_id, RowKind.HAND, payload, f"shown:{table.id}:{query_id}", URGENT)


def sign_menu_row(table: Table, user_id: int, step: int) -> Outgoing:
    """The menu of señas in place of the buttons of the user's hand message, while the table
    is at `step` (a key of its own: the hand's next row, or its "back", puts the hand's own
    buttons back after it)."""
    payload = write(HandPayload(table.id, user_id, menu=step))
    return Outgoing(user_id, RowKind.HAND, payload, f"menu:{table.id}", URGENT)


def close_row(table: Table, key: str) -> Outgoing:
    """The lobby or board of a table that ended without a winner: `key`'s text, no buttons."""
    return Outgoing(table.chat_id, RowKind.CLOSE, write(ClosePayload(table.id, key)), None, POST)


def match_end_row(table: Table) -> Outgoing:
    return Outgoing(table.chat_id, RowKind.MATCH_END, write(TablePayload(table.id)), None, POST)


def text_row(
    chat_id: int,
    text: str,
    thread_id: int = 0,
    markup: Markup | None = None,
    reply_to: int | None = None,
    key: str | None = None,
    *,
    effect: str | None = None,
    ring: bool = False,
) -> Outgoing:
    """A new message. With a `key`, an identical one still waiting is not queued twice.
    `effect`: a message effect (private chats); `ring`: a ring-out, dropped once stale."""
    found = TextPayload(text, thread_id, _dict(markup), reply_to or None, effect=effect, ring=ring)
    return Outgoing(chat_id, RowKind.TEXT, write(found), key, POST)


def note_row(user_id: int, text: str, group: int, key: str) -> Outgoing:
    """A private note about `group` (/avisame): sent only while its person is in the group."""
    return Outgoing(user_id, RowKind.TEXT, write(TextPayload(text, member_of=group)), key, POST)


def reply_row(
    chat_id: int,
    text: str,
    thread_id: int = 0,
    markup: Markup | None = None,
    reply_to: int | None = None,
) -> Outgoing:
    """An answer to a command: identical answers waiting in the chat's lane become one (a
    group that floods /tabla gets one table, not a hundred)."""
    keyboard = repr(markup.to_dict()) if markup is not None else ""
    digest = hashlib.sha256(f"{text}{keyboard}|{thread_id}".encode()).hexdigest()[:24]
    return text_row(chat_id, text, thread_id, markup, reply_to, key=f"reply:{digest}")


def ephemeral_reply_row(
    chat_id: int,
    user_id: int,
    text: str,
    asked: int,
    markup: Markup | None = None,
    thread_id: int = 0,
) -> Outgoing:
    """The answer to `user_id`'s ephemeral command (`asked`: its ephemeral message id) in group
    `chat_id`, shown to them alone: in their own lane, so the group's waits for none of it."""
    payload = TextPayload(text, thread_id, _dict(markup), group=chat_id, asked=asked)
    return Outgoing(user_id, RowKind.TEXT, write(payload), None, POST)


def tag_row(chat_id: int, user_id: int, tag: str) -> Outgoing:
    """A member's tag in group `chat_id` (Bot API 9.5 setChatMemberTag): set where the bot may
    (an administrator with the right to manage tags), else nothing."""
    payload = write(TagPayload(user_id, tag))
    return Outgoing(chat_id, RowKind.TAG, payload, f"tag:{user_id}", REFRESH)


def edit_row(chat_id: int, message_id: int, text: str, markup: Markup | None = None) -> Outgoing:
    """A new text for a message of ours (a /config panel): only the latest one counts."""
    payload = write(EditPayload(text, message=message_id, markup=_dict(markup)))
    return Outgoing(chat_id, RowKind.EDIT, payload, f"edit:{message_id}", REFRESH)


def ephemeral_edit_row(
    chat_id: int, user_id: int, ephemeral_id: int, text: str, markup: Markup | None = None
) -> Outgoing:
    """A new text for `user_id`'s ephemeral message `ephemeral_id` in group `chat_id` (a page
    turned in an ephemeral answer): in their own lane, as the answer was; only the latest one
    counts."""
    found = EditPayload(text, group=chat_id, ephemeral=ephemeral_id, markup=_dict(markup))
    payload = write(found)
    return Outgoing(user_id, RowKind.EDIT, payload, f"edit:{chat_id}:{ephemeral_id}", REFRESH)


def _dict(markup: Markup | None) -> dict[str, Any] | None:
    return markup.to_dict() if markup is not None else None
