"""Outgoing Bot API calls, one lane per chat: ordered posts, coalesced refreshes, group pacing.

Telegram allows a group about 20 messages a minute, edits included. Each group lane leaves
`group_interval` seconds between its calls; a refresh (an edit of a living message) keeps only
its newest request, and renders the latest state when it runs, so a board that falls behind
skips intermediate states and catches up. Private chats are not paced per chat; a shared budget of
`overall_per_second` calls holds back only background refreshes (other players' hand messages),
so a tapper's own feedback and a "your turn" message never wait for the group or the crowd.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable

from telegram.error import BadRequest, NetworkError

log = logging.getLogger(__name__)

NETWORK_TRIES = 3

# A job makes at most one or two calls; it returns whether it called Telegram at all.
Job = Callable[[], Awaitable[bool]]


class _Budget:
    """A token bucket for the whole bot: urgent calls take a token without waiting."""

    def __init__(self, per_second: float) -> None:
        self.rate = per_second
        self.tokens = per_second
        self.last = time.monotonic()

    def take(self) -> float:
        """Take a token; the seconds a background call should wait before it goes out."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        self.tokens = min(self.rate, self.tokens + (now - self.last) * self.rate)
        self.last = now
        self.tokens -= 1
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


class _Lane:
    def __init__(self, chat_id: int, interval: float) -> None:
        self.chat_id = chat_id
        self.interval = interval
        self.posts: deque[tuple[Job, asyncio.Future[None]]] = deque()
        self.refreshes: dict[str, tuple[Job, list[asyncio.Future[None]], bool]] = {}
        self.wake = asyncio.Event()
        self.idle = asyncio.Event()
        self.idle.set()
        self.last_call = 0.0
        self.task: asyncio.Task[None] | None = None
        self.inflight: list[asyncio.Future[None]] = []

    def next_job(self) -> tuple[Job, list[asyncio.Future[None]], bool] | None:
        """Posts first, then urgent refreshes, then the rest; with whether it is urgent."""
        if self.posts:
            job, future = self.posts.popleft()
            return job, [future], True
        for key, (_, _, urgent) in self.refreshes.items():
            if urgent:
                return self.refreshes.pop(key)
        if self.refreshes:
            return self.refreshes.pop(next(iter(self.refreshes)))
        return None


class Outbox:
    def __init__(self, group_interval: float, overall_per_second: float = 30.0) -> None:
        self.group_interval = group_interval
        self._budget = _Budget(overall_per_second)
        self._lanes: dict[int, _Lane] = {}
        self._closed = False
        self.calls: dict[int, list[float]] = {}  # chat -> times of calls (for benchmarks)

    def _lane(self, chat_id: int) -> _Lane:
        lane = self._lanes.get(chat_id)
        if lane is None:
            interval = self.group_interval if chat_id < 0 else 0.0
            lane = self._lanes[chat_id] = _Lane(chat_id, interval)
        if lane.task is None or lane.task.done():
            lane.task = asyncio.get_running_loop().create_task(self._run(lane))
        return lane

    def _done(self) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        future.set_result(None)
        return future

    def post(self, chat_id: int, job: Job) -> asyncio.Future[None]:
        """A call that must happen, in order (a new message, a summary)."""
        if self._closed:  # shutting down: the state is committed, a restart shows it
            return self._done()
        lane = self._lane(chat_id)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        lane.posts.append((job, future))
        lane.idle.clear()
        lane.wake.set()
        return future

    def refresh(
        self, chat_id: int, key: str, job: Job, urgent: bool = False
    ) -> asyncio.Future[None]:
        """An edit that only needs its latest version: replaces a waiting one of the same key."""
        if self._closed:
            return self._done()
        lane = self._lane(chat_id)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiting = lane.refreshes.pop(key, None)
        futures = [*waiting[1], future] if waiting else [future]
        lane.refreshes[key] = (job, futures, urgent or (waiting is not None and waiting[2]))
        lane.idle.clear()
        lane.wake.set()
        return future

    async def _run(self, lane: _Lane) -> None:
        while not self._closed:
            item = lane.next_job()
            if item is None:
                lane.idle.set()
                lane.wake.clear()
                await lane.wake.wait()
                continue
            job, futures, urgent = item
            lane.inflight = futures
            wait = lane.last_call + lane.interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            held = self._budget.take()
            if held > 0 and not urgent and lane.chat_id > 0:
                await asyncio.sleep(held)
            called = False
            for attempt in range(NETWORK_TRIES):
                try:
                    called = await job()
                    break
                except BadRequest:  # PTB makes it a NetworkError, but trying again won't help
                    log.exception("outgoing call refused in chat %s", lane.chat_id)
                    break
                except NetworkError as error:  # a timeout or a dropped connection: try again
                    called = True
                    log.warning(
                        "call in chat %s failed (%s), try %d", lane.chat_id, error, attempt + 1
                    )
                    await asyncio.sleep(0.5 * (attempt + 1))
                except Exception:
                    log.exception("outgoing call failed in chat %s", lane.chat_id)
                    break
            if called:
                lane.last_call = time.monotonic()
                self.calls.setdefault(lane.chat_id, []).append(time.time())
            for future in futures:
                if not future.done():
                    future.set_result(None)

    async def drain(self, within: float = 30.0) -> None:
        """Wait until every lane is idle (tests, shutdown)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            lanes = [lane for lane in self._lanes.values() if not lane.idle.is_set()]
            if not lanes:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(lanes[0].idle.wait(), deadline - time.monotonic())

    async def close(self) -> None:
        self._closed = True
        for lane in self._lanes.values():
            if lane.task is not None:
                lane.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await lane.task
            for future in [*lane.inflight, *(f for _, f in lane.posts)]:
                if not future.done():
                    future.set_result(None)
            for _, futures, _ in lane.refreshes.values():
                for waiting in futures:
                    if not waiting.done():
                        waiting.set_result(None)
