"""Señas (the rule sheet's signs between partners): what each one says about the cards, and
which ones a computer player shows its partner."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from bot.game.cards import Card, envido_value

# The codes of the señas menu, in its order.
SIGNS: tuple[str, ...] = ("ae", "ab", "s7", "t3", "t2", "af", "ev", "no")

GOOD_ENVIDO = 28  # "buen envido"


def _holds(cards: Iterable[Card], codes: set[str]) -> bool:
    return any(c.code in codes for c in cards)


def card_signs(cards: Sequence[Card]) -> set[str]:
    """Every card seña that is true of these cards."""
    out: set[str] = set()
    if _holds(cards, {"1e"}):
        out.add("ae")
    if _holds(cards, {"1b"}):
        out.add("ab")
    if _holds(cards, {"7e", "7o"}):
        out.add("s7")
    if any(c.number == 3 for c in cards):
        out.add("t3")
    if any(c.number == 2 for c in cards):
        out.add("t2")
    if _holds(cards, {"1c", "1o"}):
        out.add("af")
    return out


def consistent(sign: str, dealt: Sequence[Card]) -> bool:
    """Whether a partner who made `sign` could hold `dealt` (an honest partner)."""
    if sign == "ev":
        return envido_value(dealt) >= GOOD_ENVIDO
    if sign == "no":
        return not card_signs(dealt) - {"af"} and envido_value(dealt) < GOOD_ENVIDO
    return sign in card_signs(dealt)


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
