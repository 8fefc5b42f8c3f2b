"""What an action caused, as immutable values, in the order it happened.

Each is a named tuple that equals only values of its own class (`_value`): the engine makes one
or two at every step of every playout, and a frozen dataclass took five times as long to make."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple, TypeVar

from bot.game.actions import ActionKind
from bot.game.cards import Card

T = TypeVar("T")


def _value(cls: type[T]) -> type[T]:
    """A named tuple that equals (and hashes as) only instances of its own class."""

    def eq(self: tuple[Any, ...], other: object) -> bool:
        return type(self) is type(other) and tuple.__eq__(self, other)

    def ne(self: tuple[Any, ...], other: object) -> bool:
        return not eq(self, other)

    def hashed(self: tuple[Any, ...]) -> int:
        return hash((type(self).__name__, tuple(self)))

    cls.__eq__ = eq  # type: ignore[assignment,method-assign]
    cls.__ne__ = ne  # type: ignore[assignment,method-assign]
    cls.__hash__ = hashed  # type: ignore[assignment,method-assign]
    return cls


class ScoreReason(StrEnum):
    ENVIDO = "envido"  # wanted envido won
    ENVIDO_NOT_WANTED = "envido_not_wanted"
    FLOR = "flor"  # a flor nobody could contest (3)
    FLOR_CONTEST = "flor_contest"  # best flor of a contested exchange
    FLOR_ACHICO = "flor_achico"  # con flor me achico
    FLOR_NOT_WANTED = "flor_not_wanted"  # contraflor al resto not wanted
    HAND = "hand"  # rounds won: the truco value
    TRUCO_NOT_WANTED = "truco_not_wanted"
    MAZO = "mazo"


class HandEnd(StrEnum):
    ROUNDS = "rounds"
    NO_QUIERO = "no_quiero"
    MAZO = "mazo"
    MATCH_OVER = "match_over"


@_value
class HandDealt(NamedTuple):
    hand_number: int
    dealer: int
    mano: int


@_value
class CardPlayed(NamedTuple):
    seat: int
    card: Card
    round_index: int


@_value
class RoundWon(NamedTuple):
    """`side` is None for a parda; `seat` is the player whose card won."""

    round_index: int
    side: int | None
    seat: int | None


@_value
class Chanted(NamedTuple):
    """A chant (truco, envido and flor families) or an answer (quiero, no quiero, achico)."""

    seat: int
    kind: ActionKind


@_value
class Said(NamedTuple):
    """One player's word when envido or flor values are compared (R19): their value, or
    None for "son buenas" (which reveals nothing)."""

    seat: int
    value: int | None

    @property
    def side(self) -> int:
        return self.seat % 2


@_value
class EnvidoResolved(NamedTuple):
    wanted: bool
    winner: int
    points: int
    values: tuple[Said, ...]  # what was said, in the order said (R19); empty when not wanted


@_value
class EnvidoAnnulled(NamedTuple):
    """A flor declared while an envido waited (R21)."""

    seat: int


@_value
class FlorResolved(NamedTuple):
    winner: int
    points: int
    reason: ScoreReason
    values: tuple[Said, ...]  # compared flores, said as envido values are (R19, R22)


@_value
class Scored(NamedTuple):
    side: int
    points: int
    reason: ScoreReason
    total: int


@_value
class WentToMazo(NamedTuple):
    seat: int


@_value
class HandEnded(NamedTuple):
    """`shown` holds the cards that prove the envido and flor points scored in the hand."""

    hand_number: int
    winner: int | None
    points: int
    reason: HandEnd
    shown: tuple[tuple[int, tuple[Card, ...]], ...]


@_value
class DuelStarted(NamedTuple):
    """A pica-pica hand's duel begins (R39): `first` (the duel mano) against `second`."""

    hand_number: int
    duel: int
    first: int
    second: int


@_value
class MatchEnded(NamedTuple):
    winner: int
    scores: tuple[int, int]


Event = (
    HandDealt
    | CardPlayed
    | RoundWon
    | Chanted
    | EnvidoResolved
    | EnvidoAnnulled
    | FlorResolved
    | Scored
    | WentToMazo
    | HandEnded
    | DuelStarted
    | MatchEnded
)
