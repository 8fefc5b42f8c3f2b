"""The game core, built in one place: every job of the service with its collaborators given to
its constructor. Front ends subscribe to `changes`; nothing here knows any of them."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from bot.service.changes import Changes
from bot.service.chats import Chats
from bot.service.lobby import Lobby
from bot.service.people import People
from bot.service.play import Play
from bot.service.turns import Turns
from bot.service.unit import Tables
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

    @staticmethod
    def build(
        store: Store,
        *,
        seed: int | None = None,
        clock: Callable[[], float] = time.time,
        lobby_seconds: float = 600.0,
        sign_catch_chance: float = 0.0,
        language: str = "es",
        turn_seconds: int = 0,
        bot_level: str = "normal",
        worker: str = "main",
    ) -> Core:
        changes = Changes()
        tables = Tables(store, changes, clock=clock, worker=worker)
        play = Play(tables, seed=seed, sign_catch_chance=sign_catch_chance, clock=clock)
        lobby = Lobby(tables, play, clock=clock)
        turns = Turns(tables, play, lobby, lobby_seconds=lobby_seconds, clock=clock)
        chats = Chats(
            tables, lobby, language=language, turn_seconds=turn_seconds, bot_level=bot_level
        )
        return Core(changes, tables, People(store, clock=clock), play, lobby, turns, chats)

    @property
    def store(self) -> Store:
        return self.tables.store

    @property
    def clock(self) -> Callable[[], float]:
        return self.tables.clock
