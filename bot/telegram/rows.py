"""Outbox rows the Telegram adapter writes: one constructor per kind of row."""

from __future__ import annotations

import hashlib
from typing import Any, Protocol

from bot.model.outbox import POST, REFRESH, URGENT, Outgoing, RowKind
from bot.model.table import Table


class Markup(Protocol):
    """A keyboard: the views' `Keys`, or python-telegram-bot's InlineKeyboardMarkup."""

    def to_dict(self) -> dict[str, Any]: ...


def board_row(table: Table) -> Outgoing:
    return Outgoing(table.chat_id, RowKind.BOARD, {"t": table.id}, f"board:{table.id}", REFRESH)


def tourney_row(chat_id: int, tourney_id: int) -> Outgoing:
    """A tournament's group message (its sign-ups, then its bracket): edited in place."""
    return Outgoing(chat_id, RowKind.TOURNEY, {"n": tourney_id}, f"tourney:{tourney_id}", REFRESH)


def daily_row(chat_id: int, hand_id: int) -> Outgoing:
    """A group's hand of the day: sent, then edited in place (how many answered, the close)."""
    return Outgoing(chat_id, RowKind.DAILY, {"d": hand_id}, f"daily:{hand_id}", REFRESH)


def lobby_row(table: Table) -> Outgoing:
    return Outgoing(table.chat_id, RowKind.LOBBY, {"t": table.id}, f"lobby:{table.id}", REFRESH)


def hand_row(table: Table, user_id: int, loud: bool = False, urgent: bool = False) -> Outgoing:
    """The user's hand message: edited, or (loud) sent anew so that Telegram notifies them."""
    priority = URGENT if loud or urgent else REFRESH
    return Outgoing(
        user_id, RowKind.HAND, {"t": table.id, "u": user_id}, f"hand:{table.id}", priority, loud
    )


def shown_row(table: Table, user_id: int, query_id: str) -> Outgoing:
    """The user's hand shown to them anew, as the answer to their tap (`query_id`) on 🃏: in
    the group, where it lives there (a message only they see, which Telegram lets the bot send
    within seconds of their tap), else edited as any hand row."""
    payload = {"t": table.id, "u": user_id, "q": query_id}
    return Outgoing(user_id, RowKind.HAND, payload, f"shown:{table.id}:{query_id}", URGENT)


def sign_menu_row(table: Table, user_id: int, step: int) -> Outgoing:
    """The menu of señas in place of the buttons of the user's hand message, while the table
    is at `step` (a key of its own: the hand's next row, or its "back", puts the hand's own
    buttons back after it)."""
    payload = {"t": table.id, "u": user_id, "menu": step}
    return Outgoing(user_id, RowKind.HAND, payload, f"menu:{table.id}", URGENT)


def close_row(table: Table, key: str) -> Outgoing:
    """The lobby or board of a table that ended without a winner: `key`'s text, no buttons."""
    return Outgoing(table.chat_id, RowKind.CLOSE, {"t": table.id, "key": key}, None, POST)


def match_end_row(table: Table) -> Outgoing:
    payload = {"t": table.id}
    return Outgoing(table.chat_id, RowKind.MATCH_END, payload, None, POST)


def text_row(
    chat_id: int,
    text: str,
    thread_id: int = 0,
    markup: Markup | None = None,
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
    return Outgoing(chat_id, RowKind.TEXT, payload, key, POST)


def note_row(user_id: int, text: str, group: int, key: str) -> Outgoing:
    """A private note about `group` (/avisame): sent only while its person is in the group."""
    return Outgoing(user_id, RowKind.TEXT, {"text": text, "member_of": group}, key, POST)


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
    payload: dict[str, Any] = {"text": text, "in": chat_id, "asked": asked}
    if thread_id:
        payload["thread"] = thread_id
    if markup is not None:
        payload["markup"] = markup.to_dict()
    return Outgoing(user_id, RowKind.TEXT, payload, None, POST)


def tag_row(chat_id: int, user_id: int, tag: str) -> Outgoing:
    """A member's tag in group `chat_id` (Bot API 9.5 setChatMemberTag): set where the bot may
    (an administrator with the right to manage tags), else nothing."""
    payload = {"u": user_id, "tag": tag}
    return Outgoing(chat_id, RowKind.TAG, payload, f"tag:{user_id}", REFRESH)


def edit_row(chat_id: int, message_id: int, text: str, markup: Markup | None = None) -> Outgoing:
    """A new text for a message of ours (a /config panel): only the latest one counts."""
    payload: dict[str, Any] = {"m": message_id, "text": text}
    if markup is not None:
        payload["markup"] = markup.to_dict()
    return Outgoing(chat_id, RowKind.EDIT, payload, f"edit:{message_id}", REFRESH)


def ephemeral_edit_row(
    chat_id: int, user_id: int, ephemeral_id: int, text: str, markup: Markup | None = None
) -> Outgoing:
    """A new text for `user_id`'s ephemeral message `ephemeral_id` in group `chat_id` (a page
    turned in an ephemeral answer): in their own lane, as the answer was; only the latest one
    counts."""
    payload: dict[str, Any] = {"in": chat_id, "e": ephemeral_id, "text": text}
    if markup is not None:
        payload["markup"] = markup.to_dict()
    return Outgoing(user_id, RowKind.EDIT, payload, f"edit:{chat_id}:{ephemeral_id}", REFRESH)
