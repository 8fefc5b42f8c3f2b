"""What an action caused, as frozen values, in the order it happened."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from bot.game.actions import ActionKind
from bot.game.cards import Card


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


@dataclass(frozen=True, slots=True)
class HandDealt:
    hand_number: int
    dealer: int
    mano: int


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    card: Card
    round_index: int


@dataclass(frozen=True, slots=True)
class RoundWon:
    """`side` is None for a parda; `seat` is the player whose card won."""

    round_index: int
    side: int | None
    seat: int | None


@dataclass(frozen=True, slots=True)
class Chanted:
    """A chant (truco, envido and flor families) or an answer (quiero, no quiero, achico)."""

    seat: int
    kind: ActionKind


@dataclass(frozen=True, slots=True)
class Said:
    """One player's word when envido or flor values are compared (R19): their value, or
    None for "son buenas" (which reveals nothing)."""

    seat: int
    value: int | None

    @property
    def side(self) -> int:
        return self.seat % 2


@dataclass(frozen=True, slots=True)
class EnvidoResolved:
    wanted: bool
    winner: int
    points: int
    values: tuple[Said, ...]  # what was said, in the order said (R19); empty when not wanted


@dataclass(frozen=True, slots=True)
class EnvidoAnnulled:
    """A flor declared while an envido waited (R21)."""

    seat: int


@dataclass(frozen=True, slots=True)
class FlorResolved:
    winner: int
    points: int
    reason: ScoreReason
    values: tuple[Said, ...]  # compared flores, said as envido values are (R19, R22)


@dataclass(frozen=True, slots=True)
class Scored:
    side: int
    points: int
    reason: ScoreReason
    total: int


@dataclass(frozen=True, slots=True)
class WentToMazo:
    seat: int


@dataclass(frozen=True, slots=True)
class HandEnded:
    """`shown` holds the cards that prove the envido and flor points scored in the hand."""

    hand_number: int
    winner: int | None
    points: int
    reason: HandEnd
    shown: tuple[tuple[int, tuple[Card, ...]], ...]


@dataclass(frozen=True, slots=True)
class MatchEnded:
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
    | MatchEnded
)
