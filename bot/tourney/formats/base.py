"""What every format declares (`Rules`): the rules it plays by, the words that name it in a
command and the number it takes (`Count`), whether its rounds eliminate, the names of its
rounds, and how the web page lays it out (`Page`). Each format is a file of its own beside
this one, which knows none of them: the package finds them (`bot.tourney.formats.found`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.tourney.bracket import Bracket, Fixture, Format, Line


@dataclass(frozen=True)
class Page:
    """How the web page lays a tournament of this format out. `view`: its ties drawn as a
    bracket ("bracket"), listed round by round ("rounds"), or only those in play and those
    played ("live"). `columns`: its standings' columns, in order, each a column the page knows
    ("played", "won", "points", "buchholz", "diff", "streak", "games", "in_play"). `board`:
    the page's word for its standings ("standings", "leaderboard")."""

    view: str = "rounds"
    columns: tuple[str, ...] = ("played", "won", "diff")
    board: str = "standings"

    def to_json(self) -> dict[str, Any]:
        return {"view": self.view, "columns": list(self.columns), "board": self.board}


@dataclass(frozen=True)
class Count:
    """A number `/torneo` may give a format after its word: the tournament's field it sets
    (`field`), the values it may take, and whether it must come right after the format's word
    (an arena's minutes: `relampago 30` is 30 minutes, not a target of 30) or anywhere after
    (a Swiss's rounds)."""

    field: str
    allowed: Sequence[int]
    right_after: bool = False


class Rules(ABC):
    """What a format decides. `least`/`most`: the entries it can start with."""

    format: Format  # its code (stored with its tournaments; its locale key's last word)
    offered = 99  # where it comes as the sign-up message's format button goes round (the
    # first: a tournament's format unless asked)
    words: tuple[str, ...] = ()  # the words that name it in `/torneo` (with or without accents)
    count: Count | None = None  # a number `/torneo` may give it after its word
    page: Page = Page()
    eliminates = False  # its rounds are eliminations (the final, the semifinals...): a player
    # is told where they go after the match that decided their tie, the group when the final
    # starts
    least: int = 2
    most: int = 32
    bye_scores = False  # a bye counts as a tie won (the Swiss), or only lets an entry through
    pairs_as_it_goes = False  # each round paired when the one before it ends (the Swiss)
    runs_on_time = False  # pairs whoever is free until its time is up (the arena): its table
    # is a leaderboard, its matches are listed only while in play, and it ends with a podium

    @abstractmethod
    def lay_out(self, t: Bracket) -> list[Fixture]:
        """The fixtures known when the tournament starts (its entries seeded)."""

    def advance(self, t: Bracket) -> None:
        """A tie of `t` was just decided: what that opens (nothing, by default)."""
        return None

    def over(self, t: Bracket, now: float | None = None) -> bool:
        """Whether it is over (`now`: the clock, for a format that runs on time)."""
        return all(f.decided for f in t.fixtures)

    def tick(self, t: Bracket, now: float) -> bool:
        """The clock says `now`: what a format that runs on time does (pairs whoever is free);
        True if it changed `t`. Nothing, by default."""
        return False

    @abstractmethod
    def champion(self, t: Bracket) -> int:
        """The winning entry (`over` said yes)."""

    def standings(self, t: Bracket) -> list[Line] | None:
        """The format's table, best first (None: it has none, as a knockout)."""
        return None

    def total_rounds(self, t: Bracket) -> int:
        """How many rounds it plays (the ones laid out, unless it pairs round by round)."""
        return t.rounds

    def rounds_told(self, t: Bracket) -> int | None:
        """The number of rounds its rules line tells (None: nothing to tell)."""
        return None

    def minutes_told(self, t: Bracket) -> int | None:
        """The minutes it lasts, told in its rules line (None: it runs to its last tie)."""
        return None

    def ends_at(self, t: Bracket) -> float | None:
        """When its time is up (None: it runs to its last tie)."""
        return None

    def doubled(self, t: Bracket, fixture: Fixture) -> bool:
        """Whether the win that decided `fixture` scored double (an arena's streak)."""
        return False

    @abstractmethod
    def round_key(self, t: Bracket, round_: int) -> str:
        """The locale key (under `tourney.`) naming round `round_`."""

    def next_round(self, t: Bracket, fixture: Fixture) -> int | None:
        """The round the winner of a decided tie goes on to (told with the result), or None."""
        return None
