"""Who sits in a seat: a person, a computer player, or nobody.

The one place that knows how an occupant is written down. A seat (in `Table.seats`, in the
database's `games.seats`, in `match_players.user_id`, in an action's `user_id`) holds an int or
None: a person's id (every front end's people have positive ids), a computer player's code (a
negative number that names its level), or None for an empty seat. Everything else asks the
helpers below and never looks at the number itself. Which front end a person belongs to is
their kind (`PersonKind`), recorded with them (`players.kind`), never read from their id.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import TypeGuard

# How a seat is stored: a person's id, a computer player's code (COMPUTER_LEVELS), or None.
Occupant = int | None

COMPUTER_LEVELS: dict[int, str] = {-1: "facil", -2: "normal", -3: "dificil"}
COMPUTER_CODES: dict[str, int] = {level: code for code, level in COMPUTER_LEVELS.items()}


class PersonKind(StrEnum):
    """Which front end a person belongs to (stored as these strings): Telegram's, whose ids
    Telegram gives; or the web try-out's (`python -m bot --local`), whose ids the database
    allocates."""

    TELEGRAM = "telegram"
    TRYOUT = "tryout"


# Where the database's own numbering of people starts (the try-out's): above every id Telegram
# gives (at most 52 significant bits), so that one database may hold both kinds without two
# people sharing an id, and whole in a page's JavaScript numbers. Only the allocation reads it:
# a person's kind is what they were recorded as.
ALLOCATED_FROM = 2**52


def is_person(occupant: Occupant) -> TypeGuard[int]:
    return occupant is not None and occupant > 0


def is_computer(occupant: Occupant) -> bool:
    return occupant is not None and occupant < 0


def computer_level(occupant: Occupant) -> str | None:
    """A computer player's level; None for a person or an empty seat."""
    return COMPUTER_LEVELS.get(occupant) if occupant is not None else None


def people(occupants: Iterable[Occupant]) -> list[int]:
    """The people among `occupants`, in order (computer players and empty seats left out)."""
    return [o for o in occupants if is_person(o)]


def computer_sql(column: str) -> str:
    """An SQL condition: `column` holds a computer player (the codes listed, so that no query
    tests a sign)."""
    return f"{column} IN ({', '.join(str(code) for code in COMPUTER_LEVELS)})"
