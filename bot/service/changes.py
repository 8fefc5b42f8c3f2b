"""What the core tells its front ends: a typed value per committed change, and the refusals.

Every command of the core ends in one commit, and every commit is one `Change`. A front end
subscribes to `Changes` (the runtime does it, in one place) and hears of each change twice:
- `plan(change)`, inside the commit: the rows it will say about it (the Telegram adapter's
  messages) and its own records of the table (their ids), written in the same transaction, so
  nothing decided is ever lost or said twice;
- `committed(change, rows)`, after the commit: redraw, push, wake a sender, move a bot.
A change carries the table as committed, so a subscriber can draw it for any seat (with
`observe(state, seat)`) or for onlookers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, Protocol

from bot.game import Action
from bot.game.events import Event
from bot.league.tournament import Tournament
from bot.model.daily import Closing, DailyHand, DailyNote
from bot.model.outbox import Outgoing, Planned
from bot.model.outcome import Outcome
from bot.model.refusals import Refusal, Refused
from bot.model.table import Table, TableStatus

__all__ = [
    "Change", "ChangeKind", "Changes", "ChatChange", "Conflict", "DailyChange", "Refusal",
    "Refused", "SignChange", "Subscriber", "TableChange", "TourneyChange", "TourneyNote",
]  # fmt: skip


class Conflict(Refusal):
    """A save lost a race with another process: the table changed since it was read."""


class ChangeKind(StrEnum):
    OPENED = "opened"  # a new table (its lobby)
    LOBBY = "lobby"  # someone joined, left, or an option changed
    STARTED = "started"
    QUEUED = "queued"  # the lobby filled while the bot carries all it can: it waits in line
    ACTION = "action"  # an action was applied (by a player, a bot, or the timer)
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    CONCEDED = "conceded"  # /abandonar, or three timeouts
    CHAT_GONE = "chat_gone"  # the bot left the group: its table is cancelled
    MOVED = "moved"  # the group became a supergroup
    VACATED = "vacated"  # a player left mid-match: the others choose a bot or the end
    BOT_IN = "bot_in"  # a computer player took the empty seat
    REMIND = "remind"  # half the turn's time is gone: the players it waits on are reminded
    SIGN = "sign"  # a player (or a bot) showed their partner a seña
    CHAT = "chat"  # a chat's language or defaults
    HINTED = "hinted"  # a person asked for a hint (💡): the match is marked so
    HANDED = "handed"  # a person handed a decision to their computer partner (`seat`)
    TOURNEY = "tourney"  # a tournament changed (`note` says how; `tournament` as committed)
    DAILY = "daily"  # a group's hand of the day was posted, answered or closed


class TourneyNote(StrEnum):
    """What happened to a tournament (a TOURNEY change's `note`)."""

    OPENED = "opened"  # its sign-ups opened
    SIGNED = "signed"  # someone signed up, or took their name off, or a partner joined
    PAUSED = "paused"  # an arena's player paused or came back
    OPTION = "option"  # an option changed
    STARTED = "started"
    PAIRED = "paired"  # new ties paired (a format on time)
    RESULT = "result"  # ties' results counted (`results`)
    CHAMPION = "champion"  # the last result decided it
    CANCELLED = "cancelled"
    CALLED_OFF = "called_off"  # one set for later closed its sign-ups with too few
    REPLACED = "replaced"  # a player's place taken
    REMINDER = "reminder"  # one set for later starts in ten minutes
    BROKEN = "broken"  # its step raised: it waits for its opener or an admin
    CLOCK = "clock"  # nothing changed but the minutes left a tournament on time shows


# The kinds of a table's own changes (all but a seña's, a chat's and a tournament's).
TableKind = Literal[
    ChangeKind.OPENED, ChangeKind.LOBBY, ChangeKind.STARTED, ChangeKind.QUEUED, ChangeKind.ACTION,
    ChangeKind.CANCELLED, ChangeKind.EXPIRED, ChangeKind.CONCEDED, ChangeKind.CHAT_GONE,
    ChangeKind.MOVED, ChangeKind.VACATED, ChangeKind.BOT_IN, ChangeKind.REMIND,
    ChangeKind.HINTED, ChangeKind.HANDED,
]  # fmt: skip


@dataclass(frozen=True)
class TableChange:
    """A committed change of a table (any kind of `TableKind`)."""

    kind: TableKind
    table: Table
    chat_id: int = 0
    events: tuple[Event, ...] = ()
    actor: int | None = None  # the user whose tap caused it (None: the timer, or nobody)
    seat: int | None = None
    action: Action | None = None
    timed_out: bool = False  # the action was the timer's, not the player's
    waiting_before: frozenset[int] = frozenset()  # users the game waited on before
    was: TableStatus | None = None  # the status before a cancel
    # How the match ended, for the league: the table's outcome when it ended; a side that left
    # a match a computer player goes on playing (VACATED, then BOT_IN) is recorded so at once.
    outcome: Outcome | None = None
    place: int = 0  # QUEUED: the table's place in line (1: the next to start)

    def __post_init__(self) -> None:
        if not self.chat_id:
            object.__setattr__(self, "chat_id", self.table.chat_id)

    @property
    def started(self) -> bool:
        """A lobby change that filled the table and started the match."""
        return self.kind is ChangeKind.STARTED

    @property
    def tapper(self) -> int | None:
        """Who tapped to cause the change (None: the timer acted, or nobody did)."""
        return None if self.timed_out else self.actor

    @property
    def the_table(self) -> Table:
        return self.table


@dataclass(frozen=True)
class SignChange:
    """SIGN: a player (or a bot, `actor` None) at `seat` showed their partner the seña `sign`;
    `caught_by`, the rival seats that caught it."""

    table: Table
    seat: int
    sign: str
    actor: int | None = None
    caught_by: tuple[int, ...] = ()
    kind: Literal[ChangeKind.SIGN] = ChangeKind.SIGN

    @property
    def chat_id(self) -> int:
        return self.table.chat_id

    @property
    def tapper(self) -> int | None:
        return self.actor

    @property
    def the_table(self) -> Table:
        return self.table


@dataclass(frozen=True)
class ChatChange:
    """CHAT: a chat's language or defaults (no table)."""

    chat_id: int
    kind: Literal[ChangeKind.CHAT] = ChangeKind.CHAT
    table: None = None


@dataclass(frozen=True)
class TourneyChange:
    """TOURNEY: the tournament as committed, what happened to it (`note`), who caused it, and
    the ties whose results it counted (round, slot, the match's number in its series)."""

    tournament: Tournament
    note: TourneyNote
    actor: int | None = None
    results: tuple[tuple[int, int, int], ...] = ()
    kind: Literal[ChangeKind.TOURNEY] = ChangeKind.TOURNEY
    table: None = None

    @property
    def chat_id(self) -> int:
        return self.tournament.chat_id


@dataclass(frozen=True)
class DailyChange:
    """DAILY: a group's hand of the day as committed, what happened to it (`note`), and for a
    close, what the close tells (`closing`)."""

    hand: DailyHand
    note: DailyNote
    closing: Closing | None = None
    kind: Literal[ChangeKind.DAILY] = ChangeKind.DAILY
    table: None = None

    @property
    def chat_id(self) -> int:
        return self.hand.chat_id


# One committed change: a subscriber dispatches on `change.kind` (which narrows the type: a
# field its kind does not carry cannot be read). `table` is None only for CHAT, TOURNEY and
# DAILY.
Change = TableChange | SignChange | ChatChange | TourneyChange | DailyChange


class Subscriber(Protocol):
    """A front end (or the computer players): told of every change, before and after commit."""

    async def plan(self, change: Change) -> Sequence[Planned]:
        """Inside the commit: rows and records to write with it (most subscribers write none)."""
        ...

    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        """After the commit (never blocks: start a task for anything slow)."""
        ...


@dataclass
class Changes:
    """The core's subscribers, in the order they subscribed (the runtime wires them)."""

    subscribers: list[Subscriber] = field(default_factory=list)

    def subscribe(self, subscriber: Subscriber) -> None:
        self.subscribers.append(subscriber)

    async def plan(self, change: Change) -> list[Planned]:
        planned: list[Planned] = []  # (each subscriber's, in the order they subscribed)
        for subscriber in self.subscribers:
            planned += await subscriber.plan(change)
        return planned

    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        for subscriber in self.subscribers:
            subscriber.committed(change, rows)
