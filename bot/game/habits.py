"""What the table has seen of each player's habits over the match: how often they chant, want
and refuse, go to the mazo, and how often a chant of theirs was shown to be a bluff.

Everything here is public (the chants and answers everyone heard, the cards everyone saw played,
the envido values said aloud), so any seat may read it: a person at a real table remembers
that Beto wants every truco. Chants and answers are counted as they are heard, what they were
shown to be when the hand ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, Action, ActionKind

if TYPE_CHECKING:
    from bot.game.cards import Card

K = ActionKind
BLUFF_ENVIDO_BELOW = 25  # an envido chanted and then said at less than this was a bluff
BLUFF_TRUCO_BELOW = 10  # a truco chanted with no card of at least this (a 3) was a bluff


@dataclass(frozen=True, slots=True)
class Habits:
    truco_chants: int = 0  # truco, retruco or vale cuatro it chanted (raises included)
    truco_wanted: int = 0  # trucos it answered with quiero or a higher chant
    truco_refused: int = 0
    envido_chants: int = 0
    envido_wanted: int = 0
    envido_refused: int = 0
    mazos: int = 0  # times it went to the mazo before playing a card
    truco_shown: int = 0  # hands it chanted truco in and showed all its cards
    truco_bluffs: int = 0  # of those, hands with no card of BLUFF_TRUCO_BELOW or more
    envido_shown: int = 0  # hands it chanted envido in and said its value
    envido_bluffs: int = 0  # of those, values below BLUFF_ENVIDO_BELOW

    def to_list(self) -> list[int]:
        return [getattr(self, f.name) for f in fields(self)]

    @staticmethod
    def from_list(values: Sequence[int]) -> Habits:
        return Habits(*(int(v) for v in values))


def heard(habits: Habits, action: Action, answering: str | None, played_before: bool) -> Habits:
    """`habits` after one more action of theirs; `answering`: the family of the chant it
    answers ("truco", "envido", "flor") or None, as the table waited before it."""
    kind = action.kind
    if kind is K.MAZO:
        return replace(habits, mazos=habits.mazos + 1) if not played_before else habits
    if kind in TRUCO_CHANTS:
        wanted = habits.truco_wanted + (answering == "truco")
        return replace(habits, truco_chants=habits.truco_chants + 1, truco_wanted=wanted)
    if kind in ENVIDO_CHANTS:
        wanted = habits.envido_wanted + (answering == "envido")
        return replace(habits, envido_chants=habits.envido_chants + 1, envido_wanted=wanted)
    if kind in (K.QUIERO, K.NO_QUIERO) and answering in ("truco", "envido"):
        name = f"{answering}_{'wanted' if kind is K.QUIERO else 'refused'}"
        return replace(habits, **{name: getattr(habits, name) + 1})
    return habits


def shown(
    habits: Sequence[Habits],
    calls: Sequence[tuple[int, ActionKind]],
    rounds: Sequence[Sequence[tuple[int, Card]]],
    announced: Sequence[tuple[int, int]],
) -> tuple[Habits, ...]:
    """`habits` when a hand ends: what its chants were shown to be (the cards each seat
    played, round by round, and the values said aloud)."""
    envido = {s for s, kind in calls if kind in ENVIDO_CHANTS}
    truco = {s for s, kind in calls if kind in TRUCO_CHANTS}
    if not envido and not truco:
        return tuple(habits)
    values = dict(announced)
    out = list(habits)
    for seat in envido:
        if seat in values:
            h = out[seat]
            bluff = values[seat] < BLUFF_ENVIDO_BELOW
            out[seat] = replace(
                h, envido_shown=h.envido_shown + 1, envido_bluffs=h.envido_bluffs + bluff
            )
    for seat in truco:
        played = [c for cards in rounds for s, c in cards if s == seat]
        if len(played) == 3:
            h = out[seat]
            bluff = max(c.strength for c in played) < BLUFF_TRUCO_BELOW
            out[seat] = replace(
                h, truco_shown=h.truco_shown + 1, truco_bluffs=h.truco_bluffs + bluff
            )
    return tuple(out)
