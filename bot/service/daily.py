"""La mano del día: once a day, at the hour a group chose in /config (off until it chooses
one), one decision put to the group, and at its close the answer, the tally and the streaks.

Where a position comes from: the group's own reviewed matches of the last RECENT_DAYS (the
moments a review weighed: what cost a person most, what was praised; from the match posed from
least often, the costliest, each posed once in the group), else the bank of good positions
(`bot.ai.daily.bank`). Only a finished match's; only what its seat saw (`bot.ai.daily.pose`
reads its observation alone); whose it was is told at the close only if that person allowed it.

Every step is one commit with the rows that tell it, and safe with several workers: a group's
hand of a day is one row (a second worker's insert finds it and does nothing), an answer is
taken by one statement that also checks the hand is open (the first answer counts), a close is
one update that only one worker wins.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot import codec
from bot.ai.daily import bank, position
from bot.ai.puzzle import MARGIN, Puzzle, askable, pose
from bot.ai.review import Review
from bot.game import MatchConfig, parse_any
from bot.model.daily import (
    LATE_SECONDS,
    MONTH_SHOWN,
    OPEN_SECONDS,
    Closing,
    DailyHand,
    DailyNote,
    Reply,
    Tally,
    streaks,
)
from bot.model.errors import Unavailable
from bot.model.options import ChatDefaults
from bot.model.outbox import Outgoing
from bot.model.table import TableStatus
from bot.service.changes import DailyChange, Refusal, Refused
from bot.service.history import History
from bot.service.review import Reviews
from bot.service.unit import Tables
from bot.storage.daily import DailyStore
from bot.storage.db import Conn

log = logging.getLogger(__name__)

RECENT_DAYS = 30  # a group's matches this recent give its hands of the day
REVIEWS_READ = 60  # of them, the newest reviews read
TRIED = 6  # positions of the group's tried at most in one round before the bank
REJECTED_KEPT = 100_000  # positions remembered as no question (then forgotten, all at once)
LOOK_EVERY = 30.0  # seconds between looks at the groups' hours (a close or a post due)


def posed(options: dict[str, object], codes: list[str], seat: int, step: int, seed: str) -> str:
    """The puzzle of a decision and what happened, as JSON ("" if it makes no question): run in
    the reviews' process (a few hundred playouts)."""
    config = MatchConfig.of(options)
    found = position(config, [parse_any(c) for c in codes], seat, step)
    if found is None:
        return ""
    obs, outcome = found
    if not askable(obs):
        return ""
    puzzle = pose(obs, seed)
    if not puzzle.good:
        return ""  # (no clear answer, or only the mazo is wrong: no question)
    return codec.dumps({"puzzle": puzzle.to_json(), "outcome": outcome.to_json()})


def zone_of(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def month_start(now: float, zone: tzinfo) -> float:
    local = datetime.fromtimestamp(now, zone)
    return local.replace(day=1, hour=0, minute=0, second=0, microsecond=0).timestamp()


class Daily:
    def __init__(
        self,
        tables: Tables,
        history: History,
        reviews: Reviews,
        *,
        clock: Callable[[], float] = time.time,
        zone: str = "America/Argentina/Buenos_Aires",
        language: str = "es",
    ) -> None:
        self.tables = tables
        self.history = history
        self.reviews = reviews
        self.store = DailyStore(tables.store.db)
        self.clock = clock
        self.zone = zone  # the operator's, for a group that chose none
        self.language = language  # the operator's, for a group that chose none
        self._next_look = 0.0
        self._task: asyncio.Task[None] | None = None
        self.rounds = 0  # rounds done (tests wait on it)
        self._rejected: set[str] = set()  # positions that make no good question

    # -- the sweep -----------------------------------------------------------------------------
    def sweep(self) -> None:
        """From the core's sweep: a round of closes and posts when one is due (in a task of its
        own: posing a hand takes a few hundred playouts off the loop; the sweep goes on)."""
        now = self.clock()
        if self.busy() or now < self._next_look:
            return
        self._next_look = now + LOOK_EVERY
        self._task = asyncio.get_running_loop().create_task(self._round(now))

    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    async def idle(self) -> None:
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)

    def look_now(self) -> None:
        """The next sweep looks at once (the clock moved, a group chose its hour)."""
        self._next_look = 0.0

    async def _round(self, now: float) -> None:
        try:
            for hand_id in await self.store.due(now):
                await self.close(hand_id)
            for chat_id, hour, chosen_at, defaults, language in await self.store.groups():
                name = self._zone(defaults)
                day = self.day_due(now, hour, zone_of(name), chosen_at)
                if day is not None and await self.store.of_day(chat_id, day) is None:
                    await self.post(chat_id, day, language or self.language, name)
        except (Refusal, Unavailable) as error:  # the next round comes back to it
            log.info("la mano del día not done now: %s", error)
        except Exception:
            log.exception("la mano del día failed")
        finally:
            self.rounds += 1

    def _zone(self, defaults: str) -> str:
        """A group's time zone's name (the operator's unless it chose one)."""
        return ChatDefaults(dict(codec.loads(defaults))).options().zone or self.zone

    @staticmethod
    def day_due(now: float, hour: int, zone: tzinfo, chosen_at: float = 0.0) -> str | None:
        """The group's date whose hand is due now (its hour passed, by less than LATE_SECONDS,
        and after the group chose it: tapping through the hours in /config posts nothing), or
        None."""
        local = datetime.fromtimestamp(now, zone)
        for back in (0, 1):  # (an hour late in the evening is due past midnight too)
            day = (local - timedelta(days=back)).date()
            at = datetime(day.year, day.month, day.day, hour, tzinfo=zone).timestamp()
            if chosen_at <= at <= now < at + LATE_SECONDS:
                return day.isoformat()
        return None

    # -- posting -------------------------------------------------------------------------------
    async def post(
        self, chat_id: int, day: str, language: str, zone: str = ""
    ) -> DailyHand | None:
        """The group's hand of `day`: posed from its reviewed matches, else from the bank, and
        posted (None if another worker posted it first)."""
        used = await self.store.used(chat_id)
        found = await self._from_group(chat_id, used) or await self._from_bank(chat_id, used)
        if found is None:
            return None
        source, game_id, user_id, data = found
        now = self.clock()
        told = {**codec.loads(data), "zone": zone}  # (its closing hour is told in the group's)
        hand = DailyHand(0, chat_id, day, source, game_id, user_id, told, language, now,
                         now + OPEN_SECONDS)  # fmt: skip
        async with self.tables.store.db.transaction() as conn:
            hand_id = await self.store.insert(conn, hand)
            if hand_id is None:
                return None
            hand = replace(hand, id=hand_id)
            change = DailyChange(hand, DailyNote.POSTED)
            rows = await self._rows(conn, change)
        self.tables.changes.committed(change, rows)
        log.info("la mano del día %s posted in %s (%s)", hand.id, chat_id, source)
        return hand

    async def _from_group(
        self, chat_id: int, used: set[str]
    ) -> tuple[str, int, int, str] | None:
        since = self.clock() - RECENT_DAYS * 86400
        # The match posed from least often first, then the costliest moment: a week reads
        # several matches rather than drawing one dry (a reading of a week: three of five days
        # from one match, two closing alike, "era una mano de Ana (partida 1)").
        drawn = Counter(source.split(":")[1] for source in used if source.startswith("g:"))
        moments: list[tuple[int, float, str, int, int, int, int]] = []
        for game_id, user_id, text in await self.store.reviewed(chat_id, since, REVIEWS_READ):
            found = Review.from_json(codec.loads(text))
            for m in (*found.slips, *found.praise):
                source = f"g:{game_id}:{m.step}"
                # (a moment whose two moves the review weighed lie less than a good question's
                # margin apart is seldom one: not posed)
                fit = abs(m.cost) >= MARGIN and source not in self._rejected
                if source not in used and fit:
                    moments.append((drawn[str(game_id)], -abs(m.cost), source, game_id, user_id,
                                    found.seat, m.step))  # fmt: skip
        moments.sort()
        tried = 0
        for _, _, source, game_id, user_id, seat, step in moments:
            if tried >= TRIED:
                break
            tried += 1
            table = await self.history.table(game_id)
            if table is None or table.status is not TableStatus.FINISHED:
                continue  # (never a match still in play)
            codes = [code for _, _, code in await self.history.store.action_log(game_id)]
            data = await self.reviews.run(
                posed, table.config.options(), codes, seat, step, f"daily:{source}"
            )
            if data:
                return source, game_id, user_id, data
            self._no_question(source)
        return None

    async def _from_bank(self, chat_id: int, used: set[str]) -> tuple[str, None, None, str] | None:
        positions = bank()
        start = chat_id % len(positions)  # (groups do not all walk the bank in step)
        for offset in range(len(positions)):
            index = (start + offset) % len(positions)
            source = f"b:{index}"
            if source in used:
                continue
            p = positions[index]
            data = await self.reviews.run(
                posed, p.config.options(), list(p.log), p.seat, p.step, f"daily:{source}"
            )
            if data:
                return source, None, None, data
        return None

    def _no_question(self, source: str) -> None:
        """A position found to make no good question (posing it again gives the same numbers:
        it is not posed again by this process)."""
        if len(self._rejected) >= REJECTED_KEPT:
            self._rejected.clear()
        self._rejected.add(source)

    async def _rows(self, conn: Conn, change: DailyChange) -> list[Outgoing]:
        planned = await self.tables.changes.plan(change)
        rows = [p for p in planned if isinstance(p, Outgoing)]
        if rows:
            await self.tables.outbox.enqueue(conn, rows)
        return rows

    # -- answers -------------------------------------------------------------------------------
    async def get(self, hand_id: int) -> DailyHand | None:
        return await self.store.get(hand_id)

    async def answer(self, hand_id: int, chat_id: int, user_id: int, choice: int) -> Reply:
        """A member's answer: the first one counts; after the close, refused."""
        hand = await self.store.get(hand_id)
        if hand is None or hand.chat_id != chat_id:
            raise Refusal(Refused.DAILY_GONE)
        puzzle = Puzzle.from_json(dict(hand.data["puzzle"]))
        if not 0 <= choice < len(puzzle.choices):
            raise Refusal(Refused.BAD_BUTTON)
        now = self.clock()
        before = await self.store.choice_of(hand_id, user_id)
        if before is not None:
            return Reply(before, False, hand)
        if not hand.open_at(now):
            raise Refusal(Refused.DAILY_CLOSED)
        try:
            async with self.tables.store.db.transaction() as conn:
                took = await self.store.answer(
                    conn, hand_id, user_id, choice, choice in puzzle.right, now
                )
                rows: list[Outgoing] = []
                change = DailyChange(replace(hand, answers=hand.answers + 1), DailyNote.ANSWERED)
                if took:
                    rows = await self._rows(conn, change)
        except Unavailable as error:
            raise Refusal(Refused.DB_BUSY) from error
        if not took:  # (answered a moment ago by another tap of theirs, or closed meanwhile)
            before = await self.store.choice_of(hand_id, user_id)
            if before is None:
                raise Refusal(Refused.DAILY_CLOSED)
            return Reply(before, False, hand)
        self.tables.changes.committed(change, rows)
        return Reply(choice, True, hand)

    # -- the close -----------------------------------------------------------------------------
    async def close(self, hand_id: int) -> bool:
        """Close a hand whose time is over: the answer told with who got it right, their
        streaks and the month's ranking (False if another worker closed it)."""
        hand = await self.store.get(hand_id)
        if hand is None or hand.closed:
            return False
        now = self.clock()
        zone = zone_of((await self._group_zone(hand.chat_id)) or self.zone)
        named = hand.user_id is not None and await self.store.named(hand.user_id)
        async with self.tables.store.db.transaction() as conn:
            if not await self.store.close(conn, hand_id, now):
                return False
            answers = await self.store.answers(conn, hand_id)
            hands = await self.store.closed_hands(conn, hand.chat_id)
            runs = []
            for a in answers:
                if a.right:
                    rights = await self.store.rights(conn, hand.chat_id, a.user_id)
                    runs.append((a.user_id, streaks(hands, rights)[0]))
            since = month_start(hand.posted_at, zone)
            month = await self.store.standings(conn, hand.chat_id, since)
            closing = Closing(tuple(answers), tuple(runs), tuple(month[:MONTH_SHOWN]), named)
            closed = replace(hand, closed_at=now, answers=len(answers))
            change = DailyChange(closed, DailyNote.CLOSED, closing)
            rows = await self._rows(conn, change)
        self.tables.changes.committed(change, rows)
        return True

    async def _group_zone(self, chat_id: int) -> str:
        return (await self.tables.store.chat_defaults(chat_id)).options().zone

    # -- a person's numbers --------------------------------------------------------------------
    async def tally(self, chat_id: int, user_id: int) -> Tally:
        """A person's hands of the day in a group: answered, right, the streak, this month."""
        hands = await self.store.closed_hands(None, chat_id)
        rights = await self.store.rights(None, chat_id, user_id)
        now, best = streaks(hands, rights)
        zone = zone_of((await self._group_zone(chat_id)) or self.zone)
        month = await self.store.standings(
            None, chat_id, month_start(self.clock(), zone), user_id
        )
        return Tally(len(rights), sum(rights.values()), now, best, month[0] if month else None)

    async def named(self, user_id: int) -> bool:
        return await self.store.named(user_id)

    async def set_named(self, user_id: int, named: bool) -> None:
        await self.store.set_named(user_id, named)
