"""A table in a group (or a forum topic, or the local try-out): a lobby, then a match.

The core's own table, with nothing of any front end on it: Telegram's message ids and join
links are the Telegram adapter's records (`bot.telegram.records`), kept by table id.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.game import ActionKind, MatchConfig, MatchState
from bot.game.seats import Seats, seats
from bot.model.occupants import (
    COMPUTER_CODES,
    COMPUTER_LEVELS,
    Occupant,
    PersonKind,
    computer_level,
    is_computer,
    is_person,
    people,
)
from bot.model.options import DEFAULT_BOT_LEVEL, TableOptions
from bot.model.outcome import Outcome
from bot.model.tourney import TourneyPlace


class TableStatus(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    CANCELLED = "cancelled"


OPEN_STATUSES = (TableStatus.LOBBY, TableStatus.PLAYING)


class PlaceKind(StrEnum):
    """What kind of place a table is in (stored as these strings): a group's (or a forum
    topic's, or a tournament's of that group), whose members sit; a practice, one person's
    table with computer players in their own chat; or the web try-out's (`python -m bot
    --local`), which no Telegram chat is."""

    GROUP = "group"
    PRACTICE = "practice"
    TRYOUT = "tryout"


# A computer player's level by its occupant code, and back (`bot.model.occupants` writes them).
BOT_LEVELS = COMPUTER_LEVELS
BOT_IDS = COMPUTER_CODES
is_bot = is_computer


class Note(StrEnum):
    """What a line of a table's recent calls says, besides a chant (stored as these strings)."""

    MAZO = "mazo"
    ENVIDO_VALUES = "envido_values"
    FLOR_VALUES = "flor_values"
    ENVIDO_ANNULLED = "envido_annulled"
    CONCEDE = "concede"
    # The points an envido or a flor gave the moment they were decided: values hold
    # (side, points).
    ENVIDO_SCORED = "envido_scored"
    FLOR_SCORED = "flor_scored"


NOTES = frozenset(n.value for n in Note)


@dataclass(frozen=True)
class Call:
    """One line of the hand's recent calls: a chant or answer (`what` is an ActionKind), a note
    (a Note), or the values said (`values`: (seat, value) pairs in the order said, value None
    for "son buenas"; `seat` is None). Stored as `[seat, what, values]` lists, seat -1 for
    none."""

    seat: int | None
    what: ActionKind | Note
    values: tuple[tuple[int, int | None], ...] = ()

    def to_json(self) -> list[Any]:
        values = [list(v) for v in self.values] if self.values else None
        return [-1 if self.seat is None else self.seat, self.what.value, values]

    @staticmethod
    def from_json(entry: Sequence[Any]) -> Call:
        seat, what, values = entry
        kind: ActionKind | Note = Note(what) if what in NOTES else ActionKind(what)
        pairs = tuple((int(s), None if v is None else int(v)) for s, v in values) if values else ()
        return Call(None if seat is None or seat < 0 else int(seat), kind, pairs)


@dataclass(frozen=True)
class Sign:
    """A seña of the match: at hand `hand`, when the match had taken `step` actions, `seat`
    showed its partners the seña `sign` (a code of `bot.ai.signs.SIGNS`); `caught_by`, the
    rival seats that caught it. Stored as `[hand, step, seat, sign, caught_by]` lists."""

    hand: int
    step: int
    seat: int
    sign: str
    caught_by: tuple[int, ...] = ()

    def to_json(self) -> list[Any]:
        return [self.hand, self.step, self.seat, self.sign, list(self.caught_by)]

    @staticmethod
    def from_json(entry: Sequence[Any]) -> Sign:
        hand, step, seat, sign, caught = entry
        return Sign(int(hand), int(step), int(seat), str(sign), tuple(int(s) for s in caught))


@dataclass
class Table:
    """A table: who opened it where, its options and seats, then its match."""

    id: int
    chat_id: int
    thread_id: int
    status: TableStatus
    opener_id: int
    config: MatchConfig
    seats: list[Occupant]
    language: str
    created_at: float
    updated_at: float
    state: MatchState | None = None
    version: int = 0
    calls: list[Call] = field(default_factory=list)  # the hand's recent calls
    started_at: float | None = None
    ended_at: float | None = None
    turn_seconds: int = 0  # 0: sin tiempo
    deadline: float | None = None  # when the player the game waits on runs out of time
    strikes: list[int] = field(default_factory=lambda: [0, 0])  # timeouts in a row, per side
    vacated: int | None = None  # a seat whose player left: the others choose bot or end
    reminded: int | None = None  # the step whose half-time reminder was sent (once)
    acted: dict[int, float] = field(default_factory=dict)  # person -> when they last acted
    # (by their own hand, and not timed out since: the Telegram adapter's "looking at it")
    came: list[int] = field(default_factory=list)  # people who ever acted by their own hand
    # since the match opened (a timeout never takes anyone out: a tournament's walkover)
    seed: str | None = None  # every deal comes from it (bot/game/fair.py); secret until the end
    # The first table of a chain of 🔁 Revanchas this one continues (its computer players
    # are that table's: the same names and characters); None: not a rematch.
    rematch_of: int | None = None
    outcome: Outcome | None = None  # the game's end, set when it ends (not the league's result:
    # see `bot.model.outcome`)
    tournament: TourneyPlace | None = None  # a tournament's match: the tie and match it plays
    hints: bool = False  # 💡 consejos: a seat may ask what difícil would do
    hinted: list[int] = field(default_factory=list)  # the people who asked (then: not rated)
    handed: int | None = None  # the step a person handed to their computer partner
    # When the full lobby joined the line of tables waiting to start (the bot carried as many
    # matches as Telegram's budget allows: `bot.service.admission`); kept once it starts (the
    # wait is started_at - queued), None: it never waited, or a player left the line.
    queued: float | None = None
    place: PlaceKind = PlaceKind.GROUP
    # Every seña made in the match, in order: part of the match (every worker and a restarted
    # bot know them; a replay shows each where it was made).
    signs: list[Sign] = field(default_factory=list)

    @property
    def lineage(self) -> int:
        """The table whose number draws its computer players' names and characters: the first
        of a chain of rematches (a rematch keeps its computer players), else this one."""
        return self.rematch_of if self.rematch_of is not None else self.id

    @property
    def practice(self) -> bool:
        """One person's table with computer players, in their own chat."""
        return self.place is PlaceKind.PRACTICE

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    @property
    def in_line(self) -> bool:
        """A full lobby waiting in line for the bot to carry one more match."""
        return self.status is TableStatus.LOBBY and self.queued is not None

    @property
    def geometry(self) -> Seats:
        """Who is whose partner, rival and opposite at this table."""
        return seats(self.config.players)

    def seat_of(self, user_id: int) -> int | None:
        """The seat of a person (never of a computer player)."""
        if not is_person(user_id):
            return None
        for seat, occupant in enumerate(self.seats):
            if occupant == user_id:
                return seat
        return None

    @property
    def players(self) -> list[int]:
        """The people seated (computer players are not among them)."""
        return people(self.seats)

    @property
    def bot_seats(self) -> list[int]:
        return [seat for seat, u in enumerate(self.seats) if is_bot(u)]

    def bot_level(self, seat: int) -> str | None:
        return computer_level(self.seats[seat])

    @property
    def options(self) -> TableOptions:
        """The table's options as they stand (its bots' level, or the default)."""
        bots = self.bot_seats
        level = self.bot_level(bots[0]) if bots else None
        return TableOptions(self.config, self.turn_seconds, level or DEFAULT_BOT_LEVEL, self.hints)

    def hand_signs(self) -> list[Sign]:
        """The señas made in the hand in play (none in a pica-pica duel: R40)."""
        state = self.state
        if state is None or state.hand is None:
            return []
        return [s for s in self.signs if s.hand == state.hand_number]

    def signs_to(self, seat: int) -> list[Sign]:
        """The señas `seat`'s partners showed it in the hand in play, in order."""
        partners = set(self.geometry.partners(seat))
        return [s for s in self.hand_signs() if s.seat in partners]

    def signs_caught_by(self, seat: int) -> list[Sign]:
        """The rivals' señas `seat` caught in the hand in play."""
        return [s for s in self.hand_signs() if seat in s.caught_by]

    @property
    def scores(self) -> tuple[int, int]:
        state = self.state
        return (state.scores[0], state.scores[1]) if state is not None else (0, 0)


class HandPlace(StrEnum):
    """Where a person's hand lives at a group's table (stored as these strings): in the group
    itself, seen by them alone, or in their private chat with the bot."""

    GROUP = "group"
    PRIVATE = "private"


@dataclass(frozen=True)
class Player:
    """A person as the bot knows them."""

    user_id: int
    name: str
    username: str | None
    can_dm: bool
    hand_place: HandPlace | None = None  # their choice (None: none made)
    kind: PersonKind = PersonKind.TELEGRAM  # the front end they belong to

    @property
    def plays_in(self) -> HandPlace:
        """Where their hand lives at a group's table: their choice, else their private chat if
        they ever started the bot there, else the group."""
        if self.hand_place is not None:
            return self.hand_place
        return HandPlace.PRIVATE if self.can_dm else HandPlace.GROUP
