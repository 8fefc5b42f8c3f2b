"""Waiting in tests: for a condition, with a generous deadline, never a fixed sleep."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable


async def until(condition: Callable[[], bool], within: float = 90.0) -> None:
    """Return once `condition()` is true; TimeoutError if it is not within `within` s."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition did not come true")
        await asyncio.sleep(0.01)


async def until_async(condition: Callable[[], Awaitable[bool]], within: float = 90.0) -> None:
    """`until` for a condition that must ask (the database, a server)."""
    deadline = time.monotonic() + within
    while not await condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition did not come true")
        await asyncio.sleep(0.01)
