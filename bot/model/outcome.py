"""How a match ended: one typed value, for two facts, each stored once (no front end works either
out again from what it shows):
- the game's end, `Table.outcome` (`games.outcome`): how play at the table ended, a computer
  player's play in a seat a person left included. The table's texts and a tournament read it.
- the league's result, `TableChange.credited` then the `matches` row (`MatchRecord`): what the
  league credits. /tabla, the ratings, /historial and /partida's export read it.
They are one value but when a side leaves a 2v2 and the match goes on: the league credits the
other side at once, at the score of that moment, whatever the game's end turns out to be (the
side that left may even win the game with a computer player in its seat). Neither can be worked
out from the other."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.game.seats import side_of


class Termination(StrEnum):
    TARGET = "target"  # a side reached the points of the match
    CONCESSION = "concession"  # a side conceded (/abandonar, /cancelar from a seat, or its
    # partner chose to end when the seat was left empty)
    TIMEOUTS = "timeouts"  # a side ran out of time three turns in a row (or left a seat empty
    # and nobody chose in time)
    CANCELLED = "cancelled"  # stopped by an admin who does not play, or the bot left the group
    WALKOVER = "walkover"  # a tournament's match: a side that never turned up (none of its
    # players acted in the match's start window)


LEAVING = (Termination.CONCESSION, Termination.TIMEOUTS, Termination.WALKOVER)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a match: how, which side won it (None: cancelled, nobody won), the final score,
    and the seat whose side conceded or ran out of time (None otherwise)."""

    termination: Termination
    winner: int | None
    scores: tuple[int, int]
    seat: int | None = None

    def __post_init__(self) -> None:
        if (self.winner is None) != (self.termination is Termination.CANCELLED):
            raise ValueError("a cancelled match has no winner, and every other one has")
        if self.winner is not None and self.winner not in (0, 1):
            raise ValueError(f"no side {self.winner}")
        leaving = self.termination in LEAVING
        if leaving and self.seat is None:
            raise ValueError("a concession names the seat whose side conceded")
        if leaving and self.seat is not None and side_of(self.seat) == self.winner:
            raise ValueError("the side that concedes does not win")

    @property
    def conceded(self) -> bool:
        """Ended by a side leaving (a concession or its timeouts), not on the score."""
        return self.termination in LEAVING

    @property
    def loser(self) -> int | None:
        return None if self.winner is None else 1 - self.winner

    @staticmethod
    def reached(winner: int, scores: tuple[int, int]) -> Outcome:
        return Outcome(Termination.TARGET, winner, scores)

    @staticmethod
    def left(seat: int, scores: tuple[int, int], timed_out: bool = False) -> Outcome:
        """The side of `seat` conceded (or ran out of time): the other side wins."""
        how = Termination.TIMEOUTS if timed_out else Termination.CONCESSION
        return Outcome(how, 1 - side_of(seat), scores, seat)

    @staticmethod
    def walkover(seat: int, scores: tuple[int, int]) -> Outcome:
        """The side of `seat` never turned up: the other side wins the match."""
        return Outcome(Termination.WALKOVER, 1 - side_of(seat), scores, seat)

    @staticmethod
    def cancelled(scores: tuple[int, int]) -> Outcome:
        return Outcome(Termination.CANCELLED, None, scores)

    def to_json(self) -> list[Any]:
        return [self.termination.value, self.winner, list(self.scores), self.seat]

    @staticmethod
    def from_json(data: list[Any]) -> Outcome:
        how, winner, scores, seat = data
        return Outcome(
            Termination(how),
            None if winner is None else int(winner),
            (int(scores[0]), int(scores[1])),
            None if seat is None else int(seat),
        )
