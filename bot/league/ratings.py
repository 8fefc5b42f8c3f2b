"""Skill ratings with openskill (Weng-Lin, Plackett-Luce): made for teams, so a 2v2 win
is shared by the pair instead of counting as two solo wins."""

from __future__ import annotations

from collections.abc import Sequence
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
