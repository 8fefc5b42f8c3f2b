"""Señas (the rule sheet's signs between partners): what each one says about the cards, and
which ones a computer player shows its partner."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.game.cards import DECK, Card, envido_value

# The codes of the señas menu, in its order.
SIGNS: tuple[str, ...] = ("ae", "ab", "s7", "t3", "t2", "af", "ev", "no")

GOOD_ENVIDO = 28  # "buen envido"


_HIGH = {"ae": {"1e"}, "ab": {"1b"}, "s7": {"7e", "7o"}, "af": {"1c", "1o"}}


def _signs_of(card: Card) -> frozenset[str]:
    out = {sign for sign, codes in _HIGH.items() if card.code in codes}
    if card.number == 3:
        out.add("t3")
    if card.number == 2:
        out.add("t2")
    return frozenset(out)


# each card's señas, looked up: difícil's worlds test every hand of the unseen cards against a
# partner's señas (thousands a decision in 2v2)
_OF_CARD: dict[str, frozenset[str]] = {c.code: _signs_of(c) for c in DECK}


def card_signs(cards: Sequence[Card]) -> set[str]:
    """Every card seña that is true of these cards."""
    out: set[str] = set()
    for c in cards:
        out |= _OF_CARD[c.code]
    return out


def consistent(sign: str, dealt: Sequence[Card]) -> bool:
    """Whether a partner who made `sign` could hold `dealt` (an honest partner)."""
    if sign == "ev":
        return envido_value(dealt) >= GOOD_ENVIDO
    if sign == "no":
        return not card_signs(dealt) - {"af"} and envido_value(dealt) < GOOD_ENVIDO
    return sign in card_signs(dealt)


def all_consistent(signs: Collection[str], dealt: Sequence[Card]) -> bool:
    """Whether a partner who made every one of `signs` could hold `dealt` (`consistent`,
    with the cards' señas and envido reckoned once)."""
    held = card_signs(dealt)
    envido: int | None = None
    for sign in signs:
        if sign in ("ev", "no"):
            envido = envido_value(dealt) if envido is None else envido
            if sign == "ev":
                fits = envido >= GOOD_ENVIDO
            else:
                fits = not held - {"af"} and envido < GOOD_ENVIDO
        else:
            fits = sign in held
        if not fits:
            return False
    return True


def signs_to_show(dealt: Sequence[Card]) -> list[str]:
    """What a computer player tells its partner at the start of a hand: its best card (in the
    menu's order, strongest first) and a good envido; "nothing good" when it has neither."""
    held = card_signs(dealt)
    out = [s for s in SIGNS[:6] if s in held][:1]
    if envido_value(dealt) >= GOOD_ENVIDO:
        out.append("ev")
    return out or ["no"]


def _rank(shown: Collection[str], family: str) -> int:
    """How good the señas `shown` say a hand is for `family` ("envido" or "truco"): higher
    is better."""
    if family == "envido":
        return 1 if "ev" in shown else 0
    cards = [SIGNS.index(s) for s in shown if s in SIGNS[:6]]
    return len(SIGNS) - min(cards) if cards else 0


def answers_first(mine: Collection[str], partners: Collection[str], family: str) -> bool:
    """Two computer partners may both answer a chant: the one whose señas (each saw the
    other's) say the better hand for it answers; on a tie, the one asked (`mine`)."""
    return _rank(mine, family) >= _rank(partners, family)
