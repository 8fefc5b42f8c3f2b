"""The game core, built in one place: every job of the service with its collaborators given to
its constructor. Front ends subscribe to `changes`; nothing here knows any of them.

`Core.open` is the one assembly every mode uses (the Telegram bot, the local web table, the
tests): the database, its migrations, the services. `sweep` is the one timer every mode runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from bot.config import Settings
from bot.metrics import Metrics
from bot.service.admission import Admission
from bot.service.ai import AiPlayers
from bot.service.changes import Changes
from bot.service.chats import Chats
from bot.service.daily import Daily
from bot.service.history import History
from bot.service.lobby import Lobby
from bot.service.mailbox import Judge, Mailbox
from bot.service.people import People
from bot.service.play import Play
from bot.service.presence import Presence
from bot.service.review import Reviews
from bot.service.tournaments import Tournaments
from bot.service.turns import Turns
from bot.service.unit import Records, Tables
from bot.storage.connect import open_database, preflight
from bot.storage.db import Meter
from bot.storage.repo import Store


@dataclass(frozen=True)
class Core:
    changes: Changes
    tables: Tables  # reading tables, and the one commit
    people: People
    play: Play
    lobby: Lobby
    turns: Turns
    chats: Chats
    history: History  # finished matches and the league, to read
    tournaments: Tournaments  # a group's tournaments
    reviews: Reviews  # a review after the match, for each person who played it
    presence: Presence  # who has a table's web page open (a front end need not refresh them)
    admission: Admission  # how many matches play at once; the line of tables waiting to start
    daily: Daily  # la mano del día: a group's decision of the day, its answers and its close
    ai: AiPlayers | None = None  # the computer players (`open` seats them; a test may not)

    @staticmethod
    async def open(
        settings: Settings,
        *,
        clock: Callable[[], float] | None = None,
        turn_seconds: int | None = None,
        max_live_tables: int | None = None,
    ) -> Core:
        """The core on the settings' database (migrated to this code's schema).
        `max_live_tables`: matches in play at once (None: the settings'; 0: no limit);
        `clock`: the database's (`Database.now`) unless a test drives its own."""
        db = await open_database(settings.database, settings.db_pool)
        core = Core.build(
            Store(db),
            seed=settings.seed,
            clock=clock,
            lobby_seconds=settings.lobby_seconds,
            sign_catch_chance=settings.sign_catch_chance,
            language=settings.language,
            turn_seconds=settings.turn_seconds if turn_seconds is None else turn_seconds,
            bot_level=settings.bot_level,
            timezone=settings.timezone,
            worker=settings.worker_id,
            review_workers=settings.ai_workers,
            max_live_tables=(
                settings.max_live_tables if max_live_tables is None else max_live_tables
            ),
        )
        ai = AiPlayers(
            core.tables,
            core.play,
            delay=settings.bot_delay,
            workers=settings.ai_workers,
            seed=settings.seed,
        )
        core.changes.subscribe(ai)
        return replace(core, ai=ai)

    @staticmethod
    def build(
        store: Store,
        *,
        seed: int | None = None,
        clock: Callable[[], float] | None = None,
        lobby_seconds: float = 600.0,
        sign_catch_chance: float = 0.0,
        language: str = "es",
        turn_seconds: int = 0,
        bot_level: str = "normal",
        timezone: str = "America/Argentina/Buenos_Aires",
        worker: str = "main",
        review_workers: int = 0,
        max_live_tables: int = 0,
    ) -> Core:
        """`clock`: the time of every deadline, stamp and record, which the workers sharing
        the database compare: the database's (`Database.now`; this process's own on SQLite),
        never a worker's own clock, unless a test drives one by hand."""
        if clock is None:
            clock = store.db.now
        changes = Changes()
        tables = Tables(store, changes, clock=clock, worker=worker)
        play = Play(tables, seed=seed, sign_catch_chance=sign_catch_chance, clock=clock)
        admission = Admission(tables, play, capacity=max_live_tables, clock=clock)
        changes.subscribe(admission)
        lobby = Lobby(tables, play, clock=clock, admission=admission)
        tournaments = Tournaments(tables, play, clock=clock, seed=seed)
        changes.subscribe(tournaments)
        turns = Turns(
            tables, play, lobby, lobby_seconds=lobby_seconds, clock=clock, tournaments=tournaments
        )
        chats = Chats(
            tables, lobby, language=language, turn_seconds=turn_seconds, bot_level=bot_level
        )
        people = People(store, clock=clock)
        history = History(store)
        reviews = Reviews(history, workers=review_workers, clock=clock)
        # (the database's clock even when a test drives the core's: the workers compare its
        # records, and a page's visits are not moved by hand)
        presence = Presence(tables.records, clock=store.db.now)
        daily = Daily(tables, history, reviews, clock=clock, zone=timezone, language=language)
        return Core(
            changes, tables, people, play, lobby, turns, chats, history, tournaments, reviews,
            presence, admission, daily,
        )  # fmt: skip

    @staticmethod
    async def check(database: str | Path) -> str | None:
        """Whether the database can be used by this code (opened, written, its schema not
        newer): None, or what is wrong, in a sentence."""
        return await preflight(database)

    @property
    def store(self) -> Store:
        return self.tables.store

    @property
    def records(self) -> Records:
        """Each front end's own records of a table."""
        return self.tables.records

    @property
    def clock(self) -> Callable[[], float]:
        return self.tables.clock

    @property
    def meter(self) -> Meter:
        """What the database door counted so far."""
        return self.store.db.meter

    @property
    def shared(self) -> bool:
        """Several processes share the database (PostgreSQL)."""
        return self.tables.shared

    def mailbox(
        self,
        group_interval: float,
        overall_per_second: float = 30.0,
        *,
        poll: float = 1.0,
        judge: Judge | None = None,
        metrics: Metrics | None = None,
        private: tuple[float, int] = (0.0, 3),
    ) -> Mailbox:
        """The mailbox that hands a front end the rows this core commits for it."""
        mailbox = Mailbox(
            self.store.db,
            group_interval,
            overall_per_second,
            owner=self.tables.outbox.owner,
            poll=poll,
            store=self.tables.outbox,
            metrics=metrics,
            private_per_second=private[0],
            private_burst=private[1],
        )
        if judge is not None:
            mailbox.judge = judge
        return mailbox

    async def start(self) -> None:
        """Every open table into this process's view (the sweep and the computer players look
        at it), and the computer players that were to move when the bot stopped move."""
        await self.tables.open_tables()
        if self.ai is not None:
            await self.ai.start()

    async def sweep(self) -> None:
        """Once every tick, in every mode: stalled computer players (another process died),
        computer players whose pause is over, then every deadline that is due."""
        if self.ai is not None:
            for table in await self.turns.stalled():
                # The process that made a table's last change moves its computer players; a
                # table nobody moved for a while (that process died) is taken up here.
                self.ai.consider(table)
            self.ai.tick()
        await self.turns.deadlines()
        await self.tournaments.sweep()
        self.daily.sweep()  # (its round in a task of its own: it may pose a hand of the day)
        await self.admission.admit_quietly()  # (after a restart, another worker's match's end)

    def stop(self) -> None:
        """No more decisions of the computer players (what is committed stays), nor reviews."""
        if self.ai is not None:
            self.ai.close()
        self.reviews.close()

    async def close(self) -> None:
        # (the children first: none is left running, nor racing the interpreter's exit)
        if self.ai is not None:
            await self.ai.ended()
        await self.reviews.ended()
        await self.store.db.close()
