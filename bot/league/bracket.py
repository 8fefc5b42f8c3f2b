"""A tournament's ties as plain values: a format's name, a tie (`Fixture`) and the matches of its
series (`Game`), and a line of a table of standings (`Line`). The formats (`bot.league.formats`)
lay these out and move them on; `bot.league.tournament` holds the whole tournament."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol


class Format(StrEnum):
    KNOCKOUT = "ko"  # eliminación directa
    LEAGUE = "liga"  # liguilla: everyone against everyone
    SWISS = "suizo"  # a few rounds, each paired by the score so far
    ARENA = "relampago"  # a fixed time; whoever is free is paired again at once


@dataclass(frozen=True)
class Game:
    """One finished match of a series: its table, the fixture's side that won it (0: `a`,
    1: `b`), the points each side made, whether it was a walkover, and whether neither side
    came to it (`nobody`: the better seed was given it, by the rule the group is told)."""

    table: int
    winner: int
    points: tuple[int, int]
    walkover: bool = False
    nobody: bool = False

    def to_json(self) -> list[Any]:
        return [self.table, self.winner, list(self.points), self.walkover, self.nobody]

    @staticmethod
    def from_json(data: Sequence[Any]) -> Game:
        table, winner, points, walkover, *rest = data
        nobody = bool(rest[0]) if rest else False
        return Game(
            int(table), int(winner), (int(points[0]), int(points[1])), bool(walkover), nobody
        )


@dataclass
class Fixture:
    """A tie between entries `a` and `b` (None: not known yet, the winner of an earlier
    fixture; in a first round of eliminación, a bye)."""

    round: int
    slot: int
    a: int | None = None
    b: int | None = None
    games: list[Game] = field(default_factory=list)
    winner: int | None = None  # the entry that won the tie
    bye: bool = False  # decided without a match: the other entry does not exist
    walkover: bool = False  # decided because a side did not turn up
    ended_at: float | None = None  # when it was decided (an arena waits from then)
    at: float | None = None  # when it was paired (an arena's)

    @property
    def key(self) -> tuple[int, int]:
        return (self.round, self.slot)

    @property
    def decided(self) -> bool:
        return self.winner is not None

    @property
    def ready(self) -> bool:
        """Both entries known and the tie still to be played."""
        return self.a is not None and self.b is not None and self.winner is None

    def wins(self) -> tuple[int, int]:
        won = [0, 0]
        for game in self.games:
            won[game.winner] += 1
        return (won[0], won[1])

    def points(self) -> tuple[int, int]:
        return (sum(g.points[0] for g in self.games), sum(g.points[1] for g in self.games))

    def entry_of(self, side: int) -> int | None:
        return self.a if side == 0 else self.b

    def to_json(self) -> dict[str, Any]:
        return {
            "r": self.round, "s": self.slot, "a": self.a, "b": self.b,
            "g": [g.to_json() for g in self.games], "w": self.winner, "bye": self.bye,
            "wo": self.walkover, "e": self.ended_at, "at": self.at,
        }  # fmt: skip

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Fixture:
        return Fixture(
            int(data["r"]), int(data["s"]), data["a"], data["b"],
            [Game.from_json(g) for g in data["g"]], data["w"], bool(data["bye"]),
            bool(data["wo"]), None if data.get("e") is None else float(data["e"]),
            None if data.get("at") is None else float(data["at"]),
        )  # fmt: skip


@dataclass(frozen=True)
class Line:
    """An entry's line in a table of standings (a liguilla's, a Swiss's): ties played and won,
    points made and let in; a Swiss's byes (each scores as a tie won) and Buchholz (the sum of
    the scores of the rivals it met; None where the format has no such tie-break)."""

    entry: int
    played: int
    won: int
    points_for: int
    points_against: int
    byes: int = 0
    buchholz: int | None = None
    scored: int | None = None  # an arena's points (wins, doubled on a streak)
    fire: bool = False  # an arena's entry on a streak: its next win scores double

    @property
    def lost(self) -> int:
        return self.played - self.won

    @property
    def score(self) -> int:
        """Ties won, a bye counted as one (an arena's: its points)."""
        return self.scored if self.scored is not None else self.won + self.byes

    @property
    def diff(self) -> int:
        return self.points_for - self.points_against


class Bracket(Protocol):
    """What of a tournament its format reads and moves: the entries by seed, the fixtures
    (a format may append a round), the rounds asked for, an arena's minutes, when it started,
    the entries paused (an arena's), the rounds laid out so far."""

    entries: list[tuple[int, ...]]
    fixtures: list[Fixture]
    planned: int
    minutes: int
    started_at: float | None
    paused: list[int]

    @property
    def rounds(self) -> int: ...
