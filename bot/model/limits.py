"""How fast someone may ask: token buckets by key (an address, a person in a chat), bounded
in memory. The web table's requests and membership lookups, and the answers to one person's
commands in a group, are limited with them."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


class Buckets:
    """Token buckets by key: `take(key)` is False once a key spent its burst faster than
    `rate` a second. At most `keys` keys are kept (the least recently seen go first)."""

    def __init__(
        self,
        rate: float,
        burst: float,
        keys: int = 50_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self.keys = keys
        self.clock = clock
        self._buckets: OrderedDict[object, tuple[float, float]] = OrderedDict()

    def take(self, key: object) -> bool:
        now = self.clock()
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        allowed = tokens >= 1
        self._buckets[key] = (tokens - 1 if allowed else tokens, now)
        if len(self._buckets) > self.keys:
            self._buckets.popitem(last=False)
        return allowed
