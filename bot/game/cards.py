"""The Spanish 40-card deck: cards, strength (R2), envido (R14) and flor (R20) values."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum


class Suit(StrEnum):
    ORO = "o"
    COPA = "c"
    ESPADA = "e"
    BASTO = "b"


NUMBERS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)

# R2: strength, highest first; cards in one group are equal.
_STRENGTH_ORDER: tuple[tuple[tuple[int, Suit | None], ...], ...] = (
    ((1, Suit.ESPADA),),
    ((1, Suit.BASTO),),
    ((7, Suit.ESPADA),),
    ((7, Suit.ORO),),
    ((3, None),),
    ((2, None),),
    ((1, Suit.COPA), (1, Suit.ORO)),
    ((12, None),),
    ((11, None),),
    ((10, None),),
    ((7, Suit.COPA), (7, Suit.BASTO)),
    ((6, None),),
    ((5, None),),
    ((4, None),),
)


def _strength(number: int, suit: Suit) -> int:
    top = len(_STRENGTH_ORDER)
    for index, group in enumerate(_STRENGTH_ORDER):
        for group_number, group_suit in group:
            if group_number == number and (group_suit is None or group_suit == suit):
                return top - index
    raise ValueError(f"no strength for {number} {suit}")  # pragma: no cover


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card. Use `card(...)` or `Card.parse(...)`: every card is one shared instance,
    so equality and hashing are by identity (fast, and the engine compares cards a lot)."""

    number: int
    suit: Suit
    strength: int
    envido_value: int  # R14: 10, 11 and 12 count 0
    code: str  # "1e", "7o", "12b": number and suit initial

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self.code,))  # unpickled as the shared instance (process pools)

    @staticmethod
    def parse(code: str) -> Card:
        try:
            return _BY_CODE[code]
        except KeyError:
            raise ValueError(f"not a card: {code!r}") from None


def _make(number: int, suit: Suit) -> Card:
    envido = 0 if number >= 10 else number
    return Card(number, suit, _strength(number, suit), envido, f"{number}{suit.value}")


DECK: tuple[Card, ...] = tuple(_make(n, s) for s in Suit for n in NUMBERS)
_BY_CODE: dict[str, Card] = {c.code: c for c in DECK}


def card(number: int, suit: Suit | str) -> Card:
    return Card.parse(f"{number}{Suit(suit).value}")


def cards(codes: str) -> tuple[Card, ...]:
    """`cards("1e 7o 4b")` -> three cards; handy for tests and logs."""
    return tuple(Card.parse(code) for code in codes.split())


def envido_cards(hand: Sequence[Card]) -> tuple[Card, ...]:
    """The cards that make a hand's envido (R14): the best two of one suit, else the best one."""
    best: tuple[int, tuple[Card, ...]] = (-1, ())
    for i, a in enumerate(hand):
        if a.envido_value > best[0]:
            best = (a.envido_value, (a,))
        for b in hand[i + 1 :]:
            if a.suit == b.suit:
                value = 20 + a.envido_value + b.envido_value
                if value > best[0]:
                    best = (value, (a, b))
    return best[1]


def envido_value(hand: Iterable[Card]) -> int:
    """R14. Three of a suit (flor off) count their best two; maximum 33."""
    chosen = envido_cards(tuple(hand))
    total = sum(c.envido_value for c in chosen)
    return total + 20 if len(chosen) == 2 else total


def has_flor(hand: Sequence[Card]) -> bool:
    """R20: three cards of one suit."""
    return len(hand) == 3 and hand[0].suit == hand[1].suit == hand[2].suit


def flor_value(hand: Sequence[Card]) -> int:
    """R20: the three values plus 20; 7, 6, 5 of a suit make 38."""
    return 20 + sum(c.envido_value for c in hand)
