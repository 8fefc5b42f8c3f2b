"""How much one person can make the bot say in a chat: a token bucket per (chat, person)."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

REMEMBERED = 50_000  # buckets kept; the oldest (full again by then) are forgotten


class Throttle:
    def __init__(
        self, burst: int, every: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """`burst` answers at once, then one more every `every` seconds."""
        self.burst = burst
        self.every = every
        self.clock = clock
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()

    def allow(self, key: Hashable) -> bool:
        now = self.clock()
        tokens, since = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - since) / self.every)
        allowed = tokens >= 1.0
        self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
        self._buckets.move_to_end(key)
        if len(self._buckets) > REMEMBERED:
            self._buckets.popitem(last=False)
        return allowed
