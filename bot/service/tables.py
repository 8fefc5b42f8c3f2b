"""The one place that changes tables: lock, load, apply, persist. No Telegram here."""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from bot.game import (
    Action,
    ActionKind,
    Card,
    Deal,
    IllegalActionError,
    MatchConfig,
    MatchState,
    Reason,
    new_match,
    random_deal,
)
from bot.game.events import (
    Chanted,
    EnvidoAnnulled,
    EnvidoResolved,
    Event,
    FlorResolved,
    HandDealt,
    WentToMazo,
)
from bot.game.fair import fair_deal, new_seed, seed_for_tests
from bot.storage.db import is_conflict
from bot.storage.league import record_league
from bot.storage.outbox import OutboxStore, Outgoing
from bot.storage.repo import BOT_IDS, BOT_LEVELS, Store, Table, TableStatus, is_bot

log = logging.getLogger(__name__)

RECENT_CALLS = 6


class Refusal(Exception):
    """Something a user asked for that cannot be done; `code` names the locale string."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


class Conflict(Refusal):
    """A save lost a race with another process: the table changed since it was read."""


class LobbyOption:
    MODE = "mode"
    TARGET = "target"
    FLOR = "flor"
    HOUSE = "house"
    TIMER = "timer"
    BOT = "bot"  # the computer players' level
    ALL = (MODE, TARGET, FLOR, HOUSE, TIMER, BOT)


TIMER_CHOICES = (60, 120, 300, 0)  # seconds a player has to move; 0: sin tiempo
STRIKES_TO_CONCEDE = 3
RETRIES = 5  # a save that lost a race with another process (message ids only) is redone
BOT_LEVEL_ORDER = ("facil", "normal", "dificil")
VACATED_SECONDS = 300  # a seat left empty mid-match: the others have this long to choose


def bot_to_move(table: Table) -> int | None:
    """The computer player's seat the game waits on now, if any. It never answers for a
    person: when a person of its side may answer a chant, it lets them (it only declares its
    own flor, which nobody else can)."""
    state = table.state
    if table.status is not TableStatus.PLAYING or state is None or table.vacated is not None:
        return None
    legal = state.legal_actions()
    bots = sorted({a.seat for a in legal if is_bot(table.seats[a.seat])})
    if not bots:
        return None
    people = any(not is_bot(table.seats[a.seat]) for a in legal)
    if people:
        for seat in bots:
            own = [a for a in legal if a.seat == seat]
            if all(a.kind is ActionKind.FLOR for a in own):
                return seat
        return None
    return bots[0]


def conservative_action(state: MatchState, seat: int) -> Action:
    """What the bot does for a player who ran out of time: declare a flor it must declare,
    refuse a chant waiting for an answer, otherwise play its weakest card."""
    legal = [a for a in state.legal_actions() if a.seat == seat]
    by_kind = {a.kind: a for a in legal}
    for kind in (ActionKind.FLOR, ActionKind.NO_QUIERO, ActionKind.CON_FLOR_ME_ACHICO):
        if kind in by_kind and (kind is not ActionKind.FLOR or len(legal) == 1):
            return by_kind[kind]
    cards = [a for a in legal if a.kind is ActionKind.PLAY and a.card is not None]
    if cards:
        return min(cards, key=lambda a: a.card.strength if a.card else 0)
    return by_kind.get(ActionKind.QUIERO, legal[0])


class ChangeKind:
    LOBBY = "lobby"  # someone joined, left, or an option changed
    STARTED = "started"
    ACTION = "action"  # an action was applied (by a player, or by the timer)
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    CONCEDED = "conceded"  # /abandonar, or three timeouts
    CHAT_GONE = "chat_gone"  # the bot left the group: its table is cancelled
    MOVED = "moved"  # the group became a supergroup
    VACATED = "vacated"  # a player left mid-match: the others choose a bot or the end
    BOT_IN = "bot_in"  # a computer player took the empty seat
    REMIND = "remind"  # half the turn's time is gone: the players it waits on are reminded


@dataclass
class Change:
    """What a commit changed, for whoever decides what to tell (the publisher's plan)."""

    table: Table
    kind: str
    events: list[Event] = field(default_factory=list)
    actor: int | None = None  # the user whose tap caused it
    seat: int | None = None
    action: Action | None = None
    timed_out: bool = False  # the action was the timer's, not the player's
    waiting_before: set[int] = field(default_factory=set)  # users the game waited on before
    was: TableStatus | None = None


# Decides, before a commit, what the bot will say about it; the rows join the commit.
Planner = Callable[[Change], Awaitable[list[Outgoing]]]


@dataclass
class TimeoutOutcome:
    table: Table
    seat: int
    action: Action | None  # None when the side conceded instead
    outcome: ActOutcome | None


@dataclass
class LobbyOutcome:
    table: Table
    started: bool = False
    events: list[Event] = field(default_factory=list)


@dataclass
class ActOutcome:
    table: Table
    seat: int
    action: Action
    events: list[Event]
    took_ms: float = 0.0


class TableService:
    def __init__(
        self,
        store: Store,
        *,
        seed: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.seed = seed
        self.clock = clock
        self._cache: dict[int, Table] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._open_lock = asyncio.Lock()
        # PostgreSQL may be shared by several processes: read tables afresh, save them only
        # over the version read (see `_commit`). SQLite belongs to this process alone.
        self.shared = store.db.shared
        self.outbox = OutboxStore(store.db)
        self.names: dict[int, str] = {}  # players' names, as last seen by this process
        self.planner: Planner | None = None
        self.committed: Callable[[list[Outgoing]], None] | None = None  # wakes the sender
        self.watchers: list[Callable[[Table], None]] = []  # told of every committed table

    # -- loading -------------------------------------------------------------------------------
    def lock(self, table_id: int) -> asyncio.Lock:
        found = self._locks.get(table_id)
        if found is None:
            found = self._locks[table_id] = asyncio.Lock()
        return found

    async def get(self, table_id: int) -> Table | None:
        """The table as committed. With a shared database (PostgreSQL: other processes may
        change it) it is read afresh every time; otherwise this process's copy is the truth."""
        table = None if self.shared else self._cache.get(table_id)
        if table is None:
            table = await self.store.table(table_id)
            if table is not None and table.is_open:
                self._cache[table_id] = table
            else:
                self._cache.pop(table_id, None)
        return table

    async def table_in(self, chat_id: int, thread_id: int) -> Table | None:
        if not self.shared:
            for table in self._cache.values():
                if table.chat_id == chat_id and table.thread_id == thread_id and table.is_open:
                    return table
        found = await self.store.open_table_in(chat_id, thread_id)
        return await self.get(found.id) if found else None

    def lobbies(self) -> list[Table]:
        return [t for t in self._cache.values() if t.status is TableStatus.LOBBY]

    def playing(self) -> list[Table]:
        """Open matches in play (every open table is cached from start-up on)."""
        return [t for t in self._cache.values() if t.status is TableStatus.PLAYING]

    async def open_tables(self) -> list[Table]:
        """Every open table, now in this process's view (the timers and the computer players
        sweep that view; with a shared database this also finds other processes' tables)."""
        found = await self.store.open_tables()
        if self.shared:
            self._cache = {t.id: t for t in found}
            return found
        return [t for t in [await self.get(t.id) for t in found] if t]

    async def due_tables(self, now: float, lobby_seconds: float, stalled: float) -> list[Table]:
        """Shared database: the open tables a sweep must look at now (not every open table:
        the cost of a sweep follows what is due, not how many tables are live)."""
        found = await self.store.due_tables(now, lobby_seconds, stalled)
        self._cache = {t.id: t for t in found}
        return found

    async def _commit(
        self,
        table: Table,
        actions: list[tuple[int | None, str]] | None = None,
        first_seq: int = 0,
        change: Change | None = None,
        also: Callable[[Any], Awaitable[None]] | None = None,
        messages_only: bool = False,
    ) -> None:
        """Save the table, its new actions, the finished match, and what the bot will say about
        it (the planner's rows), in one transaction."""
        table.updated_at = self.clock()
        table.version += 1
        try:
            rows = await self._plan(change) if change is not None else []
            async with self.store.db.transaction() as conn:
                save = self.store.save_messages if messages_only else self.store.save_table
                if not await save(conn, table, table.version - 1):
                    # Another process changed the table since we read it: nothing of this
                    # commit happens (its action was decided on a state that is gone).
                    raise Conflict("stale")
                if actions:
                    await self.store.append_actions(
                        conn, table.id, first_seq, actions, table.updated_at
                    )
                if table.status is TableStatus.FINISHED and table.state is not None:
                    outcome = "won" if table.state.is_over else "conceded"
                    winner = table.state.winner if table.state.is_over else self._conceded_to(table)
                    await self.store.record_match(conn, table, outcome, winner, table.updated_at)
                    await record_league(conn, table, winner)
                elif table.status is TableStatus.CANCELLED and table.started_at is not None:
                    await self.store.record_match(conn, table, "cancelled", None, table.updated_at)
                if rows:
                    await self.outbox.enqueue(conn, rows, time.time())
                if also is not None:
                    await also(conn)
        except BaseException:
            self._cache.pop(table.id, None)  # memory may be ahead of the database: reload
            raise
        if not table.is_open:
            self._cache.pop(table.id, None)
            self._locks.pop(table.id, None)  # a closed table refuses everything: no lock needed
        self._committed(rows)
        for watcher in self.watchers:
            watcher(table)

    def waiting_users(self, table: Table) -> set[int]:
        """The users the game waits on now."""
        if table.state is None or table.status is not TableStatus.PLAYING:
            return set()
        seats = {a.seat for a in table.state.legal_actions()}
        return {u for s, u in enumerate(table.seats) if s in seats and u is not None and u > 0}

    @staticmethod
    def _conceded_to(table: Table) -> int | None:
        for entry in reversed(table.calls):
            if entry[1] == "concede":
                return 1 - int(entry[0]) % 2
        return None

    # -- players -------------------------------------------------------------------------------
    async def see_player(
        self, user_id: int, name: str, username: str | None, can_dm: bool | None = None
    ) -> None:
        if self.names.get(user_id) == name and can_dm is None:
            return  # known, and nothing changed
        async with self.store.db.transaction() as conn:
            await self.store.upsert_player(conn, user_id, name, username, self.clock())
            if can_dm is not None:
                await self.store.set_can_dm(conn, user_id, can_dm)
        self.names[user_id] = name

    async def set_can_dm(self, user_id: int, can_dm: bool) -> None:
        async with self.store.db.transaction() as conn:
            await self.store.set_can_dm(conn, user_id, can_dm)

    # -- lobby ---------------------------------------------------------------------------------
    async def open_lobby(
        self,
        chat_id: int,
        thread_id: int,
        opener_id: int,
        config: MatchConfig,
        language: str,
        turn_seconds: int = 0,
        seat_opener: bool = False,
    ) -> Table:
        """Open a lobby; the opener sits in the first seat (team 1) when they can be messaged
        privately, in the same commit, so the first lobby message already shows them."""
        async with self._open_lock:
            existing = await self.table_in(chat_id, thread_id)
            if existing is not None:
                raise Refusal("table_already_open", table=existing)
            now = self.clock()
            table = Table(
                id=0,
                chat_id=chat_id,
                thread_id=thread_id,
                status=TableStatus.LOBBY,
                opener_id=opener_id,
                config=config,
                seats=[None] * config.players,
                language=language,
                created_at=now,
                updated_at=now,
                turn_seconds=turn_seconds,
                join_token=secrets.token_urlsafe(12),
            )
            if seat_opener:
                table.seats[0] = opener_id
            try:
                async with self.store.db.transaction() as conn:
                    table.id = await self.store.insert_table(conn, table)
                    rows = await self._plan(Change(table, ChangeKind.LOBBY, actor=opener_id))
                    await self.outbox.enqueue(conn, rows, time.time())
            except Exception as error:
                if not is_conflict(error):
                    raise
                # Another process opened one here a moment ago (one open table per topic).
                there = await self.table_in(chat_id, thread_id)
                raise Refusal("table_already_open", table=there) from None
            self._cache[table.id] = table
            self._committed(rows)
            return table

    async def _plan(self, change: Change) -> list[Outgoing]:
        return await self.planner(change) if self.planner is not None else []

    def _committed(self, rows: list[Outgoing]) -> None:
        if rows and self.committed is not None:
            self.committed(rows)

    async def _lobby(self, table_id: int) -> Table:
        table = await self.get(table_id)
        if table is None or table.status is not TableStatus.LOBBY:
            raise Refusal("lobby_closed")
        return table

    async def join(self, table_id: int, user_id: int, team: int | None = None) -> LobbyOutcome:
        async with self.lock(table_id):
            table = await self._lobby(table_id)
            seat = table.seat_of(user_id)
            players = table.config.players
            if team is not None and not 0 <= team < 2:
                raise Refusal("bad_button")
            wanted = range(team, players, 2) if team is not None and players == 4 else None
            if seat is not None and (wanted is None or seat in wanted):
                raise Refusal("already_joined")
            free = [s for s in (wanted or range(players)) if table.seats[s] is None]
            if not free:
                raise Refusal("team_full" if wanted is not None else "table_full")
            if seat is not None:
                table.seats[seat] = None
            table.seats[free[0]] = user_id
            return await self._seated(table, user_id)

    async def _seated(self, table: Table, user_id: int) -> LobbyOutcome:
        """Commit a lobby change; the match starts when the last seat is taken."""
        outcome = LobbyOutcome(table)
        if all(s is not None for s in table.seats):
            outcome.events, entries = self._start(table)
            outcome.started = True
            change = Change(table, ChangeKind.STARTED, outcome.events, actor=user_id)
            await self._commit(table, entries, 0, change)
        else:
            await self._commit(table, change=Change(table, ChangeKind.LOBBY, actor=user_id))
        return outcome

    async def add_bot(
        self, table_id: int, user_id: int, team: int | None, level: str = "normal"
    ) -> LobbyOutcome:
        """The opener seats a computer player (in `team`, for 2v2). Bots at one table share a
        level. A table is never filled by bots alone."""
        async with self.lock(table_id):
            table = await self._lobby(table_id)
            if user_id != table.opener_id:
                raise Refusal("only_opener")
            players = table.config.players
            if team is not None and not 0 <= team < 2:
                raise Refusal("bad_button")
            wanted = range(team, players, 2) if team is not None and players == 4 else None
            free = [s for s in (wanted or range(players)) if table.seats[s] is None]
            if not free:
                raise Refusal("team_full" if wanted is not None else "table_full")
            empty = [s for s in range(players) if table.seats[s] is None]
            if len(empty) == 1 and not table.players:
                raise Refusal("bot_needs_people")
            current = [table.bot_level(s) for s in table.bot_seats]
            level = current[0] or level if current else level
            if level not in BOT_IDS:
                raise Refusal("bad_button")
            table.seats[free[0]] = BOT_IDS[level]
            return await self._seated(table, user_id)

    async def remove_bot(self, table_id: int, user_id: int) -> Table:
        """The opener takes the last computer player out of the lobby."""
        async with self.lock(table_id):
            table = await self._lobby(table_id)
            if user_id != table.opener_id:
                raise Refusal("only_opener")
            if not table.bot_seats:
                raise Refusal("no_bot")
            table.seats[table.bot_seats[-1]] = None
            await self._commit(table, change=Change(table, ChangeKind.LOBBY, actor=user_id))
            return table

    async def leave(self, table_id: int, user_id: int) -> Table:
        async with self.lock(table_id):
            table = await self._lobby(table_id)
            seat = table.seat_of(user_id)
            if seat is None:
                raise Refusal("not_joined")
            table.seats[seat] = None
            await self._commit(table, change=Change(table, ChangeKind.LOBBY, actor=user_id))
            return table

    async def set_option(self, table_id: int, user_id: int, option: str) -> Table:
        async with self.lock(table_id):
            table = await self._lobby(table_id)
            if user_id != table.opener_id:
                raise Refusal("only_opener")
            config = table.config
            if option == LobbyOption.MODE:
                joined = [u for u in table.seats if u is not None]
                if config.players == 4 and len(joined) > 2:
                    raise Refusal("too_many_for_1v1")
                players = 2 if config.players == 4 else 4
                seats: list[int | None] = [None] * players
                for i, user in enumerate(joined):
                    seats[i] = user
                table.seats = seats
                table.config = replace(config, players=players)
            elif option == LobbyOption.TARGET:
                table.config = replace(config, target=15 if config.target == 30 else 30)
            elif option == LobbyOption.FLOR:
                table.config = replace(config, flor=not config.flor)
            elif option == LobbyOption.HOUSE:
                table.config = replace(config, mazo_penalty=not config.mazo_penalty)
            elif option == LobbyOption.TIMER:
                now = (
                    TIMER_CHOICES.index(table.turn_seconds)
                    if table.turn_seconds in TIMER_CHOICES
                    else -1
                )
                table.turn_seconds = TIMER_CHOICES[(now + 1) % len(TIMER_CHOICES)]
            elif option == LobbyOption.BOT:
                bots = table.bot_seats
                if not bots:
                    raise Refusal("no_bot")
                level = BOT_LEVELS[table.seats[bots[0]] or -2]
                new = BOT_LEVEL_ORDER[(BOT_LEVEL_ORDER.index(level) + 1) % len(BOT_LEVEL_ORDER)]
                for seat in bots:
                    table.seats[seat] = BOT_IDS[new]
            else:
                raise Refusal("bad_button")
            await self._commit(table, change=Change(table, ChangeKind.LOBBY, actor=user_id))
            return table

    async def set_message(
        self,
        table_id: int,
        message_id: int | None,
        also: Callable[[Any], Awaitable[None]] | None = None,
    ) -> None:
        """The table's group message (lobby or board); `also` joins the same transaction."""

        def change(table: Table) -> None:
            table.message_id = message_id

        await self._save_message_ids(table_id, change, also)

    async def set_hand_message(
        self,
        table_id: int,
        user_id: int,
        message_id: int | None,
        also: Callable[[Any], Awaitable[None]] | None = None,
    ) -> None:
        def change(table: Table) -> None:
            if message_id is None:
                table.hand_messages.pop(user_id, None)
            else:
                table.hand_messages[user_id] = message_id

        await self._save_message_ids(table_id, change, also)

    async def _save_message_ids(
        self,
        table_id: int,
        change: Callable[[Table], None],
        also: Callable[[Any], Awaitable[None]] | None,
    ) -> None:
        """Message ids change after a call, whatever the game did meanwhile: a save that lost a
        race with another process is simply done again on the table as it is now."""
        for attempt in range(RETRIES):
            async with self.lock(table_id):
                table = await self.get(table_id)
                if table is None or not table.is_open:
                    await self._also(also)
                    return
                change(table)
                try:
                    await self._commit(table, also=also, messages_only=True)
                    return
                except Refusal:
                    if attempt == RETRIES - 1:
                        raise

    async def _also(self, also: Callable[[Any], Awaitable[None]] | None) -> None:
        if also is not None:
            async with self.store.db.transaction() as conn:
                await also(conn)

    async def cancel(
        self, table_id: int, user_id: int | None, is_admin: bool, chat_gone: bool = False
    ) -> Table:
        """`user_id` None: the bot itself (it left the group)."""
        async with self.lock(table_id):
            table = await self.get(table_id)
            if table is None or not table.is_open:
                raise Refusal("no_table")
            if user_id is not None and user_id != table.opener_id and not is_admin:
                raise Refusal("only_opener_or_admin")
            was = table.status
            table.status = TableStatus.CANCELLED
            table.ended_at = self.clock()
            kind = ChangeKind.CHAT_GONE if chat_gone else ChangeKind.CANCELLED
            await self._commit(table, change=Change(table, kind, actor=user_id, was=was))
            return table

    async def expire_lobby(self, table_id: int) -> Table | None:
        async with self.lock(table_id):
            table = await self.get(table_id)
            if table is None or table.status is not TableStatus.LOBBY:
                return None
            table.status = TableStatus.CANCELLED
            table.ended_at = self.clock()
            await self._commit(table, change=Change(table, ChangeKind.EXPIRED))
            return table

    # -- play ----------------------------------------------------------------------------------
    def _deal(self, table: Table, hand_number: int) -> Deal:
        """The deal of a hand, drawn from the table's committed seed (bot/game/fair.py)."""
        if table.seed is None:  # a match started before seeds existed
            return random_deal(random.SystemRandom(), table.config.players)
        return fair_deal(table.seed, hand_number, table.config.players)

    def _start(self, table: Table) -> tuple[list[Event], list[tuple[int | None, str]]]:
        state = new_match(table.config)
        table.seed = new_seed() if self.seed is None else seed_for_tests(self.seed, table.id)
        deal = self._deal(table, 1)
        events = state.apply(deal)
        table.state = state
        table.status = TableStatus.PLAYING
        table.started_at = self.clock()
        table.calls = []
        entries: list[tuple[int | None, str]] = [(None, deal.code)]
        forced, forced_entries = self._declare_forced_flores(table)
        events += forced
        entries += forced_entries
        self._remember_calls(table, forced)
        self._arm(table)
        return events, entries

    @staticmethod
    def _declare_forced_flores(table: Table) -> tuple[list[Event], list[tuple[int | None, str]]]:
        """F6: a seat holding an undeclared flor may do nothing but declare it whenever it could
        act. Where that is a seat's only legal action, it is declared for them at once (nearest
        the mano first): no button for a forced move, and nothing shown that a holder could not
        use. A flor *answer* (flor, contraflor, con flor me achico) stays the holder's choice."""
        state = table.state
        assert state is not None
        events: list[Event] = []
        entries: list[tuple[int | None, str]] = []
        while state.hand is not None and not state.is_over:
            legal = state.legal_actions()
            by_seat: dict[int, list[Action]] = {}
            for action in legal:
                by_seat.setdefault(action.seat, []).append(action)
            forced = [
                own[0]
                for own in by_seat.values()
                if len(own) == 1 and own[0].kind is ActionKind.FLOR
            ]
            if not forced:
                break
            order = state.hand.order_from_mano()
            action = min(forced, key=lambda a: order.index(a.seat))
            events += state.apply(action)
            entries.append((None, action.code))  # declared for them, not a tap
        return events, entries

    def _arm(self, table: Table) -> None:
        """Set the deadline of whoever the game now waits on (none without a timer, and none
        for a computer player: it never runs out of time)."""
        playing = table.status is TableStatus.PLAYING and table.state is not None
        waits_on_people = playing and bool(self._people_to_move(table))
        table.deadline = (
            self.clock() + table.turn_seconds if waits_on_people and table.turn_seconds else None
        )

    @staticmethod
    def _people_to_move(table: Table) -> list[int]:
        if table.state is None:
            return []
        seats = sorted({a.seat for a in table.state.legal_actions()})
        return [s for s in seats if not is_bot(table.seats[s])]

    async def act(
        self, table_id: int, user_id: int, step: int, kind: ActionKind, card: Card | None
    ) -> ActOutcome:
        started = time.perf_counter()
        for attempt in range(RETRIES):
            async with self.lock(table_id):
                table, seat = await self._in_play(table_id, user_id)
                assert table.state is not None
                if step != table.state.step:
                    raise Refusal("stale")
                if (kind is ActionKind.PLAY) != (card is not None):
                    raise Refusal("bad_button")
                try:
                    outcome = await self._apply(table, user_id, Action(seat, kind, card))
                    break
                except Conflict:
                    # Another process saved the table first without moving the game (a
                    # reminder, a message id): the tap still counts, on the table as it is.
                    if attempt == RETRIES - 1:
                        raise
        outcome.took_ms = (time.perf_counter() - started) * 1000
        log.info(
            "action table=%s user=%s seat=%s action=%s step=%s took_ms=%.1f",
            table_id, user_id, outcome.seat, outcome.action.code, step, outcome.took_ms,
        )  # fmt: skip
        return outcome

    async def _apply(
        self, table: Table, user_id: int, action: Action, timed_out: bool = False
    ) -> ActOutcome:
        """Apply, deal the next hand if due, and commit; the caller holds the table's lock."""
        state = table.state
        assert state is not None
        first_seq = state.step
        waiting_before = self.waiting_users(table)
        try:
            events = state.apply(action)
        except IllegalActionError as error:
            raise Refusal("illegal", reason=error.reason) from None
        entries: list[tuple[int | None, str]] = [(user_id, action.code)]
        self._remember_calls(table, events)
        if state.needs_deal:
            deal = self._deal(table, state.hand_number + 1)
            events += state.apply(deal)
            entries.append((None, deal.code))
            table.calls = []
        forced, forced_entries = self._declare_forced_flores(table)
        if forced:
            self._remember_calls(table, forced)
            events += forced
            entries += forced_entries
        if state.is_over:
            table.status = TableStatus.FINISHED
            table.ended_at = self.clock()
        if not timed_out:
            table.strikes[action.seat % 2] = 0
        if user_id > 0:
            if timed_out:  # the timer played for them: they are not looking
                table.acted.pop(user_id, None)
            else:
                table.acted[user_id] = self.clock()
        self._arm(table)
        change = Change(
            table, ChangeKind.ACTION, events, user_id, action.seat, action,
            timed_out, waiting_before,
        )  # fmt: skip
        await self._commit(table, entries, first_seq, change)
        return ActOutcome(table, action.seat, action, events)

    @staticmethod
    def _remember_calls(table: Table, events: list[Event]) -> None:
        for event in events:
            entry: list[Any] | None = None
            if isinstance(event, Chanted):
                entry = [event.seat, event.kind.value, None]
            elif isinstance(event, WentToMazo):
                entry = [event.seat, "mazo", None]
            elif isinstance(event, EnvidoResolved) and event.wanted:
                entry = [-1, "envido_values", [[v.seat, v.value] for v in event.values]]
            elif isinstance(event, FlorResolved) and event.values:
                entry = [-1, "flor_values", [[v.seat, v.value] for v in event.values]]
            elif isinstance(event, EnvidoAnnulled):
                entry = [event.seat, "envido_annulled", None]
            elif isinstance(event, HandDealt):
                table.calls = []
            if entry is not None:
                table.calls.append(entry)
        del table.calls[:-RECENT_CALLS]

    async def timeout(self, table_id: int, step: int) -> TimeoutOutcome | None:
        """The deadline of `step` passed: act for the player, or concede after three strikes.
        Nothing happens if the game moved on meanwhile (a late or doubled timer)."""
        async with self.lock(table_id):
            table = await self.get(table_id)
            if table is None or table.status is not TableStatus.PLAYING or table.state is None:
                return None
            state = table.state
            if state.step != step or table.deadline is None or not state.legal_actions():
                return None
            if table.vacated is not None:  # nobody chose: the side that left concedes
                seat = table.vacated
                await self._finish_conceded(table, seat, None, timed_out=True)
                return TimeoutOutcome(table, seat, None, None)
            people = self._people_to_move(table)
            if not people:
                return None
            seat = people[0]
            side = seat % 2
            table.strikes[side] += 1
            if table.strikes[side] >= STRIKES_TO_CONCEDE:
                await self._leave_seat(table, seat, None, timed_out=True)
                return TimeoutOutcome(table, seat, None, None)
            action = conservative_action(state, seat)
            user = table.seats[seat]
            assert user is not None
            outcome = await self._apply(table, user, action, timed_out=True)
            log.info("timeout table=%s seat=%s action=%s", table.id, seat, action.code)
            return TimeoutOutcome(outcome.table, seat, action, outcome)

    async def remind(self, table_id: int, step: int) -> Table | None:
        """The half-time reminder of `step`, once (whichever process gets there first)."""
        async with self.lock(table_id):
            table = await self.get(table_id)
            if table is None or table.status is not TableStatus.PLAYING or table.state is None:
                return None
            if table.state.step != step or table.reminded == step or table.vacated is not None:
                return None
            table.reminded = step
            await self._commit(table, change=Change(table, ChangeKind.REMIND))
            return table

    async def move_chat(self, old: int, new: int) -> list[Table]:
        """The group was upgraded to a supergroup: open tables go on in the new chat."""
        async with self._open_lock:
            moved = [t for t in self._cache.values() if t.chat_id == old]
            for found in await self.store.open_tables():
                if found.chat_id == old and found.id not in {t.id for t in moved}:
                    loaded = await self.get(found.id)
                    if loaded is not None:
                        moved.append(loaded)
            for table in moved:
                table.chat_id = new
                table.message_id = None
            rows = [r for t in moved for r in await self._plan(Change(t, ChangeKind.MOVED))]

            async def also(conn: Any) -> None:
                await self.outbox.enqueue(conn, rows, time.time())

            try:
                await self.store.move_chat(old, new, also)
            except BaseException:
                for table in moved:
                    self._cache.pop(table.id, None)
                raise
            self._committed(rows)
            return moved

    async def close_chat(self, chat_id: int) -> list[Table]:
        """The bot left or was removed from a group: its open tables are cancelled."""
        closed = []
        for table in await self.store.open_tables():
            if table.chat_id == chat_id:
                try:
                    closed.append(await self.cancel(table.id, None, True, chat_gone=True))
                except Refusal:
                    continue
        return closed

    async def concede(self, table_id: int, user_id: int) -> Table:
        async with self.lock(table_id):
            table, seat = await self._in_play(table_id, user_id)
            await self._leave_seat(table, seat, user_id)
            return table

    async def _in_play(self, table_id: int, user_id: int) -> tuple[Table, int]:
        """The match in play and the user's seat at it (the caller holds the lock), or the
        refusal: no match, not seated, or paused for an empty seat."""
        table = await self.get(table_id)
        if table is None or table.status is not TableStatus.PLAYING or table.state is None:
            raise Refusal("no_game")
        seat = table.seat_of(user_id)
        if seat is None:
            raise Refusal("not_seated")
        if table.vacated is not None:
            raise Refusal("paused")
        return table, seat

    async def _leave_seat(
        self, table: Table, seat: int, user_id: int | None, timed_out: bool = False
    ) -> None:
        """A player concedes (or ran out of time three times). In 2v2 with other people at the
        table the match pauses and they choose: a computer player takes the seat, or it ends.
        In 1v1 the rival simply wins (the league counts it)."""
        others = [u for s, u in enumerate(table.seats) if s != seat and u is not None and u > 0]
        if not others or table.config.players == 2:
            await self._finish_conceded(table, seat, user_id, timed_out)
            return
        table.vacated = seat
        table.deadline = self.clock() + VACATED_SECONDS
        change = Change(table, ChangeKind.VACATED, actor=user_id, seat=seat, timed_out=timed_out)
        await self._commit(table, change=change)

    async def _finish_conceded(
        self, table: Table, seat: int, user_id: int | None, timed_out: bool = False
    ) -> None:
        table.calls.append([seat, "concede", None])
        table.status = TableStatus.FINISHED
        table.ended_at = self.clock()
        table.deadline = None
        table.vacated = None
        change = Change(table, ChangeKind.CONCEDED, actor=user_id, seat=seat, timed_out=timed_out)
        await self._commit(table, change=change)

    async def fill_vacated(
        self, table_id: int, user_id: int, keep_playing: bool, level: str = "normal"
    ) -> Table:
        """Another player at the table chooses for an empty seat: a computer player, or the
        end of the match (the side that left concedes)."""
        async with self.lock(table_id):
            table = await self.get(table_id)
            if table is None or table.status is not TableStatus.PLAYING:
                raise Refusal("no_game")
            seat = table.vacated
            if seat is None:
                raise Refusal("already_decided")
            chooser = table.seat_of(user_id)
            if chooser is None or chooser == seat:
                raise Refusal("not_seated")
            if not keep_playing:
                await self._finish_conceded(table, seat, None)
                return table
            table.seats[seat] = BOT_IDS.get(level, BOT_IDS["normal"])
            table.vacated = None
            table.strikes = [0, 0]
            self._arm(table)
            await self._commit(table, change=Change(table, ChangeKind.BOT_IN, actor=user_id,
                                                    seat=seat))  # fmt: skip
            return table

    async def bot_act(
        self, table_id: int, seat: int, step: int, action: Action
    ) -> ActOutcome | None:
        """A computer player's move, decided for `step`: applied only if the game is still
        there and waits on that seat (a late or doubled decision changes nothing)."""
        async with self.lock(table_id):
            table = await self.get(table_id)
            if table is None or table.state is None or table.state.step != step:
                return None
            if bot_to_move(table) != seat or action.seat != seat:
                return None
            user = table.seats[seat]
            assert user is not None
            if not table.state.is_legal(action):
                log.warning("bot offered an illegal action table=%s %s", table.id, action.code)
                return None
            outcome = await self._apply(table, user, action)
        log.info("bot action table=%s seat=%s action=%s step=%s", table.id, seat, action.code, step)
        return outcome


def illegal_reason(refusal: Refusal) -> Reason | None:
    reason = refusal.params.get("reason")
    return reason if isinstance(reason, Reason) else None
