"""People as the bot knows them: names (for every front end to draw), and whether the bot can
write to them privately."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable

from bot.model.names import clean_name
from bot.model.occupants import PersonKind, people
from bot.model.table import HandPlace, Table
from bot.storage.repo import Store

NAMES_REMEMBERED = 50_000  # the oldest are read again from the database when next needed
# Where each person's hand lives, as read a moment ago: with several workers, another one's
# change of mind (/mano) reaches this one within this many seconds.
PLACE_SECONDS = 30.0


class People:
    def __init__(self, store: Store, *, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self._names: OrderedDict[int, str] = OrderedDict()
        self._places: OrderedDict[int, tuple[HandPlace, float]] = OrderedDict()

    async def see(
        self, user_id: int, name: str, username: str | None, can_dm: bool | None = None
    ) -> None:
        """A person acted: their name as it is now (and whether the bot can write to them). A
        name with nothing left to show (`clean_name`) is their username, or a number."""
        name = clean_name(name) or clean_name(username or "") or f"#{user_id % 10_000}"
        if self._names.get(user_id) == name and can_dm is None:
            return  # known, and nothing changed
        async with self.store.db.transaction() as conn:
            await self.store.upsert_player(conn, user_id, name, username, self.clock())
            if can_dm is not None:
                await self.store.set_can_dm(conn, user_id, can_dm)
        if can_dm is not None:
            self._places.pop(user_id, None)
        self._remember(user_id, name)

    async def new_person(self, name: str, kind: PersonKind) -> int:
        """A new person of a kind whose ids the database allocates (the try-out's), by the name
        they typed: their id, one nobody had."""
        name = clean_name(name)
        async with self.store.db.transaction() as conn:
            user_id = await self.store.new_person(conn, name, kind, self.clock())
        self._remember(user_id, name)
        return user_id

    async def set_can_dm(self, user_id: int, can_dm: bool) -> None:
        async with self.store.db.transaction() as conn:
            await self.store.set_can_dm(conn, user_id, can_dm)
        self._places.pop(user_id, None)

    async def place_known(self, user_id: int) -> bool:
        """Whether where the person's hand lives is known without asking Telegram: they chose
        it, or the bot could write to them privately when last it tried (a /start there, a
        check that went through; a call refused since marks them unreachable again)."""
        player = (await self.store.players([user_id])).get(user_id)
        return player is not None and (player.can_dm or player.hand_place is not None)

    async def plays_in(self, user_id: int) -> HandPlace:
        """Where the person's hand lives at a group's table (`Player.plays_in`)."""
        known = self._places.get(user_id)
        if known is not None and self.clock() < known[1]:
            return known[0]
        player = (await self.store.players([user_id])).get(user_id)
        place = player.plays_in if player is not None else HandPlace.GROUP
        self._places[user_id] = (place, self.clock() + PLACE_SECONDS)
        self._places.move_to_end(user_id)
        if len(self._places) > NAMES_REMEMBERED:
            self._places.popitem(last=False)
        return place

    async def choose_place(self, user_id: int, place: HandPlace | None) -> None:
        """The person's choice of where their hand lives (None: the default again)."""
        await self.store.set_hand_place(user_id, place)
        self._places.pop(user_id, None)

    async def names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """The names of these people (computer players and unknown ids are left out)."""
        wanted = people(dict.fromkeys(user_ids))
        missing = [u for u in wanted if u not in self._names]
        if missing:
            for uid, player in (await self.store.players(missing)).items():
                self._remember(uid, player.name)
        return {u: self._names[u] for u in wanted if u in self._names}

    async def at(self, table: Table) -> dict[int, str]:
        """The names of the people at a table (and of whoever opened it)."""
        return await self.names([*table.players, table.opener_id])

    def _remember(self, user_id: int, name: str) -> None:
        self._names[user_id] = name
        self._names.move_to_end(user_id)
        if len(self._names) > NAMES_REMEMBERED:
            self._names.popitem(last=False)

    def remembered(self) -> int:
        return len(self._names)
