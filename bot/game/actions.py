"""What a player can do, as small frozen values, and the deal (the chance action)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from bot.game.cards import DECK, Card
from bot.game.seats import MAX_SEATS


class ActionKind(StrEnum):
    PLAY = "play"
    TRUCO = "truco"
    RETRUCO = "retruco"
    VALE_CUATRO = "vale_cuatro"
    QUIERO = "quiero"
    NO_QUIERO = "no_quiero"
    ENVIDO = "envido"
    REAL_ENVIDO = "real_envido"
    FALTA_ENVIDO = "falta_envido"
    FLOR = "flor"
    CONTRAFLOR = "contraflor"
    CONTRAFLOR_AL_RESTO = "contraflor_al_resto"
    CON_FLOR_ME_ACHICO = "con_flor_me_achico"
    MAZO = "mazo"


TRUCO_CHANTS: tuple[ActionKind, ...] = (
    ActionKind.TRUCO,
    ActionKind.RETRUCO,
    ActionKind.VALE_CUATRO,
)
ENVIDO_CHANTS: tuple[ActionKind, ...] = (
    ActionKind.ENVIDO,
    ActionKind.REAL_ENVIDO,
    ActionKind.FALTA_ENVIDO,
)
FLOR_CHANTS: tuple[ActionKind, ...] = (
    ActionKind.FLOR,
    ActionKind.CONTRAFLOR,
    ActionKind.CONTRAFLOR_AL_RESTO,
)

# Short codes for button data and compact logs; stable, never reuse one.
KIND_CODES: dict[ActionKind, str] = {
    ActionKind.PLAY: "p",
    ActionKind.TRUCO: "t",
    ActionKind.RETRUCO: "rt",
    ActionKind.VALE_CUATRO: "v4",
    ActionKind.QUIERO: "q",
    ActionKind.NO_QUIERO: "nq",
    ActionKind.ENVIDO: "e",
    ActionKind.REAL_ENVIDO: "re",
    ActionKind.FALTA_ENVIDO: "fe",
    ActionKind.FLOR: "f",
    ActionKind.CONTRAFLOR: "cf",
    ActionKind.CONTRAFLOR_AL_RESTO: "cfr",
    ActionKind.CON_FLOR_ME_ACHICO: "ach",
    ActionKind.MAZO: "m",
}
KINDS_BY_CODE: dict[str, ActionKind] = {code: kind for kind, code in KIND_CODES.items()}


@dataclass(frozen=True, slots=True)
class Action:
    """A seat does something. `card` is set exactly for PLAY."""

    seat: int
    kind: ActionKind
    card: Card | None = None
    # `0:p:1e`, `1:q`: compact, parsed back by `Action.parse`; made once (every snapshot and
    # log line writes the actions a hand holds by their codes)
    code: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (self.kind is ActionKind.PLAY) != (self.card is not None):
            raise ValueError("a card goes with PLAY and only with PLAY")
        base = f"{self.seat}:{KIND_CODES[self.kind]}"
        code = f"{base}:{self.card.code}" if self.card is not None else base
        object.__setattr__(self, "code", code)

    @staticmethod
    def parse(code: str) -> Action:
        parts = code.split(":")
        if len(parts) not in (2, 3) or not parts[0].isascii() or not parts[0].isdigit():
            raise ValueError(f"not an action: {code!r}")
        kind = KINDS_BY_CODE.get(parts[1])
        if kind is None:
            raise ValueError(f"not an action: {code!r}")
        played = Card.parse(parts[2]) if len(parts) == 3 else None
        return Action(int(parts[0]), kind, played)

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True, slots=True)
class Deal:
    """Chance's action: the three cards of every seat, seat 0 first."""

    hands: tuple[tuple[Card, ...], ...]

    @property
    def code(self) -> str:
        return "deal:" + "|".join(" ".join(c.code for c in hand) for hand in self.hands)

    @staticmethod
    def parse(code: str) -> Deal:
        if not code.startswith("deal:"):
            raise ValueError(f"not a deal: {code!r}")
        hands = tuple(tuple(Card.parse(c) for c in hand.split()) for hand in code[5:].split("|"))
        return Deal(hands)


AnyAction = Action | Deal


def parse_any(code: str) -> AnyAction:
    return Deal.parse(code) if code.startswith("deal:") else Action.parse(code)


# Every player action that can ever exist, interned so legality checks compare identities:
# per seat, its calls by kind and its plays by card.
CALLS: tuple[dict[ActionKind, Action], ...] = tuple(
    {kind: Action(seat, kind) for kind in ActionKind if kind is not ActionKind.PLAY}
    for seat in range(MAX_SEATS)
)
PLAYS: tuple[dict[Card, Action], ...] = tuple(
    {c: Action(seat, ActionKind.PLAY, c) for c in DECK} for seat in range(MAX_SEATS)
)


def act(seat: int, kind: ActionKind, played: Card | None = None) -> Action:
    """The shared instance of an action (a new one for a seat no table has)."""
    if 0 <= seat < MAX_SEATS:
        if played is None:
            found = CALLS[seat].get(kind)
        else:
            found = PLAYS[seat].get(played) if kind is ActionKind.PLAY else None
        if found is not None:
            return found
    return Action(seat, kind, played)


def play_action(seat: int, played: Card) -> Action:
    return PLAYS[seat][played]


def call_action(seat: int, kind: ActionKind) -> Action:
    return CALLS[seat][kind]


ALL_ACTIONS: tuple[Action, ...] = tuple(
    a for seat in range(MAX_SEATS) for a in (*CALLS[seat].values(), *PLAYS[seat].values())
)
