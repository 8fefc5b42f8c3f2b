"""La mano del día as plain values: a group's hand of the day (what was posted, when it closes),
who answered what, and what a close tells (the answers, the streaks, the month's ranking)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

OPEN_SECONDS = 12 * 3600  # a hand of the day takes answers this long after it is posted
LATE_SECONDS = 3 * 3600  # posted this late after its hour at most (the bot was down), else
# that day is skipped: a hand of the day at an hour nobody chose is noise
HOURS = (9, 12, 13, 18, 19, 20, 21, 22)  # the hours /config offers, after "off" (local time)
MONTH_SHOWN = 5  # the month's ranking shows this many people


@dataclass(frozen=True)
class DailyHand:
    """One group's hand of the day. `data`: the puzzle (what the seat knew, the choices and
    their worth) and, apart, what really happened (told at the close); `source`: where the
    position came from ("g:<game>:<step>": a match of the group; "b:<n>": the bank), never
    posed twice in the group; `user_id`: whose decision it was (None: the bank's)."""

    id: int
    chat_id: int
    day: str  # the group's date, YYYY-MM-DD
    source: str
    game_id: int | None
    user_id: int | None
    data: Mapping[str, Any]
    language: str
    posted_at: float
    closes_at: float
    closed_at: float | None = None
    answers: int = 0  # how many answered (as read with it)

    @property
    def closed(self) -> bool:
        return self.closed_at is not None

    def open_at(self, now: float) -> bool:
        return self.closed_at is None and now < self.closes_at


@dataclass(frozen=True)
class Answer:
    user_id: int
    choice: int
    right: bool


@dataclass(frozen=True)
class Standing:
    """One person's hands of the day in a group over some time: answered right of answered."""

    user_id: int
    right: int
    answered: int


@dataclass(frozen=True)
class Closing:
    """What a close tells: every answer (in the order given), the streak of each who answered
    right, the month's ranking, and whether the decision's person lets their name be shown."""

    answers: tuple[Answer, ...] = ()
    streaks: tuple[tuple[int, int], ...] = ()  # (user, streak) of those who answered right
    month: tuple[Standing, ...] = ()
    named: bool = False


@dataclass(frozen=True)
class Tally:
    """A person's hands of the day in one group: all time, this month, and the streak."""

    answered: int = 0
    right: int = 0
    streak: int = 0  # hands of the day answered right in a row, up to the last one closed
    best: int = 0  # the longest such run
    month: Standing | None = None


class DailyNote(StrEnum):
    POSTED = "posted"
    ANSWERED = "answered"
    CLOSED = "closed"


def streaks(hands: list[int], right: Mapping[int, bool]) -> tuple[int, int]:
    """(the streak now, the longest): `hands`, the group's closed hands of the day newest
    first; `right`, the person's answers (hand -> answered right). A hand not answered, or
    answered wrong, ends a run."""
    now = 0
    while now < len(hands) and right.get(hands[now], False):
        now += 1
    best = run = 0
    for hand in hands:
        run = run + 1 if right.get(hand, False) else 0
        best = max(best, run)
    return now, best


@dataclass(frozen=True)
class Reply:
    """How an answer was taken: the choice kept (the first one: a second tap changes
    nothing), and whether this tap was the one that counted."""

    choice: int
    counted: bool
    hand: DailyHand = field(compare=False)
