"""What the league tells: standings, pairs, a player's numbers, rating changes."""

from __future__ import annotations

from dataclasses import dataclass


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
class Pair:
    """Players who played on one side (two in 2v2, three in 3v3), and how they did."""

    names: tuple[str, ...]
    played: int
    won: int


@dataclass(frozen=True)
class PlayerNumbers:
    played: int
    won: int
    totals: dict[str, int]
    best_envido: int
    partner: str | None
    partner_matches: int


@dataclass(frozen=True)
class RatingChange:
    user_id: int
    name: str
    before: float
    after: float
