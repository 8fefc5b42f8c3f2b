"""What the league tells: standings, pairs, a player's numbers, rating changes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.league.ratings import Rated, Rating
from bot.league.stats import PlayerMatchStats


@dataclass(frozen=True)
class Standing:
    user_id: int
    name: str
    played: int
    won: int
    points_for: int
    points_against: int
    rating: float
    streak: int  # +3: three wins in a row; -2: two losses

    @property
    def lost(self) -> int:
        return self.played - self.won


@dataclass(frozen=True)
class Tally:
    """A player's sums over a group's counted matches, and their rating in the group (None:
    never rated): what the storage reads for /tabla, before the league ranks it."""

    user_id: int
    name: str
    played: int
    won: int
    points_for: int
    points_against: int
    rated: Rated | None


def ranked(tallies: Iterable[Tally], streaks: dict[int, int] | None = None) -> list[Standing]:
    """The standings: each player's shown rating (a player never rated has the default), sorted
    by it, then by wins, fewer matches, the user id. The streak is `streaks`' (over the matches
    the standings count), else the group's current one (its ratings' matches)."""
    standings = [
        Standing(
            t.user_id, t.name, t.played, t.won, t.points_for, t.points_against,
            (t.rated.rating if t.rated else Rating()).shown,
            streaks.get(t.user_id, 0) if streaks is not None
            else t.rated.streak if t.rated else 0,
        )
        for t in tallies
    ]  # fmt: skip
    standings.sort(key=lambda s: (-s.rating, -s.won, s.played, s.user_id))
    return standings


@dataclass(frozen=True)
class Pair:
    """Players who played on one side (two in 2v2, three in 3v3), and how they did."""

    names: tuple[str, ...]
    played: int
    won: int


@dataclass(frozen=True)
class PlayerNumbers:
    played: int
    won: int
    totals: PlayerMatchStats  # sums over the counted matches (best_envido: see below)
    best_envido: int
    partner: str | None
    partner_matches: int


@dataclass(frozen=True)
class RatingChange:
    user_id: int
    name: str
    before: float
    after: float
