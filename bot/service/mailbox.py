"""The core's mailbox: delivers the outbox, one lane per chat, paced, after the commit that
wrote it, through a front end's `deliver` (the Telegram adapter's).

Everything the bot says is first a row in the database (see `bot.storage.outbox`), written in
the same transaction as the change that caused it; this module hands it to the front end. A
lane is owned by one sender at a time (a lease in `lanes`), delivers its rows in order (posts
first, then urgent refreshes, then the rest) and keeps its chat's pace, which the front end
says (`Pacing`: what kind of place a chat is is the front end's to know, never the mailbox's):
a place many see (a Telegram group) leaves `LanePolicy.interval` seconds between calls, a pace
kept in the database so that a restart does not burst. A row is marked
sent in a transaction after the front end's call succeeded: a crash in between sends it once
more, nothing else does.

What a failed call means is the front end's to say (`Judge`): a pause it was asked for is
waited out in its own lane (other chats go on), a passing fault is retried with a growing
pause, and a call refused is logged and dropped so it cannot block the lane.
A person's lane (a private chat) keeps a pace for one chat (Telegram's: about a call a
second): a small burst goes at once, then the lane waits its turn (`LanePolicy.per_second`,
`burst`), and what waits coalesces (a hand edited five times while it waits goes out once, as
it is now).

The bot's overall budget (`overall_per_second`, Telegram's 30 a second) is a ceiling: no call
goes out over it, urgent or not (`_Budget`: calls counted in a sliding window, from when each
was let go until a window after it ended). With several senders (PostgreSQL) it is split among
the live ones by load, each renewing its row in `senders` every `beat` with its load and its
share (`_heartbeats`, `split`): a sender with more to send takes more, only what the others'
shares leave free; a sender that dies gives its part up when its row expires, within a lease.
What waits for the budget goes by deadline (when it began to wait plus its `rank`'s
`ALLOWANCE`): the hand of whoever must act now, the tapper's, the boards, then everyone else's
hands, none of them later than its allowance plus the calls already waiting then (the bound,
stated at `ALLOWANCE`); a table's first deal ahead of all (`LEAD`). Rows coalesce while they
wait, and a board or hand is rendered when it goes, in its latest state.

Several processes (PostgreSQL): a lane stays with the sender that claimed it (renewed while it
works, let go when it stops, and still its own while its heartbeat says it lives, even past the
lane's lease: a call that outlasts the lease is in flight, and another sender taking the lane
would send it twice); another process that writes rows for it tells it in the same
statement (a notice on the owner's channel, heard on a connection that LISTENs), and wakes a
lane it cannot claim again when the owner's lease ends (the owner may have died). Polling for
lanes with work is then only a slow safety net (`SAFETY_POLL`); while notices cannot be heard
(the listening connection lost) the sender polls as often as `poll` and lets each lane go when
it is empty, as it must without them.

Every time a sender shares with the others or compares with theirs (a lease, a heartbeat's
end, a lane's pace, a row's stamp) is on the database's clock (`Database.now`), never on the
machine's own: a worker whose clock ran 30 s ahead saw the others' heartbeats as ended, took
every lane and the whole budget, and the others, left a share of 0, sent nothing. Waits inside
one process (the budget's window, its fence, what waits in line) are on the monotonic clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import heapq
import itertools
import logging
import math
import time
import uuid
from collections import Counter, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.metrics import Metrics
from bot.model.outbox import (
    FIRST,
    LATER,
    POST,
    URGENT,
    WATCHED,
    Load,
    Outgoing,
    Pending,
    RowKind,
)
from bot.storage.db import Conn, Database
from bot.storage.outbox import OutboxStore, lane_channel

log = logging.getLogger(__name__)

Writer = Callable[[Conn], Awaitable[None]]
# Runs the outbox's completion writes inside a transaction of its choosing (the default opens
# one; a delivery that created a message commits its id in the same transaction).
Committer = Callable[[Writer], Awaitable[None]]

LANE_BATCH = 16  # rows read from a lane at a time
POSTS_IN_A_ROW = 3  # in a group, after this many new messages a waiting refresh (the board) goes
SAFETY_POLL = 5.0  # seconds between looks for lanes with work, while notices are heard


@dataclass
class Delivery:
    """What delivering a row did."""

    called: bool = True  # Telegram was called: the lane's pace counts it
    commit: Committer | None = None


Deliver = Callable[[Pending], Awaitable[Delivery]]


@dataclass(frozen=True)
class Verdict:
    """What a failed delivery means, as its front end judges it."""

    wait: float | None = None  # asked to wait: the row is tried again after this many seconds
    retry: bool = False  # a passing fault (the network): tried again after a growing pause
    called: bool = True  # dropped: the call was made (the lane's pace counts it)
    expected: bool = False  # dropped, and nothing to worry about (a warning, not an error)
    said: str = ""  # how the log says it


Judge = Callable[[Exception], Verdict]


def _unknown(error: Exception) -> Verdict:
    return Verdict(called=False)


@dataclass(frozen=True)
class LanePolicy:
    """How a lane keeps its chat's pace, as its front end says for that kind of place."""

    name: str  # what the metrics call it ("group", "private")
    # A place many see (a group): its rows are what it shows (a board) for the budget's ranks,
    # and its lane leaves `interval` seconds between calls, kept in the database (a restart
    # does not burst)
    shown: bool = False
    interval: float = 0.0
    # A person's chat: `burst` calls at once, then `per_second` (0: not paced), kept in memory
    per_second: float = 0.0
    burst: int = 1
    # Seconds a `WATCHED` row waits after the call for the last version of its key (0: none)
    watched: float = 0.0


class Pacing(Protocol):
    """A front end's pacing: the policy of each of its chats' lanes."""

    def lane(self, chat_id: int) -> LanePolicy: ...


# Who waits first for the overall budget when it binds (lower first; see `rank`)
TURN, OWN, GROUP, OTHERS = 0, 1, 2, 3
RANKS = 4
# Seconds a call of each rank may wait for the budget before nothing that comes after it goes
# ahead of it (its deadline: when it began to wait, plus its rank's allowance; the budget lets
# the earliest deadline go first). The bound, whatever the load: a call is let go within its
# allowance plus the time the budget takes to let go the calls already waiting then with an
# earlier deadline, at most one a chat (a lane waits with one call at a time): allowance +
# chats waiting / rate. Under a flood of turns, everyone else's hand waits 20 s more than the
# turn to show, not for ever (at 30 s a rank it could wait 90 s). A board that waits longer
# coalesces more taps into one edit, which leaves more of the budget to the turns: at 0.5, 3
# and 6 s late boards took the acting player's turn (p95 0.9-1.2 s at 100 tables); at 5 and
# 10 s, 0.4 s at 100 tables and 3.1 s at 200; at 10 and 20 s, 0.19 s and 2.2-2.4 s.
ALLOWANCE = (0.0, 1.0, 10.0, 20.0)
# A table's first deal (`FIRST`): ahead of every turn that waited less than this, and of every
# call not this far past its allowance (a person who just sat down waits for nothing).
LEAD = 2.0


# What the metrics call the rows that wait by design (`LATER`, `WATCHED`), apart from their lanes'
WAITED = {LATER: "deferred", WATCHED: "watched"}


def rank(row: Pending, shown: bool = False) -> int:
    """Where a row waits for the overall budget: a hand that notifies (whoever must act now,
    a table's first deal), then the other urgent hands (the tapper's, the acting seat's) and
    private messages, then what a group shows (its board: rendered when it goes, so a board
    that waited goes with the latest state), then everyone else's hand messages (background
    refreshes). `shown`: the row's lane is a place many see (`LanePolicy.shown`)."""
    if shown:  # (a lobby: people wait for it to sit, as for their own hand; not one in line)
        return OWN if row.kind is RowKind.LOBBY and row.priority != WATCHED else GROUP
    if row.priority == FIRST:
        return TURN
    if row.priority == URGENT:
        return TURN if row.loud else OWN
    if row.priority in (POST, LATER):  # (the tapper's own hand, once its wait is over)
        return OWN
    return OTHERS


def allowance(row: Pending, shown: bool = False, allowances: Sequence[float] = ALLOWANCE) -> float:
    """How long `row` may wait for the budget before it goes ahead of what comes after it."""
    return -LEAD if row.priority == FIRST else allowances[rank(row, shown)]


class _Budget:
    """This process's part of the bot's overall budget, a ceiling: at most `quota` calls in
    any `window` seconds, counting a call from when it was let go until `window` after it
    ended (so the calls Telegram receives within any window were all counted here at the
    moment the last of them went, whatever the latency in between). The quota is the bot's
    rate split among the live senders (`share`, set by the mailbox from their heartbeats).
    What waits goes by deadline (when it began to wait plus its rank's allowance, `ALLOWANCE`),
    then in the order it came: what is least urgent is late by its allowance, never starved
    (a lobby, a board, everyone's hand get their turn under any load)."""

    def __init__(self, per_second: float, window: float = 1.0) -> None:
        self.rate = per_second  # the bot's (0: no budget)
        self.window = window
        self.share = per_second  # this process's part, calls a second
        self.flying = 0  # calls let go and not yet ended
        self.ended: deque[float] = deque()  # when recent calls ended (monotonic)
        # what waits: (deadline, order, ticket, rank, turn), the earliest deadline first
        self._waiting: list[tuple[float, int, int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self.waited = 0  # calls that waited for the budget
        # No call is let go after this (monotonic): where the others may take this process's
        # part, because its heartbeat's row ran out unrenewed (`fence`)
        self.until = math.inf

    @property
    def quota(self) -> int:
        if time.monotonic() >= self.until:
            return 0
        return int(self.share * self.window + 1e-9)

    def fence(self, until: float) -> None:
        """Let no call go from `until` (monotonic) on, unless renewed before: a process whose
        loop is held up (a busy machine) past its heartbeat's lease must not go on sending
        under a part the others have already taken over."""
        self.until = until
        self._arm()

    def _used(self, now: float) -> int:
        while self.ended and self.ended[0] <= now - self.window:
            self.ended.popleft()
        return self.flying + len(self.ended)

    def free(self) -> bool:
        return self.rate <= 0 or (not self._waiting and self._used(time.monotonic()) < self.quota)

    def _prune(self) -> None:
        while self._waiting and self._waiting[0][-1].done():
            heapq.heappop(self._waiting)

    def _next(self) -> asyncio.Future[None] | None:
        """The turn that goes next (the earliest deadline; then first come), off the queue."""
        self._prune()
        return heapq.heappop(self._waiting)[-1] if self._waiting else None

    def ticket(self) -> int:
        """A place in the queue (first come, first served within a rank)."""
        return next(self._order)

    async def take(
        self,
        place: int,
        woken: asyncio.Future[None] | None = None,
        order: int | None = None,
        since: float | None = None,
        allowed: float | None = None,
    ) -> bool:
        """Wait for a call's turn (`place`: its rank; by its deadline, `since` plus `allowed`,
        its rank's allowance unless said, then by `order`: first come); False if `woken` came
        first (the lane has newer rows: it reads them, and what is most urgent asks again,
        keeping its `order` and `since`)."""
        if self.rate <= 0:
            return True
        if self.free():
            self.flying += 1
            return True
        self.waited += 1
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        first = self.ticket() if order is None else order
        began = time.monotonic() if since is None else since
        deadline = began + (ALLOWANCE[place] if allowed is None else allowed)
        heapq.heappush(self._waiting, (deadline, first, self.ticket(), place, turn))
        self._arm()
        try:
            if woken is None:
                await turn
            else:
                await asyncio.wait({turn, woken}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.done()
            turn.cancel()
            raise
        if turn.done():
            return True  # (let go: the call goes, its lane woken or not)
        turn.cancel()
        return False

    def done(self, called: bool = True) -> None:
        """A call let go ended (`called`: it was made; if not, its place is free at once)."""
        if self.rate <= 0:
            return
        self.flying -= 1
        if called:
            self.ended.append(time.monotonic())
        self._arm()

    def resized(self, share: float) -> None:
        """This process's part changed (a sender came or went)."""
        self.share = share
        self._arm()

    def in_use(self) -> float:
        """The part calls may go under now: none once the fence is passed (a process held up
        past its heartbeat's lease let nothing go since, whatever share it had before)."""
        return 0.0 if time.monotonic() >= self.until else self.share

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._prune()
        if not self._waiting:
            return
        now = time.monotonic()
        used, quota = self._used(now), self.quota
        if used < quota:
            delay = 0.0
        elif quota <= 0 or len(self.ended) <= used - quota:
            return  # waits for calls in flight to end, or for a share (both arm again)
        else:
            delay = self.ended[used - quota] + self.window - now  # (the one that must expire)
        self._timer = asyncio.get_running_loop().call_later(max(0.0, delay), self._let_go)

    def _let_go(self) -> None:
        self._timer = None
        now = time.monotonic()
        while self._waiting and self._used(now) < self.quota:
            turn = self._next()
            if turn is None:
                break
            turn.set_result(None)
            self.flying += 1
        self._arm()

    def demand(self) -> float:
        """This process's load: the calls counted in the window now and those waiting."""
        if self.rate <= 0:
            return 0.0
        return float(self._used(time.monotonic()) + len(self._waiting))

    def queued(self) -> tuple[int, ...]:
        """The calls waiting for their turn, by rank (`TURN` .. `OTHERS`). By their own rank,
        not their deadline: the senders split the budget so that the turns to show go first
        wherever they wait (`split`); each sender's deadlines order its own part."""
        counts = [0] * RANKS
        for _, _, _, place, turn in self._waiting:
            if not turn.done():
                counts[place] += 1
        return tuple(counts)

    def spent(self) -> float:
        """The share of the budget in use now (0: none; 1: calls wait for their turn)."""
        if self.rate <= 0:
            return 0.0
        quota = self.quota
        if quota <= 0:
            return 1.0
        return min(1.0, self._used(time.monotonic()) / quota)


FLOOR = 2.0  # calls a second an idle sender keeps, so that its first calls need not wait
BEAT = 0.25  # seconds between a sender's heartbeats (see `Mailbox.beat`)


def split(rate: float, mine: Load, others: list[tuple[Load, float]]) -> float:
    """This sender's part of the bot's `rate`: a small floor each; then rank by rank, what
    waits at that rank across the senders (the turns to show first: `rank`), each taking its
    own waiting calls' part of what is left; what no rank asks for by load, `demand` + 1
    (idle senders share evenly). Never more than the others' shares leave free. `others`:
    each other live sender's (load, share).

    By rank, because a split by load alone let the budget follow the calls, not the ones
    that matter: a sender with a long queue of others' hands took most of it while the turns
    to show waited on the other sender (docs/operations.md, "Admission")."""
    n = len(others) + 1
    floor = min(rate / n, FLOOR)
    left = rate - floor * n
    loads = [mine, *(load for load, _ in others)]
    part = floor
    for r in range(RANKS):
        asked = sum(load.at(r) for load in loads)
        if asked <= 0 or left <= 0:
            continue
        given = min(left, asked)
        part += given * mine.at(r) / asked
        left -= given
    if left > 0:
        weights = sum(load.demand + 1.0 for load in loads)
        part += left * (mine.demand + 1.0) / weights
    free = rate - sum(share for _, share in others)
    return max(0.0, min(part, free))


@dataclass
class _Unwritten:
    """A row Telegram took whose completion the database has not recorded yet."""

    row: Pending
    delivery: Delivery
    writer: Writer
    next_at: float | None = None  # the lane's next call, kept in the database with it
    failures: int = 0


class _Gather:
    """Several lanes' statements of one turn of the event loop, made as one (PostgreSQL: one
    round trip where each lane took its own). A commit wakes its lanes together, and they read
    their rows together; rows sent about the same moment are marked sent together."""

    def __init__(
        self, run: Callable[[list[Any]], Awaitable[list[Any]]], window: float = 0.0
    ) -> None:
        self._run = run
        self.window = window  # seconds to wait for more requests (0: this turn of the loop)
        self._waiting: list[tuple[Any, asyncio.Future[Any]]] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self.calls = 0  # statements made (each for `asked` requests in all)
        self.asked = 0

    async def ask(self, request: Any) -> Any:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[Any] = loop.create_future()
        if not self._waiting:
            loop.call_soon(self._flush)
        self._waiting.append((request, answer))
        return await answer

    def _flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        if waiting:
            task = asyncio.get_running_loop().create_task(self._answer(waiting))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _answer(self, waiting: list[tuple[Any, asyncio.Future[Any]]]) -> None:
        self.calls += 1
        self.asked += len(waiting)
        try:
            answers = await self._run([request for request, _ in waiting])
        except BaseException as error:
            for _, answer in waiting:
                if not answer.done():
                    answer.set_exception(error if isinstance(error, Exception) else RuntimeError())
            if not isinstance(error, Exception):
                raise
            return
        for (_, answer), found in zip(waiting, answers, strict=True):
            if not answer.done():
                answer.set_result(found)

    def cancel(self) -> None:
        for task in self._tasks:
            task.cancel()


class _Pace:
    """A private chat's pace: `burst` calls at once, then one every `1 / per_second` seconds
    (the generic cell rate algorithm: `due` is when the bucket would be full again)."""

    def __init__(self, per_second: float, burst: int) -> None:
        self.every = 1.0 / per_second
        self.slack = (max(1, burst) - 1) * self.every
        self.due = 0.0  # the database's clock (`Mailbox.now`)

    def called(self, now: float) -> float:
        """A call went out at `now`: when the next one may go."""
        self.due = max(self.due, now) + self.every
        return self.due - self.slack

    def idle(self, now: float) -> bool:
        return self.due <= now


class _Lane:
    def __init__(self, chat_id: int, policy: LanePolicy) -> None:
        self.chat_id = chat_id
        self.policy = policy
        self.interval = policy.interval
        # a person's chat's pace (None: not paced, or a place's `interval`)
        pace = _Pace(policy.per_second, policy.burst) if policy.per_second > 0 else None
        self.pace = pace
        self.task: asyncio.Task[None] | None = None
        self.dirty = False
        self.next_at = 0.0  # the database's clock: the lane's pace is shared through it
        self.lease_until = 0.0
        self.failures = 0
        self.retry = False  # the last call must be tried again: read the lane anew
        self.woken: asyncio.Future[None] | None = None  # set while a row waits for the budget
        self.place: int | None = None  # its place in the budget's queue, kept while woken
        self.since = 0.0  # when it began to wait for the budget (monotonic), kept with it
        self.posts = 0  # new messages sent in a row (a paced group's board gets its turn)
        self.unwritten: _Unwritten | None = None  # delivered, its completion not yet recorded
        self.noticed = 0.0  # when another process's notice about this lane arrived (0: none)
        self.timer: asyncio.TimerHandle | None = None  # wake when another's lease ends
        # when each key's last version was called for (the database's clock): a `WATCHED` row
        # waits `policy.watched` from it (kept in memory: a restart sends one at once)
        self.watched_at: dict[str, float] = {}
        self.held_until = 0.0  # its last read found only rows waiting on purpose, until then

    def watching(self, now: float) -> bool:
        """A `WATCHED` row of this lane may still be waiting out its window."""
        return any(at + self.policy.watched > now for at in self.watched_at.values())


class Mailbox:
    def __init__(
        self,
        db: Database,
        pacing: Pacing,
        overall_per_second: float = 30.0,
        *,
        budget_window: float = 1.0,
        budget_allowance: Sequence[float] = ALLOWANCE,
        owner: str | None = None,
        lease: float = 15.0,
        poll: float = 1.0,
        store: OutboxStore | None = None,
        judge: Judge = _unknown,
        metrics: Metrics | None = None,
        defer: float = 0.0,
        defer_above: float = 0.0,
    ) -> None:
        self.db = db
        # The clock of every time this sender shares with others (leases, heartbeats, a lane's
        # pace, the rows' stamps) and compares with theirs: the database's, never this
        # machine's own (a worker whose clock ran ahead took every lane and the whole budget)
        self.now = db.now
        self.judge = judge
        self.metrics = metrics
        self.owner = owner or (store.owner if store else uuid.uuid4().hex)
        # shared with the core's commits (what they learned of other senders' lanes)
        self.store = store or OutboxStore(db, self.owner)
        self.pacing = pacing  # the front end's: each chat's lane's policy
        # Seconds a `LATER` row waits from its last write before it goes (a write that is not
        # `LATER`, while it waits, makes it go at once: the priority kept is the most urgent)
        self.defer = defer
        # ... only while this sender's part of the budget is used above this share: below it
        # the budget has room, and a wait would save nothing (a quiet night edits it at once)
        self.defer_above = defer_above
        self.lease = lease
        self.poll = poll
        self.deliver: Deliver | None = None
        self._budget = _Budget(overall_per_second, budget_window)
        self.allowances = budget_allowance  # (a test's, shorter)
        # seconds between this sender's heartbeats (several a lease): how late its part of the
        # budget follows what waits, and how long a part it gave up still counts as its own
        # (`_claim`: a beat more than Telegram's window). At 1 s the budget followed the turns
        # to show between two workers a second or two late (docs/operations.md, "Admission").
        self.beat = min(BEAT, lease / 5)
        self.senders = 1  # the live senders the budget is split among, as last seen
        self._shares: deque[tuple[float, float]] = deque()  # (when, share) chosen lately
        self._beats: asyncio.Task[None] | None = None
        if metrics is not None:
            metrics.watch(self._budget.spent, lambda: len(self.held()))
        self._lanes: dict[int, _Lane] = {}
        self._closed = False
        self._poller: asyncio.Task[None] | None = None
        self._idle = asyncio.Event()
        self._idle.set()
        self._running = 0  # lane tasks running (a count: no scan of every lane ever seen)
        # PostgreSQL: lanes read, and rows marked sent, several at a time (see `_Gather`)
        self._reads = {last: _Gather(self._read_lanes(last)) for last in (False, True)}
        # (waiting a moment for more gathered more rows a statement, and was no cheaper:
        # docs/performance.md)
        self._completes = _Gather(self._complete_rows)
        # Rows another process wrote for a lane of ours: how many took each whole number of ms
        # from their commit to our reading them (the cross-process delivery delay, a histogram;
        # bench/stack.py reports it).
        self.delays: Counter[int] = Counter()

    # -- writing ---------------------------------------------------------------------------------
    async def write(self, conn: Conn, rows: list[Outgoing]) -> None:
        """Inside the caller's transaction; call `wake` after it commits."""
        await self.store.enqueue(conn, rows)

    async def send(self, rows: list[Outgoing], also: Writer | None = None) -> None:
        """Rows that change nothing else (a reply to a command), with `also`'s writes: their own
        transaction."""
        if not rows and also is None:
            return
        async with self.db.transaction() as conn:
            if also is not None:
                await also(conn)
            await self.write(conn, rows)
        self.wake(rows)

    def wake(self, rows: Sequence[Outgoing]) -> None:
        for chat_id in {row.chat_id for row in rows}:
            self.wake_chat(chat_id)

    def wake_chat(self, chat_id: int) -> None:
        if self._closed or self.deliver is None:
            return
        lane = self._lanes.get(chat_id)
        if lane is None:
            lane = self._lanes[chat_id] = _Lane(chat_id, self.pacing.lane(chat_id))
        lane.dirty = True
        if lane.woken is not None and not lane.woken.done():
            lane.woken.set_result(None)  # what came may be urgent: it must not wait behind
        if lane.task is None or lane.task.done():
            self._idle.clear()
            self._running += 1
            lane.task = asyncio.get_running_loop().create_task(self._run(lane))

    # -- running ---------------------------------------------------------------------------------
    def start(self, deliver: Deliver) -> None:
        """Deliver what is waiting (left by a crash, or by another process) and keep looking."""
        self.deliver = deliver
        if self.db.shared:
            self.db.listen(lane_channel(self.owner), self._notice, self._heard_again)
        self._poller = asyncio.get_running_loop().create_task(self._poll())
        if self.db.shared and self._budget.rate > 0:
            # Several senders share the bot's budget: none sends before it has its part
            self._budget.resized(0.0)
            self._beats = asyncio.get_running_loop().create_task(self._heartbeats())

    async def _heartbeats(self) -> None:
        """Renew this sender's row in `senders`, with its load, and take its part of the bot's
        budget by load (`split`): a sender with more calls to make takes more, and only what
        the others' shares leave free. A share written is never less than what this sender
        may still have counting in Telegram's window (`_claim`), so the shares add up to the
        bot's rate at most whatever the moment. A sender that comes starts with nothing and
        takes what the others free at their next beats; one that dies without a word gives
        its part up when its row expires (within a lease); one that cannot renew its row
        stops sending before that row expires, since the others then take its part."""
        alive_until = 0.0
        while not self._closed:
            now = self.now()
            load = Load(self._budget.demand(), tuple(map(float, self._budget.queued())))
            chosen: list[float] = []
            choose = functools.partial(self._choose, load, chosen)
            try:
                live = await self.store.beat(self.owner, now, self.lease, load, choose)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("could not renew this sender's heartbeat", exc_info=True)
                if self.now() >= alive_until - self.beat - self._budget.window:
                    self._budget.resized(0.0)
                await asyncio.sleep(self.beat)
                continue
            alive_until = now + self.lease
            self.senders = max(1, live)
            # Its row runs out at `alive_until` (the database's clock): after that the others
            # may take this part. A call let go counts in Telegram's window until a window
            # after it ends, so none goes later than that before the end (half a second for
            # latency)
            ends = alive_until - self._budget.window - 0.5 - self.now()
            self._budget.fence(time.monotonic() + ends)
            self._budget.resized(chosen[-1])
            await asyncio.sleep(self.beat)

    def _choose(self, load: Load, chosen: list[float], others: list[tuple[Load, float]]) -> float:
        share = split(self._budget.rate, load, others)
        chosen.append(share)
        # (stamped when it is chosen, after the beat's wait for its lock, not at its start)
        return self._claim(share, self.now())

    def _claim(self, share: float, now: float) -> float:
        """The share to write: `share`, or more while calls made under a larger one may still
        count in Telegram's window (the window, a beat and half a second of latency). The part
        in use now counts as of now: beats that failed (their choices neither written nor
        used) must not let it age out of the record while it is still the one in use, or the
        next beat would write less than this sender still sends at, and the others take the
        difference (seen as 429s once beats could fail waiting for their lock). A part behind
        a passed fence is not in use: a process held up past its lease and running again
        would otherwise write its old part back over what the others took meanwhile."""
        self._shares.append((now, max(share, self._budget.in_use())))
        keep = now - self._budget.window - self.beat - 0.5
        while len(self._shares) > 1 and self._shares[0][0] < keep:
            self._shares.popleft()
        return max(s for _, s in self._shares)

    @property
    def _sticky(self) -> bool:
        """Lanes stay with this sender between deliveries: others tell it when they write."""
        return self.db.shared and self.db.listening

    def _notice(self, payload: str) -> None:
        """Another process wrote rows for lanes of ours (committed now): "chat,chat,..."."""
        try:
            chats = [int(chat) for chat in payload.split(",")]
        except ValueError:
            log.warning("a notice that names no chat: %r", payload[:40])
            return
        for chat_id in chats:
            self.wake_chat(chat_id)
            lane = self._lanes.get(chat_id)
            if lane is not None and not lane.noticed:
                lane.noticed = self.now()

    def _heard_again(self) -> None:
        """Listening (again): whatever was said while it was not is found by looking now."""
        if not self._closed and self.deliver is not None:
            asyncio.get_running_loop().create_task(self._look())

    async def _look(self) -> None:
        try:
            for chat_id in await self.store.lanes_with_work(self.owner, self.now()):
                lane = self._lanes.get(chat_id)
                if lane is None or lane.task is None or lane.task.done():
                    self.wake_chat(chat_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("outbox poll failed")

    def _read_lanes(self, posts_last: bool) -> Callable[[list[Any]], Awaitable[list[Any]]]:
        async def read(chats: list[Any]) -> list[Any]:
            found = await self.store.lanes_rows(chats, LANE_BATCH, posts_last=posts_last)
            return [found[chat] for chat in chats]

        return read

    async def _complete_rows(self, done: list[Any]) -> list[Any]:
        await self.store.complete_many(done, self.owner)
        return [None] * len(done)

    async def _lane_rows(self, chat_id: int, posts_last: bool) -> list[Pending]:
        if not self.db.shared:  # (SQLite: a statement on the loop's thread, no round trip)
            return await self.store.lane_rows(chat_id, LANE_BATCH, posts_last=posts_last)
        rows: list[Pending] = await self._reads[posts_last].ask(chat_id)
        return rows

    def _wake_at(self, lane: _Lane, at: float) -> None:
        """Look at the lane again at `at` (the database's clock): when another sender's lease
        ends."""
        if lane.timer is not None:
            lane.timer.cancel()
        delay = max(0.0, at - self.now()) + 0.05
        lane.timer = asyncio.get_running_loop().call_later(delay, self.wake_chat, lane.chat_id)

    def _forget_idle(self) -> None:
        """Lanes with nothing running, whose lease and pace are past, are forgotten (a chat
        seen once is not carried forever; what matters of it is in the database)."""
        now = self.now()
        for chat_id, lane in list(self._lanes.items()):
            done = lane.task is None or lane.task.done()
            paced = lane.pace is not None and not lane.pace.idle(now)
            if (
                done
                and not lane.dirty
                and lane.lease_until <= now
                and lane.next_at <= now
                and not paced
                and not lane.watching(now)
            ):
                del self._lanes[chat_id]

    async def _poll(self) -> None:
        while not self._closed:
            self._forget_idle()
            await self._look()
            await asyncio.sleep(max(self.poll, SAFETY_POLL) if self._sticky else self.poll)

    async def _own(self, lane: _Lane) -> bool:
        now = self.now()
        if lane.lease_until - now > self.lease / 2:
            return True
        if lane.lease_until > 0 and not self.db.shared:
            # Nobody else sends from this database: once claimed, the lane is ours until this
            # process stops (and the same worker id claims it again at the next start).
            lane.lease_until = now + self.lease
            return True
        held = self.store.elsewhere.get(lane.chat_id, 0.0)
        if held > now and self._sticky:
            # Another sender holds it and was told of our rows by the commit that wrote them;
            # if it died, its lease ends: look again then.
            self._wake_at(lane, held)
            return False
        next_at = await self.store.claim(lane.chat_id, self.owner, now, self.lease)
        if next_at is None:
            return False
        lane.lease_until = now + self.lease
        lane.next_at = max(lane.next_at, next_at)
        return True

    async def _run(self, lane: _Lane) -> None:
        try:
            while not self._closed:
                lane.dirty = False
                if lane.unwritten is not None:
                    wait = lane.next_at - self.now()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    if not await self._write_done(lane):
                        continue  # nothing else goes out of this lane until it is recorded
                if not await self._own(lane):
                    return  # another sender runs this lane
                if lane.pace is not None and (wait := lane.next_at - self.now()) > 0:
                    # the chat's pace: wait before reading, so that what goes next is the most
                    # urgent row then, in its newest version
                    await asyncio.sleep(wait)
                    lane.dirty = False
                overdue = lane.interval > 0 and lane.posts >= POSTS_IN_A_ROW
                rows = self._due(lane, await self._lane_rows(lane.chat_id, overdue))
                if lane.noticed:
                    self._delays(lane, rows)
                if overdue:
                    rows = rows[:1]  # the refresh first, then posts again
                    lane.posts = 0
                if not rows:
                    if lane.dirty:
                        continue
                    if self.db.shared and not self._sticky:
                        # Other processes write to this lane too and cannot tell us: free it
                        # now rather than at the lease's end, so the next one to write can
                        # send at once.
                        await self.store.release(lane.chat_id, self.owner)
                        lane.lease_until = 0.0
                    return
                for row in rows:
                    await self._one(lane, row)
                    lane.posts = lane.posts + 1 if row.priority == POST else 0
                    if lane.interval > 0 and lane.posts >= POSTS_IN_A_ROW:
                        break  # give a waiting refresh its turn
                    if lane.dirty or lane.retry or self._closed:
                        break  # new rows may go first; a failed call is tried again
                    if lane.pace is not None and lane.next_at > self.now():
                        break  # the chat's pace: read again when it is this lane's turn
                else:
                    whole = not overdue and len(rows) < LANE_BATCH  # the lane read to its end
                    if (self._sticky or not self.db.shared) and not lane.dirty and whole:
                        # Whoever writes rows for this lane wakes it (this process) or tells it
                        # (another, by a notice): nothing came, so the lane is empty without
                        # asking again.
                        return
                lane.retry = False
        finally:
            self._running -= 1
            if self._running == 0:
                self._idle.set()

    def _due(self, lane: _Lane, rows: list[Pending]) -> list[Pending]:
        """The rows that may go now: a `LATER` row (a hand the planner chose to hold: at a
        1v1 always, in teams while the budget is `crowded`) waits `defer` seconds from its
        last write; a `WATCHED` row, its lane's `watched` seconds from the call for its key's
        last version (the lane looks again then), at any load (what it saves is the group's
        and the bot's calls)."""
        now = self.now()
        until: dict[int, float] = {}  # row id -> when it may go
        # (which hands wait is the planner's choice: `crowded` at the time of the tap)
        if self.defer > 0 and any(row.priority == LATER for row in rows):
            for row in rows:
                if row.priority == LATER:
                    until[row.id] = row.created_at + self.defer
        if lane.policy.watched > 0:
            for row in rows:
                if row.priority == WATCHED and row.key in lane.watched_at:
                    until[row.id] = lane.watched_at[row.key] + lane.policy.watched
        waiting = [at for at in until.values() if at > now]
        if not waiting:
            lane.held_until = 0.0
            return rows
        self._wake_at(lane, min(waiting))
        due = [r for r in rows if until.get(r.id, now) <= now]
        lane.held_until = 0.0 if due else min(waiting)
        return due

    def _delays(self, lane: _Lane, rows: list[Pending]) -> None:
        """Rows read after another process's notice: how long after their commit (rows
        waiting for the lane's pace are not counted: they wait by design)."""
        lane.noticed = 0.0
        now = self.now()
        for row in rows:
            if row.created_at >= lane.next_at:
                self.delays[int(1000 * (now - row.created_at))] += 1

    async def _one(self, lane: _Lane, row: Pending) -> None:
        wait = lane.next_at - self.now()
        if wait > 0:
            await asyncio.sleep(wait)
        if not await self._take(lane, row):
            return  # woken while waiting for the budget: read the lane again, urgent rows first
        # A row that waited long for its turn: the lane must still be ours (else another
        # sender took it over, and sends this row)
        renew = self.db.shared and lane.lease_until - self.now() < self.lease / 2
        lapsed = lane.lease_until <= self.now()
        if renew and not await self._owned_still(lane):
            self._budget.done(called=False)
            lane.retry = True
            return
        if renew and lapsed and not await self._waits_still(lane, row):
            # Its lease ran out while it waited: another sender may have sent it meanwhile
            self._budget.done(called=False)
            lane.retry = True
            return
        if time.monotonic() >= self._budget.until:
            # held up past its fence while it looked (a busy machine): its part may be the
            # others' now; it asks again at its next heartbeat's part
            self._budget.done(called=False)
            lane.retry = True
            return
        assert self.deliver is not None
        try:
            delivery = await self.deliver(row)
        except asyncio.CancelledError:
            self._budget.done()
            raise
        except Exception as error:
            verdict = self.judge(error)
            self._budget.done(verdict.called or verdict.wait is not None or verdict.retry)
            if verdict.wait is not None:
                log.warning("%s in chat %s: waiting %.1f s", verdict.said, lane.chat_id,
                            verdict.wait)  # fmt: skip
                lane.next_at = self.now() + verdict.wait + 0.1
                lane.retry = True
                return  # the row stays; the lane tries it again after the pause
            if verdict.retry:  # a timeout or a dropped connection: the row stays
                lane.failures += 1
                pause = min(30.0, 0.25 * 2**lane.failures)
                log.warning("call in chat %s failed (%s), again in %.1f s", lane.chat_id,
                            verdict.said, pause)  # fmt: skip
                lane.next_at = self.now() + pause
                lane.retry = True
                return
            if verdict.expected:
                log.warning("call refused in chat %s (%s): dropped a %s", lane.chat_id,
                            verdict.said, row.kind)  # fmt: skip
            else:
                log.exception("delivering a %s in chat %s failed: dropped", row.kind,
                              lane.chat_id)  # fmt: skip
            delivery = Delivery(called=verdict.called)
        else:
            self._budget.done(delivery.called)
        lane.failures = 0
        now = self.now()
        if self.metrics is not None and delivery.called:
            # (the tappers' own hands and the watched boards apart: they wait by design)
            kind = WAITED.get(row.priority, lane.policy.name)
            self.metrics.sent(kind, now - row.created_at)
        if delivery.called and row.key is not None and lane.policy.watched > 0:
            lane.watched_at[row.key] = now
            for key, at in list(lane.watched_at.items()):
                if at + lane.policy.watched <= now:
                    del lane.watched_at[key]  # (its window is over: a lane carries few)
        next_at = None
        if delivery.called and lane.interval > 0:
            next_at = lane.next_at = now + lane.interval
        elif delivery.called and lane.pace is not None:
            lane.next_at = max(lane.next_at, lane.pace.called(now))  # (kept in memory only)

        async def writer(conn: Conn) -> None:
            await self.store.complete(conn, row, self.owner, next_at)

        lane.unwritten = _Unwritten(row, delivery, writer, next_at)
        await self._write_done(lane)

    async def _record(self, done: _Unwritten, together: bool = True) -> None:
        """Write a delivered row's mark: in its delivery's own commit, or (PostgreSQL,
        `together`) with the other rows sent about now in one statement, or on its own."""
        if done.delivery.commit is not None:
            await done.delivery.commit(done.writer)
        elif together and self.db.shared:
            await self._completes.ask((done.row, done.next_at))
        else:
            await self.db.write(done.writer)

    async def _write_done(self, lane: _Lane) -> bool:
        """Mark the lane's delivered row done. If the database will not take it (locked by
        another process, a full disk, read-only), the row stays delivered in memory: only the
        write is tried again, with a growing pause, never the call (Telegram has it already)."""
        done = lane.unwritten
        if done is None:
            return True
        try:
            await self._record(done)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            done.failures += 1
            if done.failures == 1:
                log.error(
                    "a %s went out in chat %s but the database would not record it (%s: %s);"
                    " trying the write again, not the call",
                    done.row.kind, lane.chat_id, type(error).__name__, error,
                )  # fmt: skip
            lane.retry = True
            lane.next_at = max(lane.next_at, self.now() + min(5.0, 0.1 * 2**done.failures))
            return False
        if done.failures:
            log.warning("chat %s: the database records again (%d tries)", lane.chat_id,
                        done.failures + 1)  # fmt: skip
        lane.unwritten = None
        return True

    async def _waits_still(self, lane: _Lane, row: Pending) -> bool:
        try:
            rows = await self._lane_rows(lane.chat_id, posts_last=False)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("could not read chat %s's lane again", lane.chat_id, exc_info=True)
            return False
        return any(r.id == row.id for r in rows)

    async def _owned_still(self, lane: _Lane) -> bool:
        try:
            return await self._own(lane)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("could not renew the lease of chat %s", lane.chat_id, exc_info=True)
            return False

    async def _take(self, lane: _Lane, row: Pending) -> bool:
        """The row's turn in the overall budget; False if the lane was woken (new rows
        written, or this row's key bumped to urgent) while it waited."""
        shown = lane.policy.shown
        if self._budget.free():
            allowed = allowance(row, shown, self.allowances)
            return await self._budget.take(rank(row, shown), allowed=allowed)
        if lane.dirty:
            return False
        if lane.place is None:
            lane.place = self._budget.ticket()
            lane.since = time.monotonic()
        lane.woken = asyncio.get_running_loop().create_future()
        try:
            went = await self._budget.take(
                rank(row, shown),
                lane.woken,
                lane.place,
                lane.since,
                allowance(row, shown, self.allowances),
            )
        finally:
            lane.woken = None
        if went:
            lane.place = None
        return went

    def gathered(self) -> dict[str, list[int]]:
        """Statements made for several lanes at once, and how many lanes' requests they held."""
        reads = list(self._reads.values())
        return {
            "reads": [sum(g.calls for g in reads), sum(g.asked for g in reads)],
            "completes": [self._completes.calls, self._completes.asked],
        }

    @contextlib.asynccontextmanager
    async def direct(self, place: int = OWN) -> AsyncIterator[None]:
        """A call a handler makes itself, outside the outbox (a private chat's first message,
        the check that the bot may write there): it waits for its turn in the overall budget
        like the outbox's own, so the two never go over Telegram's limit together."""
        await self._budget.take(place)
        called = False
        try:
            yield
            called = True
        finally:
            self._budget.done(called)

    @property
    def share(self) -> float:
        """This sender's part of the bot's overall budget now, calls a second."""
        return self._budget.share

    @property
    def in_flight(self) -> int:
        """Calls let go by the budget and not ended yet."""
        return self._budget.flying

    def held(self) -> list[int]:
        """The chats whose next call waits for the overall budget."""
        return [chat_id for chat_id, lane in self._lanes.items() if lane.woken is not None]

    # -- waiting and stopping --------------------------------------------------------------------
    def busy(self) -> bool:
        return self._running > 0

    def crowded(self) -> bool:
        """Whether the budget is used beyond `defer_above` (0: always): a tapper's own hand at
        a team table waits for their next edit only then."""
        return self.defer_above <= 0 or self._budget.spent() >= self.defer_above

    async def drain(self, within: float = 30.0, *, held: bool = True) -> bool:
        """Wait until nothing deliverable is left (tests, shutdown); whether it got there.
        With `held` false, rows held back on purpose (a tapper's own hand, a watched board:
        `_due`) do not count: a stop leaves them in the outbox for the next start, which sends
        them when they are due, rather than wait out their seconds."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if not self.busy():
                waiting = await self.store.lanes_with_work(self.owner, self.now())
                if not held:
                    waiting = [c for c in waiting if not self._holds_back(c)]
                if not waiting:
                    return True
                for chat_id in waiting:
                    self.wake_chat(chat_id)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), min(0.05, deadline - time.monotonic()))
        return False

    def _holds_back(self, chat_id: int) -> bool:
        """Whether the chat's lane, idle, holds only rows that wait on purpose (its last read
        found none due: `_due`)."""
        lane = self._lanes.get(chat_id)
        return (
            lane is not None
            and (lane.task is None or lane.task.done())
            and not lane.dirty
            and lane.held_until > self.now()
        )

    async def _record_unwritten(self) -> None:
        """At a stop: mark sent what Telegram took and the database has not recorded yet (a
        stop the moment a call returned). Its lane is let go next, and whoever takes it over
        would otherwise make the call again (a message said twice at every deploy that came at
        a busy moment). The mark may have been written already: writing it again changes
        nothing. If the database will not take it now, the row goes again after the start."""
        for lane in self._lanes.values():
            done = lane.unwritten
            if done is None:
                continue
            try:
                await self._record(done, together=False)  # (the gathering is stopped)
            except Exception:
                log.warning("chat %s: a call made could not be recorded at the stop",
                            lane.chat_id, exc_info=True)  # fmt: skip
                continue
            lane.unwritten = None

    async def close(self) -> None:
        """Stop sending; whatever is left stays in the database for the next start (with
        other processes, this one's lanes are let go: they take them over at once)."""
        self._closed = True
        for lane in self._lanes.values():
            if lane.timer is not None:
                lane.timer.cancel()
        tasks = [lane.task for lane in self._lanes.values() if lane.task is not None]
        if self._poller is not None:
            tasks.append(self._poller)
        if self._beats is not None:
            tasks.append(self._beats)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for gather in (*self._reads.values(), self._completes):
            gather.cancel()
        await self._record_unwritten()
        if self.db.shared:
            try:
                await self.store.release_all(self.owner)
                if self._beats is not None:
                    await self.store.leave(self.owner)
            except Exception:  # their leases end on their own
                log.warning("could not let this sender's lanes go", exc_info=True)
