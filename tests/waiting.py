"""Waiting in tests: for a condition, with a generous deadline, never a fixed sleep."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


async def until(condition: Callable[[], bool], within: float = 90.0) -> None:
    """Return once `condition()` is true; TimeoutError if it is not within `within` s."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition did not come true")
        await asyncio.sleep(0.01)
