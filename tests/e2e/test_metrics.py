"""/metrics (Prometheus's text format) agrees with what the Bot API saw, call for call."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import harness_with
from tests.e2e.helpers import open_table, play_to_the_end
from tests.fakebot import FakeTelegram
from tests.ports import free_port


async def _scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{port}/metrics") as response,
    ):
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        text = await response.text()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _by_method(
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str
) -> Counter[str]:
    return Counter(
        {dict(labels)["method"]: int(v) for (n, labels), v in samples.items() if n == name and v}
    )


async def test_metrics_agree_with_the_bot_apis_counts(fake: FakeTelegram, tmp_path: Path) -> None:
    port = free_port()
    async with harness_with(fake, tmp_path / "truco.db", metrics_port=port) as h:
        ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
        await open_table(h, [ana, beto])
        # one 429 on the way: counted as a call and as a 429, waited out, the message sent
        fake.fail_next["editMessageText"] = (429, "Too Many Requests: retry after 1", 1)
        taps = await play_to_the_end(h, [ana, beto], seed=3, max_taps=25, stop=_after(12))
        await h.settle()
        samples = await _scrape(port)
        seen = Counter(method for _, method, _ in fake.calls)
        made = _by_method(samples, "truco_bot_api_calls_total")
        # every call the fake Bot API took was counted, method by method (getUpdates goes on
        # its own connection and is not the bot's sending: it is left out)
        assert made == seen, (made, seen)
        assert (
            seen["sendMessage"] > 0
            and seen["editMessageText"] > 1
            and seen["answerCallbackQuery"] == taps + 1  # (and the join)
        )
        assert _by_method(samples, "truco_bot_api_rate_limited_total") == Counter(
            {"editMessageText": 1}
        )
        assert samples[("truco_taps_total", ())] == taps > 0
        assert samples[("truco_tables_playing", ())] == 1
        # every message that went out was timed from its commit
        delays = sum(v for (n, _), v in samples.items() if n == "truco_outbox_delay_seconds_count")
        sends = sum(
            n for m, n in seen.items() if m in ("sendMessage", "editMessageText", "deleteMessage")
        )
        assert 0 < delays <= sends
        # the longest wait of each kind of lane, exactly: within the histogram's bucket that
        # first holds all of that lane's messages
        lanes = {dict(labels)["chat"] for (n, labels), _ in samples.items()
                 if n == "truco_outbox_delay_seconds_count"}  # fmt: skip
        assert lanes
        for lane in lanes:
            longest = samples[("truco_outbox_delay_longest_seconds", (("chat", lane),))]
            total = samples[("truco_outbox_delay_seconds_count", (("chat", lane),))]
            bounds = sorted(
                (float(dict(labels)["le"]), v) for (n, labels), v in samples.items()
                if n == "truco_outbox_delay_seconds_bucket" and dict(labels)["chat"] == lane
            )  # fmt: skip
            upper = next(b for b, v in bounds if v >= total)
            lower = max((b for b, v in bounds if v < total), default=0.0)
            assert lower < longest <= upper or (lower == 0.0 and longest == 0.0), (lane, longest)
        assert 0 <= samples[("truco_budget_spent", ())] <= 1
    # off by default: no port is opened
    async with harness_with(fake, tmp_path / "other.db") as h:
        assert h.services.metrics is None


def _after(taps: int) -> Callable[[], Awaitable[bool]]:
    """Stop a scripted match after this many taps."""
    count = 0

    async def stop() -> bool:
        nonlocal count
        count += 1
        return count > taps

    return stop
