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
from typing import Protocol

from bot.game import Action
from bot.game.events import Event
from bot.league.tournament import Tournament
from bot.model.outbox import Outgoing, Planned
from bot.model.outcome import Outcome
from bot.model.refusals import Refusal, Refused
from bot.model.table import Table, TableStatus

__all__ = ["Change", "ChangeKind", "Changes", "Conflict", "Refusal", "Refused", "Subscriber"]


class Conflict(Refusal):
    """A save lost a race with another process: the table changed since it was read."""


class ChangeKind(StrEnum):
    OPENED = "opened"  # a new table (its lobby)
    LOBBY = "lobby"  # someone joined, left, or an option changed
    STARTED = "started"
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


@dataclass(frozen=True)
class Change:
    """One committed change. `table` is None only for a chat's settings (CHAT) and a
    tournament's changes (TOURNEY)."""

    kind: ChangeKind
    table: Table | None = None
    chat_id: int = 0
    events: tuple[Event, ...] = ()
    actor: int | None = None  # the user whose tap caused it (None: the timer, or nobody)
    seat: int | None = None
    action: Action | None = None
    timed_out: bool = False  # the action was the timer's, not the player's
    waiting_before: frozenset[int] = frozenset()  # users the game waited on before
    was: TableStatus | None = None  # the status before a cancel
    sign: str | None = None  # SIGN: the seña shown by `seat` to its partner
    caught_by: tuple[int, ...] = ()  # SIGN: the rival seats that caught it
    # How the match ended, for the league: the table's outcome when it ended; a side that left
    # a match a computer player goes on playing (VACATED, then BOT_IN) is recorded so at once.
    outcome: Outcome | None = None
    # TOURNEY: the tournament as committed, what happened to it, and the ties whose results
    # it counted (round, slot, the match's number in its series)
    tournament: Tournament | None = None
    note: str = ""
    results: tuple[tuple[int, int, int], ...] = ()

    def __post_init__(self) -> None:
        if self.table is not None and not self.chat_id:
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
        assert self.table is not None, f"a {self.kind} change has no table"
        return self.table


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
