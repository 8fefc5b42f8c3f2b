"""A tournament set for later: the hour a group writes after /torneo ("a las 21:30", "viernes
21:30", "hoy 21:30", "mañana 22", "at 21:30", "friday 21:30"), read in the group's time zone.
No I/O: the handler hands it the words and the clock's now."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo

REMIND_BEFORE = 10 * 60  # the people signed up are told in private this long before the start

WEEKDAYS = {
    "lunes": 0, "martes": 1, "miercoles": 2, "miércoles": 2, "jueves": 3, "viernes": 4,
    "sabado": 5, "sábado": 5, "domingo": 6,
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
    "sunday": 6,
}  # fmt: skip
TODAY = ("hoy", "today", "tonight")
TOMORROW = ("mañana", "manana", "tomorrow")
AT = (("a", "las"), ("a", "la"), ("at",))
_HOUR = re.compile(r"^(\d{1,2})(?::(\d{2}))?(h|hs|am|pm)?$")


@dataclass(frozen=True)
class Later:
    """The words left for the other options, when it starts (None: now, as ever), and what
    was wrong with the hour ("bad_time": not an hour; "past": today's is gone)."""

    rest: list[str]
    starts_at: float | None
    error: str | None


def _hour(word: str) -> tuple[int, int] | None:
    found = _HOUR.match(word)
    if found is None:
        return None
    hour, minute = int(found.group(1)), int(found.group(2) or 0)
    half = found.group(3) if found.group(3) in ("am", "pm") else None
    if half is not None:  # "9pm", "9:30am" (12am is midnight, 12pm noon)
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "pm" else 0)
    if hour > 23 or minute > 59:
        return None
    return hour, minute


def parse_when(words: Sequence[str], now: float, zone: tzinfo) -> Later:
    """The hour in `words`, if any, as a time after `now`. Without a day, an hour gone today
    is tomorrow's; a weekday is the next one with that hour ahead; "hoy" with its hour gone
    is told ("past"). An hour is only read after a day, "a las" or "at", or written with a
    colon (so that `15` stays the target); "21", "21:30", "21:30hs", "9pm", "9:30am"."""
    rest: list[str] = []
    day: str | int | None = None  # "today", "tomorrow", a weekday
    hour: tuple[int, int] | None = None
    expecting = False  # a day or "a las" was read: an hour must follow
    i = 0
    lowered = [w.lower() for w in words]
    while i < len(lowered):
        word = lowered[i]
        joined = next((n for n in AT if tuple(lowered[i : i + len(n)]) == n), None)
        if joined is not None:
            expecting = True
            i += len(joined)
            continue
        if word in TODAY or word in TOMORROW or word in WEEKDAYS:
            day = "today" if word in TODAY else "tomorrow" if word in TOMORROW else WEEKDAYS[word]
            expecting = True
            i += 1
            continue
        if expecting or ":" in word:
            read = _hour(word)
            if read is None or hour is not None:
                return Later(list(words), None, "bad_time")
            hour = read
            expecting = False
            i += 1
            continue
        rest.append(words[i])
        i += 1
    if expecting:
        return Later(list(words), None, "bad_time")
    if hour is None:
        return Later(rest, None, None)
    local = datetime.fromtimestamp(now, zone)
    when = local.replace(hour=hour[0], minute=hour[1], second=0, microsecond=0)
    if day == "tomorrow":
        when = _same_hour(when, 1)
    elif isinstance(day, int):
        ahead = (day - local.weekday()) % 7
        when = _same_hour(when, ahead)
        if when.timestamp() <= now:
            when = _same_hour(when, 7)
    elif when.timestamp() <= now:
        if day == "today":
            return Later(list(words), None, "past")
        when = _same_hour(when, 1)
    return Later(rest, when.timestamp(), None)


def _same_hour(when: datetime, days: int) -> datetime:
    """`days` later at the same wall-clock hour in its zone."""
    shifted = when.replace(tzinfo=None) + timedelta(days=days)
    return shifted.replace(tzinfo=when.tzinfo)
