"""The Telegram adapter's own records of a table (kept by the core beside it, `Records`): the
group message that shows it (the lobby, then the board), each player's private hand message,
and the token of its join links (unguessable, unlike the table's number)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from bot.model.outbox import Record

FRONT = "telegram"
BOARD = "board"
JOIN = "join"
# The page a tournament's group message was turned to, with the page of what was being played
# then ("2:0"): kept while that is still where play is
PAGE = "page"
HAND = "hand:"  # + the player's user id
EPHEMERAL = "eph:"  # + the player's user id: their hand in the group (an ephemeral message)
# /avisame: who asked for a note when a table opens in a group (records of the group's chat id:
# each person's id -> the group's title), and when each person was last sent one (records of
# their id)
NOTIFY, NOTIFIED = "avisame", "avisame_at"
# A person whose private chat refused the bot's check (they never started it, or blocked it),
# under their id -> when: their hand lives in the group, known without trying again (a /start
# there, which marks them reachable, outweighs it)
REFUSED = "dm_refused"


DAILY_FRONT = "telegram_daily"  # a hand of the day's message, under the hand's number


def tourney_key(tourney_id: int) -> int:
    """A tournament's records are kept under its number negated (a table's id is positive)."""
    return -tourney_id


def board_record(table_id: int, message_id: int | None) -> Record:
    return Record(FRONT, table_id, BOARD, None if message_id is None else str(message_id))


def hand_record(table_id: int, user_id: int, message_id: int | None) -> Record:
    value = None if message_id is None else str(message_id)
    return Record(FRONT, table_id, f"{HAND}{user_id}", value)


def ephemeral_record(table_id: int, user_id: int, ephemeral_id: int | None) -> Record:
    """The ephemeral message that shows `user_id` their hand in the group (None: none)."""
    value = None if ephemeral_id is None else str(ephemeral_id)
    return Record(FRONT, table_id, f"{EPHEMERAL}{user_id}", value)


def unwatch_record(chat_id: int, user_id: int) -> Record:
    """`user_id` no longer asks for /avisame's notes of group `chat_id`."""
    return Record(NOTIFY, chat_id, str(user_id), None)


def page_record(tourney_id: int, page: int, now: int) -> Record:
    return Record(FRONT, tourney_key(tourney_id), PAGE, f"{page}:{now}")


def turned_page(values: dict[str, str], now: int) -> int | None:
    """The page a tournament's message was turned to, while play is still on page `now`."""
    turned, _, then = values.get(PAGE, "").partition(":")
    return int(turned) if turned.isdigit() and then == str(now) else None


def new_join_record(table_id: int) -> Record:
    return Record(FRONT, table_id, JOIN, secrets.token_urlsafe(12))


@dataclass(frozen=True)
class TelegramTable:
    """What Telegram shows of a table, by message id, and its join token."""

    board: int | None
    hands: dict[int, int]
    join: str | None
    ephemeral: dict[int, int] = field(default_factory=dict)  # a person's hand in the group

    @staticmethod
    def of(values: dict[str, str]) -> TelegramTable:
        hands = {
            int(name[len(HAND) :]): int(value)
            for name, value in values.items()
            if name.startswith(HAND)
        }
        ephemeral = {
            int(name[len(EPHEMERAL) :]): int(value)
            for name, value in values.items()
            if name.startswith(EPHEMERAL)
        }
        board = values.get(BOARD)
        return TelegramTable(int(board) if board else None, hands, values.get(JOIN), ephemeral)
