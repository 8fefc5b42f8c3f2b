"""The rows the core writes for its front ends, as values (the outbox: `bot.storage.outbox`).

A row is one call a front end will make in one chat (its *lane*), decided in the transaction
that changed the game, so nothing decided is ever lost or said twice. Rows with a `key`
coalesce while they wait (the board of a table: only its newest version goes out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class RowKind(StrEnum):
    """What a row asks a front end to do (stored as these strings)."""

    TEXT = "text"  # a new message, its text rendered when decided
    EDIT = "edit"  # a new text for a message of ours (a /config panel, a page of a reading)
    LOBBY = "lobby"  # the lobby message, rendered when it goes out
    BOARD = "board"  # the group's board, rendered when it goes out
    HAND = "hand"  # a player's private hand message, rendered when it goes out
    CLOSE = "close"  # the lobby or board of a table that ended without a winner
    MATCH_END = "match_end"  # the end of a match: final score, ratings, the seed
    TOURNEY = "tourney"  # a tournament's message (sign-ups, then its bracket), rendered when
    # it goes out
    TAG = "tag"  # a member's tag in the group (a tournament's champion), where the bot may
    DAILY = "daily"  # a group's hand of the day (its question, then closed), rendered when it
    # goes out


def row_kind(text: str) -> RowKind | None:
    """A stored kind; None for one this code no longer makes."""
    try:
        return RowKind(text)
    except ValueError:
        return None


POST = 0  # new messages and announcements: in the order they were decided
URGENT = 1  # the tapper's own hand, the hand of whoever must act now, a hand that notifies
REFRESH = 2  # edits that only need their latest version


@dataclass(frozen=True)
class Outgoing:
    """Something to send, edit or delete in `chat_id`, decided by a change of state."""

    chat_id: int
    kind: RowKind
    payload: dict[str, Any] = field(default_factory=dict)
    key: str | None = None  # same key, same chat, still waiting: one row
    priority: int = POST
    loud: bool = False


@dataclass(frozen=True)
class Pending:
    """A row waiting in a lane, as its sender reads it."""

    id: int
    chat_id: int
    kind: RowKind | None  # None: a kind this code no longer makes (dropped, logged)
    key: str | None
    payload: dict[str, Any]
    version: int
    priority: int
    loud: bool  # a notifying delivery was asked for since the last delivery
    created_at: float = 0.0  # when it was last written (wall clock)
    stamp: int = 0  # the version of its table it was last written for (0: none)


@dataclass(frozen=True)
class Record:
    """A front end's note about a table (`front`: whose; Telegram's message ids, say), written
    in the commit of the change that made it or in the front end's own transaction. A value of
    None deletes it."""

    front: str
    table_id: int
    name: str
    value: str | None


Planned = Outgoing | Record  # what a front end plans in a change's commit


@dataclass(frozen=True)
class Load:
    """A sender's load as its heartbeat writes it (`bot.service.mailbox`): `demand`, the calls
    it made in the last window and those waiting for the bot's budget; `queued`, those waiting
    by rank (the turns to show first)."""

    demand: float = 0.0
    queued: tuple[float, ...] = ()

    def at(self, rank: int) -> float:
        return self.queued[rank] if rank < len(self.queued) else 0.0
