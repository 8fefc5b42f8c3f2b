"""What an operator watches to see Telegram's limits coming, in Prometheus's text format.

Off unless `TRUCO_METRICS_PORT` is set (docs/operations.md). Each running bot has its own
registry (not the library's global one), so that several bots in one process, as in the tests,
count apart. The figures are this process's; with several workers, scrape each one and add.

What is counted, and where:
- every Bot API call by method, and the 429s among them (the HTTP layer: each answer seen);
- how long a message waited from the commit that wrote it to the call that sent it (the
  mailbox; this includes the pace a group's lane keeps by design), and the longest such wait;
- the changes the core committed by kind, and the people's own actions among them (taps), so
  that calls per tap is `rate(truco_bot_api_calls_total[5m]) / rate(truco_taps_total[5m])`;
- the tables in play, and how much of the overall budget is spent right now.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["CONTENT_TYPE_LATEST", "Metrics"]

# Seconds from a message's commit to its call: under a second is a good table; a paced group
# keeps 3.1 s between calls, so a busy board waits several.
DELAY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.5, 5.0, 10.0, 30.0, 60.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.calls = Counter(
            "truco_bot_api_calls", "Bot API calls made, by method", ["method"], registry=r
        )
        self.limited = Counter(
            "truco_bot_api_rate_limited",
            "Bot API answers 429 (Too Many Requests), by method",
            ["method"],
            registry=r,
        )
        self.failed = Counter(
            "truco_bot_api_failed",
            "Bot API answers other than 200 and 429, by method",
            ["method"],
            registry=r,
        )
        self.delay = Histogram(
            "truco_outbox_delay_seconds",
            "From the commit that wrote a message to the call that sent it",
            ["chat"],
            buckets=DELAY_BUCKETS,
            registry=r,
        )
        # The histogram's buckets say how many waited how long; the longest is its own figure
        # (a bucket of 10 to 30 s does not say whether it was 10.1 s or 29 s)
        self.longest = Gauge(
            "truco_outbox_delay_longest_seconds",
            "The longest any message waited from its commit to its call, since this start",
            ["chat"],
            registry=r,
        )
        self._longest: dict[str, float] = {}
        self.changes = Counter(
            "truco_changes", "Changes the core committed, by kind", ["kind"], registry=r
        )
        self.taps = Counter(
            "truco_taps", "Actions people took themselves (cards, chants, answers)", registry=r
        )
        self.rows = Counter(
            "truco_outbox_rows", "Messages the core planned (a send or an edit each)", registry=r
        )
        self.playing = Gauge(
            "truco_tables_playing", "Tables in play that this process has seen", registry=r
        )
        self.budget = Gauge(
            "truco_budget_spent",
            "Share of the overall per-second budget spent now (1: every call waits)",
            registry=r,
        )
        self.held = Gauge(
            "truco_lanes_held", "Chats whose next call waits for the overall budget", registry=r
        )
        self._playing: set[int] = set()

    # -- the HTTP layer --------------------------------------------------------------------------
    def answered(self, url: str, status: int) -> None:
        """A Bot API call came back with `status` (its method is the URL's last part)."""
        method = url.rsplit("/", 1)[-1] or "?"
        self.calls.labels(method).inc()
        if status == 429:
            self.limited.labels(method).inc()
        elif status != 200:
            self.failed.labels(method).inc()

    # -- the mailbox -----------------------------------------------------------------------------
    def sent(self, lane: str, waited: float) -> None:
        """A message went `waited` seconds after its commit, in a lane of this kind (its front
        end's name for it: "group", "private"; "deferred": a tapper's own hand, which waits
        by design)."""
        waited = max(0.0, waited)
        self.delay.labels(lane).observe(waited)
        if waited >= self._longest.get(lane, -1.0):
            self._longest[lane] = waited
            self.longest.labels(lane).set(waited)

    def watch(self, spent: Callable[[], float], held: Callable[[], int]) -> None:
        """Read the budget and the held lanes when scraped (nothing to update meanwhile)."""
        self.budget.set_function(spent)
        self.held.set_function(lambda: float(held()))

    # -- the core's changes ----------------------------------------------------------------------
    def change(self, kind: str, table_id: int | None, playing: bool, tap: bool, rows: int) -> None:
        self.changes.labels(kind).inc()
        if tap:
            self.taps.inc()
        self.rows.inc(rows)
        if table_id is not None:
            if playing:
                self._playing.add(table_id)
            else:
                self._playing.discard(table_id)
            self.playing.set(len(self._playing))

    def render(self) -> bytes:
        return generate_latest(self.registry)
