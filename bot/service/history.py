"""What was played: finished matches, their action logs and records, and the league's tables,
as every front end reads them (nothing here writes: the league is written in the commit that
ends a match, `Tables.commit`)."""

from __future__ import annotations

from dataclasses import replace

from bot.game import AnyAction, parse_any
from bot.league.values import Pair, PlayerNumbers, RatingChange, Standing, ranked
from bot.model.records import MatchRecord
from bot.model.table import Table
from bot.service import league
from bot.storage.league import League
from bot.storage.repo import Store


class History:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.league = League(store.db)

    # -- matches -----------------------------------------------------------------------------------
    async def table(self, number: int) -> Table | None:
        """Table `number` as committed (open or not), straight from the database."""
        return await self.store.table(number)

    async def recent(self, chat_id: int, limit: int = 10) -> list[MatchRecord]:
        """A group's last finished matches' records, newest first (cancelled ones left out)."""
        return await self.store.recent_matches(chat_id, league.LISTED, limit)

    async def last_played(self, user_id: int) -> int | None:
        """The number of the last finished match (not a cancelled one) the person played,
        in a group or in practice."""
        return await self.store.last_match_of(user_id, league.LISTED)

    async def record(self, table_id: int) -> MatchRecord | None:
        """The league's record of a match (None: never finished)."""
        return await self.store.match_record(table_id)

    async def log(self, table_id: int) -> list[AnyAction]:
        """Every action of a match, deals included, in order."""
        return [parse_any(code) for _, _, code in await self.store.action_log(table_id)]

    # -- the league --------------------------------------------------------------------------------
    async def standings(
        self, chat_id: int, players: int | None = None, since: float | None = None
    ) -> list[Standing]:
        """The group's table, over the matches the league counts (of a mode, since a moment),
        sorted by rating. The streak is over those matches too (the whole table's, over every
        counted match, is the ratings' own: the same matches, read without another query)."""
        counting = replace(league.COUNTED, players=players, since=since)
        tallies = await self.league.tallies(chat_id, counting)
        if players is None and since is None:
            return ranked(tallies)
        return ranked(tallies, await self.league.streaks(chat_id, counting))

    async def pairs(self, chat_id: int, players: int = 4, since: float | None = None) -> list[Pair]:
        """The sides who won most together: partners in 2v2, trios in 3v3."""
        counting = replace(league.COUNTED, players=players, since=since)
        return await self.league.pairs(chat_id, counting, 3 if players == 6 else 2)

    async def numbers(self, user_id: int, chat_id: int | None = None) -> PlayerNumbers:
        return await self.league.numbers(user_id, league.COUNTED, chat_id)

    async def against_bots(
        self, user_id: int, chat_id: int | None = None
    ) -> dict[str, tuple[int, int]]:
        return await self.league.against_bots(user_id, league.AGAINST_BOTS, chat_id)

    async def rebuild_ratings(self, chat_id: int) -> None:
        """Recompute a group's ratings from its match records alone."""
        await league.rebuild_ratings(self.store.db, chat_id)

    async def rating_changes(self, table_id: int) -> list[RatingChange]:
        return await self.league.rating_changes(table_id)
