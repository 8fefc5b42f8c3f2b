"""Supervised pools with real processes: a process that dies mid-job (SIGKILL, as the
out-of-memory killer sends) costs one new pool and one line of the log, and its work is tried
once more; work that kills the new pool too fails for real; a closed pool leaves no process,
even one being made when it was closed."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
from concurrent.futures import BrokenExecutor, Executor
from pathlib import Path

import pytest

from bot.service.pools import Closed, Supervised, processes
from tests.children import thinking
from tests.waiting import until


def die_once(marker: str) -> int:
    """In the pool: the first try kills its process; the next answers its pid."""
    if not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return os.getpid()


def die_always(tries: str) -> int:
    """In the pool: every try kills its process (counted in the file `tries`)."""
    with open(tries, "a") as counted:
        counted.write("x")
    os.kill(os.getpid(), signal.SIGKILL)
    return 0


def said(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "a process died" in r.getMessage()]


async def test_the_work_in_a_pool_that_broke_is_tried_once_more_in_one_new_pool(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "bot.service.pools")
    pool = Supervised("test", processes(1))
    try:
        first = await pool.run(os.getpid)
        # four jobs in the pool when its process dies (the first kills it): one new pool
        jobs = [pool.run(die_once, str(tmp_path / "died"))]
        jobs += [pool.run(os.getpid) for _ in range(3)]
        answers = await asyncio.gather(*jobs)
        assert len(set(answers)) == 1 and answers[0] != first
        assert pool.generation == 2 and pool.breaks == 1
        assert said(caplog) == [
            "test pool: a process died (A process in the process pool was terminated abruptly"
            " while the future was running or pending.): the pool is made again, the work"
            " that was in it tried once more"
        ]
    finally:
        pool.close()


async def test_work_that_breaks_the_new_pool_too_fails_and_is_not_tried_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "bot.service.pools")
    pool = Supervised("test", processes(1))
    tries = tmp_path / "tries"
    try:
        with pytest.raises(BrokenExecutor):
            await pool.run(die_always, str(tries))
        assert tries.read_text() == "xx"  # once, and once more: no third time
        assert pool.breaks == 2 and len(said(caplog)) == 2
        assert await pool.run(os.getpid) > 0  # made again all the same
        assert pool.generation == 3
    finally:
        pool.close()


async def test_a_closed_pool_leaves_no_process_even_one_being_made() -> None:
    before = set(thinking(os.getpid()))
    entered, gate = threading.Event(), threading.Event()
    made = 0

    def make() -> Executor:
        """The pools of `processes(1)`; the second waits for the test before it is made."""
        nonlocal made
        made += 1
        if made > 1:
            entered.set()
            gate.wait(60)
        return processes(1)()

    pool = Supervised("test", make)
    try:
        first = await pool.run(os.getpid)
        os.kill(first, signal.SIGKILL)
        job = asyncio.ensure_future(pool.run(os.getpid))
        # its pool is being made again (in a thread: this loop goes on meanwhile, or the test
        # could not see it) when the bot stops
        await until(entered.is_set)
        pool.close()
    finally:
        gate.set()
    with pytest.raises(Closed):
        await job
    await until(lambda: not set(thinking(os.getpid())) - before, 30)
    with pytest.raises(Closed):
        await pool.run(os.getpid)


def managers() -> list[threading.Thread]:
    """The threads that manage process pools (the standard library's), still running."""
    return [t for t in threading.enumerate() if type(t).__name__ == "_ExecutorManagerThread"]


async def test_at_the_stop_every_pool_it_shut_down_has_ended(tmp_path: Path) -> None:
    """A broken pool and the last one, shut down: `ended` waits until their managing threads
    are gone (one still closing at the interpreter's exit races the standard library's own
    goodbye to it, and prints a traceback)."""
    before = set(managers())
    pool = Supervised("test", processes(1))
    await pool.run(die_once, str(tmp_path / "died"))  # (one pool broke, one made again)
    assert pool.breaks == 1
    pool.close()
    await pool.ended()
    assert not set(managers()) - before
