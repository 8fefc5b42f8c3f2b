"""A review after the match, for each person who played it (`bot.ai.review`): computed off the
event loop (a supervised process of its own, `bot.service.pools`, or a thread), once per
person and match, and kept.

Who may ask: a person who sat at the match (by their user id), once it is over. Anything else
is refused and changes nothing: no such match, one still in play (or cancelled), one they did
not play.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from bot import codec
from bot.ai.review import Review, lessons, review
from bot.game import AnyAction, MatchConfig, parse_any
from bot.model.refusals import Refused
from bot.model.table import Table, TableStatus
from bot.service.changes import Refusal
from bot.service.history import History
from bot.service.pools import Supervised, processes
from bot.storage.reviews import ReviewStore

log = logging.getLogger(__name__)

LESSONS_FROM = 30  # a person's latest reviews /yo reads


def compute(config: MatchConfig, codes: Sequence[str], seat: int, table_id: int) -> str:
    """The review of `seat` in the match of the action log `codes`, as JSON (in the pool)."""
    actions: list[AnyAction] = [parse_any(code) for code in codes]
    return codec.dumps(review(config, actions, seat, table_id).to_json())


class Reviews:
    def __init__(
        self,
        history: History,
        *,
        workers: int = 1,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.history = history
        self.store = ReviewStore(history.store.db)
        self.workers = min(workers, 1)  # one process: a review is a few seconds of one core
        self.clock = clock
        # (made at the first review; none when reviews run in a thread)
        self._pool = Supervised("reviews", processes(1)) if self.workers > 0 else None
        self._running: dict[tuple[int, int], asyncio.Future[str]] = {}
        self.computed = 0  # reviews computed by this process (tests, logs)

    async def playable(self, table_id: int, user_id: int) -> tuple[Table, int]:
        """Match `table_id` and the asker's seat, if they may have its review; else a refusal."""
        table = await self.history.table(table_id)
        if table is None or table.state is None:
            raise Refusal(Refused.REVIEW_NO_MATCH)
        seat = table.seat_of(user_id) if user_id > 0 else None
        if seat is None:
            raise Refusal(Refused.REVIEW_NOT_YOURS)
        if table.status is not TableStatus.FINISHED:
            raise Refusal(Refused.REVIEW_NOT_OVER)
        return table, seat

    def played(self, table: Table, user_id: int) -> bool:
        """Whether `user_id` may ask for the review of `table` (a person who played it, over)."""
        return (
            user_id > 0
            and table.status is TableStatus.FINISHED
            and table.seat_of(user_id) is not None
        )

    async def of(self, table_id: int, user_id: int) -> Review:
        """The asker's review of a match they played: the stored one, or computed now (once:
        two asks at once share one computation) and kept."""
        table, seat = await self.playable(table_id, user_id)
        stored = await self.store.get(table.id, user_id)
        if stored is None:
            key = (table.id, user_id)
            running = self._running.get(key)
            if running is None:
                running = asyncio.ensure_future(self._compute(table, seat, user_id))
                self._running[key] = running
                running.add_done_callback(lambda _: self._running.pop(key, None))
            stored = await asyncio.shield(running)
        return Review.from_json(codec.loads(stored))

    async def kept(self, table_id: int, user_id: int) -> tuple[Table, Review | None]:
        """The asker's review of a match they played, if it was made already (never computed
        here: a page of it asked for is no ask for a review)."""
        table, _ = await self.playable(table_id, user_id)
        stored = await self.store.get(table.id, user_id)
        return table, Review.from_json(codec.loads(stored)) if stored is not None else None

    async def _compute(self, table: Table, seat: int, user_id: int) -> str:
        codes = [code for _, _, code in await self.history.store.action_log(table.id)]
        data = await self._run(compute, table.config, codes, seat, table.id)
        self.computed += 1
        return await self.store.save(table.id, user_id, seat, data, self.clock())

    async def mine(self, user_id: int) -> list[Review]:
        """A person's latest reviews, newest first."""
        texts = await self.store.of_person(user_id, LESSONS_FROM)
        return [Review.from_json(codec.loads(text)) for text in texts]

    async def lesson(self, user_id: int) -> tuple[str, float, int, int] | None:
        """What a person does most often that costs them points, over their reviewed matches:
        (habit, mean cost per time, times, matches reviewed), or None."""
        found = await self.mine(user_id)
        learned = lessons(found)
        return None if learned is None else (*learned, len(found))

    # -- off the loop ------------------------------------------------------------------------
    async def _run(
        self, fn: Callable[[MatchConfig, Sequence[str], int, int], str], *args: Any
    ) -> str:
        if self._pool is not None:
            return await self._pool.run(fn, *args)
        return await asyncio.to_thread(fn, *args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()

    async def ended(self) -> None:
        """After `close`: its processes have ended (bounded)."""
        if self._pool is not None:
            await self._pool.ended()
