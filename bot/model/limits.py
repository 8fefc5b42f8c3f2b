"""How fast someone may ask: token buckets by key (an address, a person in a chat), bounded
in memory. The web table's requests and membership lookups, and the answers to one person's
commands in a group, are limited with them."""

from __future__ import annotations

import enum
import time
from collections import OrderedDict
from collections.abc import Callable


class Admit(enum.Enum):
    """What a bucket says to one more request."""

    YES = "yes"
    PAUSE = "pause"  # refused, the first time since the key's bucket was last full: say so
    QUIET = "quiet"  # refused again: already told


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
        # key -> (tokens, when last seen, whether a refusal was told since it was last full)
        self._buckets: OrderedDict[object, tuple[float, float, bool]] = OrderedDict()

    def take(self, key: object) -> bool:
        return self.admit(key) is Admit.YES

    def admit(self, key: object) -> Admit:
        """`take`, telling a first refusal apart from the next ones: the asker is told once
        that they must wait, and not again until their bucket has filled up again (someone who
        keeps flooding gets an answer as each token comes, never a second "wait")."""
        now = self.clock()
        tokens, last, told = self._buckets.pop(key, (self.burst, now, False))
        # (a wall clock set back gives no tokens, and takes none)
        tokens = min(self.burst, tokens + max(0.0, now - last) * self.rate)
        if tokens >= self.burst:
            told = False
        if tokens >= 1:
            verdict, tokens = Admit.YES, tokens - 1
        else:
            verdict, told = (Admit.QUIET if told else Admit.PAUSE), True
        self._buckets[key] = (tokens, now, told)
        if len(self._buckets) > self.keys:
            self._buckets.popitem(last=False)
        return verdict
