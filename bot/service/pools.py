"""The processes the bot thinks in, supervised: the computer players', the hints', the
reviews'. A pool whose process died (the out-of-memory killer, a crash) is made again at once
and the work that was in it is tried once more, so a dead process costs a computer player a
few seconds, never the rest of its matches.

`Supervised` holds one pool at a time, numbered (its generation): the first caller to find a
pool broken says so in the log and drops it, and a new one is made (off the event loop:
starting processes blocks); callers that found the same pool broken wait for the same new one,
so a break is one rebuild and one line of the log however many jobs were in it. A job that
breaks the new pool too fails for real (`BrokenExecutor`): it is not tried a third time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor
from functools import partial
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class Closed(RuntimeError):
    """The pool was closed (the bot is stopping): no more work."""


def _child(parent: int, nice: int) -> None:
    """In each pool process: leave when the bot is gone (a SIGKILLed bot cannot tell its pool
    to stop, and the pool must not outlive it), at `nice` (the hints yield the CPU to the
    computer players' moves)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()
    if nice:
        with contextlib.suppress(OSError, AttributeError):
            os.nice(nice)


def _ready() -> bool:
    """A first job, so that a pool's processes start while it is being made (off the loop)."""
    return True


def processes(workers: int, *, nice: int = 0) -> Callable[[], Executor]:
    """How to make a pool of `workers` processes, each started afresh ("spawn": nothing of the
    bot's state is forked), at `nice`, and gone with the bot."""

    def make() -> Executor:
        return ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_child,
            initargs=(os.getpid(), nice),
        )

    return make


RETIRED_KEPT = 8  # pools shut down whose end the bot's stop waits for


class Supervised:
    """A pool (`make` makes one; `size`: its processes) that is made again when it breaks."""

    def __init__(self, name: str, make: Callable[[], Executor], *, size: int = 1) -> None:
        self.name = name
        self._make = make
        self.size = size
        self.generation = 0  # pools made so far
        self.breaks = 0  # pools found broken (each said once in the log)
        self._pool: Executor | None = None
        self._making: asyncio.Future[Executor] | None = None
        self._closed = False
        self._gone: list[asyncio.Future[None]] = []  # pools' shutdowns, not yet seen to end

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in the pool; once more in a new pool if the pool broke under it."""
        pool, generation = await self._current()
        try:
            return await asyncio.wrap_future(pool.submit(fn, *args))
        except BrokenExecutor as error:
            self._broke(generation, error)
        pool, generation = await self._current()
        try:
            return await asyncio.wrap_future(pool.submit(fn, *args))
        except BrokenExecutor as error:
            self._broke(generation, error)
            raise

    def close(self) -> None:
        """No more work: the pool's processes leave once their job is done (and a pool being
        made is closed as soon as it is)."""
        self._closed = True
        if self._pool is not None:
            self._retire(self._pool)
            self._pool = None

    def _retire(self, pool: Executor) -> None:
        """Shut a pool down: its pending work cancelled, its processes leave once their job is
        done. The shutdown waits for its managing thread in a thread of its own, which `ended`
        waits for (the last few: an older one has long ended)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # (no loop: nothing will wait for it)
            pool.shutdown(wait=False, cancel_futures=True)
            return
        ending = loop.run_in_executor(None, partial(pool.shutdown, True, cancel_futures=True))
        self._gone.append(ending)
        del self._gone[:-RETIRED_KEPT]

    async def ended(self, within: float = 5.0) -> None:
        """Wait (at most `within` seconds) until every pool this one shut down, broken ones
        included, has ended: its processes gone and its managing thread too. A managing thread
        still closing at the interpreter's exit races the standard library's own goodbye to it
        ("Exception ignored … Bad file descriptor", Python 3.11)."""
        gone, self._gone = self._gone, []
        if not gone:
            return
        try:
            await asyncio.wait_for(asyncio.shield(asyncio.gather(*gone)), within)
        except TimeoutError:
            log.warning("%s pool: still ending after %.0f s (a job running)", self.name, within)

    async def _current(self) -> tuple[Executor, int]:
        while self._pool is None:
            if self._closed:
                raise Closed(self.name)
            making = self._making if self._making is not None else self._remake()
            # (shielded: a caller cancelled while it waits must not lose the pool being made,
            # whose processes would then run unowned)
            await asyncio.shield(making)
            self._made(making)
        return self._pool, self.generation

    def _remake(self) -> asyncio.Future[Executor]:
        making = asyncio.get_running_loop().run_in_executor(None, self._spawn)
        self._making = making
        making.add_done_callback(self._made)  # (in place even if nobody waits for it)
        return making

    def _spawn(self) -> Executor:
        """In a thread: the pool, its processes started."""
        pool = self._make()
        for _ in range(self.size):
            pool.submit(_ready)
        return pool

    def _made(self, making: asyncio.Future[Executor]) -> None:
        """The pool `making` made, in place (once: its first caller or its callback)."""
        if self._making is not making:
            return
        self._making = None
        if making.cancelled() or making.exception() is not None:
            return  # (its callers see why; the next job tries again)
        pool = making.result()
        if self._closed:
            self._retire(pool)
            return
        self._pool = pool
        self.generation += 1

    def _broke(self, generation: int, error: BaseException) -> None:
        """The pool of `generation` broke: said once, by the first to find it, and made again
        at once (whether or not its work is tried again)."""
        if generation != self.generation or self._pool is None:
            return  # (someone found it first)
        self.breaks += 1
        log.warning(
            "%s pool: a process died (%s): the pool is made again, the work that was in it"
            " tried once more",
            self.name, error,
        )  # fmt: skip
        pool, self._pool = self._pool, None
        self._retire(pool)
        if not self._closed and self._making is None:
            self._remake()
