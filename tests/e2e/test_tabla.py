"""/tabla mes counts from the start of the month where the group's dates are told."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.conftest import GROUP, Harness
from tests.e2e.helpers import open_table


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


async def test_this_months_table_starts_at_midnight_in_the_bots_time_zone(
    harness: Harness,
) -> None:
    """A match that ended on 1 December at 01:00 UTC ended on 30 November at 22:00 in Buenos
    Aires (TRUCO_TIMEZONE's default): three hours later it is December there, and the match
    belongs to last month's table, not this one's."""
    h = harness
    assert h.settings.timezone == "America/Argentina/Buenos_Aires"
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    h.clock.now = at("2026-12-01T01:00:00")
    await open_table(h, [ana, juan], "1v1 15")
    ana.send(GROUP, "/abandonar")  # a concession is a match of the league
    await h.settle()
    ana.send(GROUP, "/tabla")
    await h.settle()
    assert "Juan" in h.fake.last(GROUP).text
    h.clock.now = at("2026-12-01T04:00:00")  # 01:00 of 1 December in Buenos Aires
    ana.send(GROUP, "/tabla mes")
    await h.settle()
    assert "Todavía no hay partidas terminadas" in h.fake.last(GROUP).text
    h.clock.now = at("2026-12-01T02:30:00")  # still 30 November there: it counts
    ana.send(GROUP, "/tabla mes")
    await h.settle()
    month = h.fake.last(GROUP).text
    assert "este mes" in month and "Juan" in month
