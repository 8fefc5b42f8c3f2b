"""Skill ratings with openskill (Weng-Lin, Plackett-Luce): made for teams, so a 2v2 win
is shared by the pair instead of counting as two solo wins."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
PROVISIONAL_MATCHES = 5  # fewer than this: listed apart, so one lucky win does not top the table


@dataclass(frozen=True)
class Rating:
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def shown(self) -> float:
        """The conservative estimate (mu - 3 sigma): what the table shows and sorts by."""
        return self.mu - 3 * self.sigma


def rate(sides: Sequence[Sequence[Rating]], winner: int) -> list[list[Rating]]:
    """New ratings after a match between two sides; `winner` is 0 or 1."""
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma) for r in side] for side in sides]
    ranks: list[float] = [0.0, 1.0] if winner == 0 else [1.0, 0.0]
    rated = MODEL.rate(teams, ranks=ranks)
    return [[Rating(float(p.mu), float(p.sigma)) for p in team] for team in rated]


@dataclass(frozen=True)
class Rated:
    """A player's standing in a group's ratings: the rating, matches rated, the streak."""

    rating: Rating = Rating()
    matches: int = 0
    streak: int = 0  # +3: three wins in a row; -2: two losses


@dataclass(frozen=True)
class Rerated:
    """One player's numbers after a rated match: what the group's ratings and the match's
    rating line are written from."""

    user_id: int
    before: Rating
    after: Rated


def next_streak(streak: int, won: bool) -> int:
    """+3 is three wins in a row, -2 two losses in a row."""
    if won:
        return streak + 1 if streak > 0 else 1
    return streak - 1 if streak < 0 else -1


def rate_sides(
    sides: Sequence[Sequence[int]], known: Mapping[int, Rated], winner: int
) -> list[Rerated]:
    """The players of both sides (user ids, side 0 first) after a match `winner` won, from what
    the group's ratings held of them (`known`; a newcomer starts at the default)."""
    now = [[known.get(user, Rated()) for user in side] for side in sides]
    after = rate([[r.rating for r in side] for side in now], winner)
    return [
        Rerated(user, old.rating, Rated(new, old.matches + 1, next_streak(old.streak, won)))
        for side, (users, olds, news) in enumerate(zip(sides, now, after, strict=True))
        for won in [side == winner]
        for user, old, new in zip(users, olds, news, strict=True)
    ]
