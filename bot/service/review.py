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
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bot import codec
from bot.ai.review import Moment, Review, lessons, review
from bot.ai.search import Machine
from bot.game import AnyAction, MatchConfig, parse_any
from bot.model.occupants import is_person
from bot.model.refusals import Refused
from bot.model.table import Table, TableStatus
from bot.service.ai import machines_of
from bot.service.changes import Refusal
from bot.service.history import History
from bot.service.pools import Supervised, processes
from bot.storage.reviews import ReviewStore

log = logging.getLogger(__name__)

LESSONS_FROM = 30  # a person's latest reviews /yo reads
# A moment missed comes back after these many seconds (its box 1, 2, 3, 4: each right answer
# moves it a box on, a wrong one back to the first; right in the last, it is learned)
AGAIN = (86400.0, 3 * 86400.0, 7 * 86400.0, 21 * 86400.0)
DUE_READ = 20  # a person's due moments read at once


def spaced(
    before: tuple[int, float | None] | None, right: bool, now: float
) -> tuple[int, float | None] | None:
    """A moment's (box, when it is due again) after an answer; None: as it was (asked again
    before it was due, or learned). Box 0: right the first time."""
    if before is None:
        return (0, None) if right else (1, now + AGAIN[0])
    box, due = before
    if due is None or due > now:
        return None
    if not right:
        return 1, now + AGAIN[0]
    box += 1
    return (box, now + AGAIN[box - 1]) if box <= len(AGAIN) else (box, None)


def compute(
    config: MatchConfig, codes: Sequence[str], seat: int, table_id: int,
    machines: Mapping[int, Machine] | None = None,
) -> str:  # fmt: skip
    """The review of `seat` in the match of the action log `codes`, as JSON (in the pool); the
    seats of `machines`, our computer players, weighed as they play (¿suerte o viveza?)."""
    actions: list[AnyAction] = [parse_any(code) for code in codes]
    return codec.dumps(review(config, actions, seat, table_id, machines=machines).to_json())


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
        seat = table.seat_of(user_id) if is_person(user_id) else None
        if seat is None:
            raise Refusal(Refused.REVIEW_NOT_YOURS)
        if table.status is not TableStatus.FINISHED:
            raise Refusal(Refused.REVIEW_NOT_OVER)
        return table, seat

    def played(self, table: Table, user_id: int) -> bool:
        """Whether `user_id` may ask for the review of `table` (a person who played it, over)."""
        return (
            is_person(user_id)
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
        data = await self._run(compute, table.config, codes, seat, table.id, machines_of(table))
        self.computed += 1
        return await self.store.save(table.id, user_id, seat, data, self.clock())

    # -- a review answered first ------------------------------------------------------------------
    async def answer(
        self, table_id: int, user_id: int, index: int, choice: int
    ) -> tuple[Review, Moment, bool]:
        """A person's answer to one of their costly moments of a match: whether it was right
        (a choice as good as the best), kept for the spaced repetition of the ones missed."""
        found = await self.of(table_id, user_id)
        if not 0 <= index < len(found.slips):
            raise Refusal(Refused.BAD_BUTTON)
        moment = found.slips[index]
        puzzle = moment.puzzle
        if puzzle is None or not 0 <= choice < len(puzzle.choices):
            raise Refusal(Refused.BAD_BUTTON)
        right = choice in puzzle.right
        now = self.clock()
        before = await self.store.answered(user_id, table_id, moment.step)
        after = spaced(before, right, now)
        if after is not None:
            await self.store.answer(user_id, table_id, moment.step, right, *after, now, choice)
        return found, moment, right

    async def due(self, user_id: int) -> list[tuple[int, int]]:
        """A person's moments missed before and due again, the longest due first: (match, the
        moment's place among its told slips)."""
        found = []
        for table_id, step in await self.store.due(user_id, self.clock(), DUE_READ):
            stored = await self.store.get(table_id, user_id)
            if stored is None:
                continue
            slips = Review.from_json(codec.loads(stored)).slips
            index = next((i for i, m in enumerate(slips) if m.step == step), None)
            if index is not None and slips[index].puzzle is not None:
                found.append((table_id, index))
        return found

    async def first_answers(self, table_id: int, user_id: int) -> dict[int, bool]:
        """A person's first answers to a match's moments: step -> right."""
        return await self.store.first_answers(user_id, table_id)

    async def first_choices(self, table_id: int, user_id: int) -> dict[int, int]:
        """The choice a person tapped first on a match's moments: step -> its place."""
        return await self.store.first_choices(user_id, table_id)

    async def luck_since(self, user_id: int, since: float) -> tuple[int, int, float, float]:
        """¿Suerte o viveza? over a person's reviewed matches that ended since `since`:
        (matches, their results summed, their decisions summed, the cards' noise: each
        match's, `Luck.noise`, in squares)."""
        found = [Review.from_json(codec.loads(text))
                 for text in await self.store.of_person_since(user_id, since)]  # fmt: skip
        split = [r.luck for r in found if r.luck is not None]
        return (
            len(split), sum(s.result for s in split), sum(s.decisions for s in split),
            math.sqrt(sum(s.noise * s.noise for s in split)),
        )

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
    async def run(self, fn: Callable[..., str], *args: Any) -> str:
        """`fn(*args)` in the reviews' process (or a thread): a module's function of plain
        arguments, as the process must find and pickle them."""
        return await self._run(fn, *args)

    async def _run(self, fn: Callable[..., str], *args: Any) -> str:
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
