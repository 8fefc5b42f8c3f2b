"""A tournament set for later: the hour as a group writes it, in the group's time zone."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.tourney.later import Later, parse_when

ZONE = ZoneInfo("America/Argentina/Buenos_Aires")
# Wednesday 2 December 2026, 18:00 in Buenos Aires
NOW = datetime(2026, 12, 2, 18, 0, tzinfo=ZONE).timestamp()


def at(day: int, hour: int, minute: int = 0) -> float:
    return datetime(2026, 12, day, hour, minute, tzinfo=ZONE).timestamp()


@pytest.mark.parametrize(
    ("words", "rest", "when"),
    [
        (["a", "las", "21:30"], [], at(2, 21, 30)),
        (["liga", "a", "las", "21:30", "2v2"], ["liga", "2v2"], at(2, 21, 30)),
        (["at", "21:30"], [], at(2, 21, 30)),
        (["hoy", "21:30"], [], at(2, 21, 30)),
        (["mañana", "22"], [], at(3, 22)),
        (["tomorrow", "at", "9:05"], [], at(3, 9, 5)),
        (["viernes", "21:30"], [], at(4, 21, 30)),
        (["friday", "21:30"], [], at(4, 21, 30)),
        (["miércoles", "a", "las", "17"], [], at(9, 17)),  # today's 17:00 is gone: next week
        (["a", "las", "9"], [], at(3, 9)),  # past today: tomorrow
        (["friday", "at", "9pm"], [], at(4, 21)),
        (["a", "las", "21:30hs"], [], at(2, 21, 30)),
        (["ko", "15"], ["ko", "15"], None),
    ],
)
def test_the_hour_as_written(words: list[str], rest: list[str], when: float | None) -> None:
    assert parse_when(words, NOW, ZONE) == Later(rest, when, None)


@pytest.mark.parametrize(
    ("words", "error"),
    [
        (["a", "las", "25:00"], "bad_time"),
        (["a", "las", "21:75"], "bad_time"),
        (["a", "las"], "bad_time"),
        (["hoy", "17:00"], "past"),
        (["viernes"], "bad_time"),
        (["at", "13pm"], "bad_time"),
        (["a", "las", "21.30"], "bad_time"),
    ],
)
def test_a_bad_hour_is_told(words: list[str], error: str) -> None:
    found = parse_when(words, NOW, ZONE)
    assert found.starts_at is None and found.error == error
