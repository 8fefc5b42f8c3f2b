"""`python -m bot` as processes forked from one that has imported it: the kill tests start the
bot again after every SIGKILL, and each start in a fresh interpreter spent about a second of
CPU importing the same modules (60 s of the whole suite's CPU on 2 cores; docs/performance.md,
"The test suite"). The zygote imports what a start loads once, then forks a child for each
start; the child runs `bot/__main__.py` as `python -m bot` does, on the zygote's environment
and folder, and is killed with SIGKILL like any process. The zygote has no thread and no event
loop when it forks (it asserts the first), so each child starts from what a fresh interpreter
would have after the same imports."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import sys
import time
from pathlib import Path
from typing import IO

ZYGOTE = """
import os, signal, sys, threading
import bot.app, bot.core, telegram  # what a start loads (bot/__main__.py, lazily)
assert threading.active_count() == 1, "a fork copies only the thread that forks"
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # each bot reaped by the kernel when it ends
for line in sys.stdin:
    pid = os.fork()
    if pid == 0:  # the bot: input and output let go, errors to the zygote's stderr
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        import runpy
        runpy.run_module("bot", run_name="__main__", alter_sys=True)
        raise SystemExit(0)  # (not the zygote's loop: the child ends here)
    print(pid, flush=True)
"""


class Forked:
    """One bot process forked by the zygote, held by a pidfd (its pid cannot be reused under
    us once it is gone)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.fd = os.pidfd_open(pid)

    @property
    def exited(self) -> bool:
        return self.fd < 0 or bool(select.select([self.fd], [], [], 0)[0])

    def kill(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.fd, signal.SIGKILL)

    async def wait(self, within: float = 60.0) -> None:
        deadline = time.monotonic() + within
        while not self.exited:
            if time.monotonic() > deadline:
                raise TimeoutError(f"bot {self.pid} did not end")
            await asyncio.sleep(0.005)
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1  # (gone: `exited` stays true)


class Zygote:
    """The process that forks the bots, with `env` and `folder` (theirs too); its and their
    errors go to `stderr`."""

    def __init__(self, env: dict[str, str], folder: Path, stderr: int | IO[bytes]) -> None:
        self.env = env
        self.folder = folder
        self.stderr = stderr
        self.process: asyncio.subprocess.Process | None = None

    async def fork(self) -> Forked:
        if self.process is None or self.process.returncode is not None:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-c", ZYGOTE, cwd=self.folder, env=self.env,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=self.stderr,
            )  # fmt: skip
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(b"fork\n")
        await self.process.stdin.drain()
        line = await asyncio.wait_for(self.process.stdout.readline(), 120)
        if not line:
            raise RuntimeError("the zygote ended")
        return Forked(int(line))

    async def close(self) -> None:
        if self.process is None:
            return
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
