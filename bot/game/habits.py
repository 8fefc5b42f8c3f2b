"""What the table has seen of each player's habits over the match: how often they chant, want
and refuse, go to the mazo, and how often a chant of theirs was shown to be a bluff.

Everything here is public (the chants and answers everyone heard, the cards everyone saw played,
the envido values said aloud), so any seat may read it: a person at a real table remembers
that Beto wants every truco. Chants and answers are counted as they are heard, what they were
shown to be when the hand ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from bot.game.actions import ENVIDO_CHANTS, TRUCO_CHANTS, Action, ActionKind

if TYPE_CHECKING:
    from bot.game.cards import Card

K = ActionKind
BLUFF_ENVIDO_BELOW = 25  # an envido chanted and then said at less than this was a bluff
BLUFF_TRUCO_BELOW = 10  # a truco chanted with no card of at least this (a 3) was a bluff


class Habits(NamedTuple):
    """Counts, one field each (a named tuple: the engine makes a new one at every chant it
    hears, and a tuple with one count moved is the cheapest value to make)."""

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

    def plus(self, first: int, second: int = -1, both: int = 1) -> Habits:
        """These counts with one more at index `first` and `both` (0 or 1) more at `second`."""
        values = list(self)
        values[first] += 1
        if second >= 0:
            values[second] += both
        return Habits._make(values)


_F = {name: index for index, name in enumerate(Habits._fields)}
_MAZOS, _TRUCO_CHANTS, _TRUCO_WANTED = _F["mazos"], _F["truco_chants"], _F["truco_wanted"]
_ENVIDO_CHANTS, _ENVIDO_WANTED = _F["envido_chants"], _F["envido_wanted"]
_ANSWERED = {
    ("truco", True): _TRUCO_WANTED,
    ("truco", False): _F["truco_refused"],
    ("envido", True): _ENVIDO_WANTED,
    ("envido", False): _F["envido_refused"],
}


def heard(habits: Habits, action: Action, answering: str | None, played_before: bool) -> Habits:
    """`habits` after one more action of theirs; `answering`: the family of the chant it
    answers ("truco", "envido", "flor") or None, as the table waited before it."""
    kind = action.kind
    if kind is K.MAZO:
        return habits.plus(_MAZOS) if not played_before else habits
    if kind in TRUCO_CHANTS:
        return habits.plus(_TRUCO_CHANTS, _TRUCO_WANTED, answering == "truco")
    if kind in ENVIDO_CHANTS:
        return habits.plus(_ENVIDO_CHANTS, _ENVIDO_WANTED, answering == "envido")
    if kind in (K.QUIERO, K.NO_QUIERO) and answering in ("truco", "envido"):
        return habits.plus(_ANSWERED[answering, kind is K.QUIERO])
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
            out[seat] = h.plus(_F["envido_shown"], _F["envido_bluffs"], bluff)
    for seat in truco:
        played = [c for cards in rounds for s, c in cards if s == seat]
        if len(played) == 3:
            h = out[seat]
            bluff = max(c.strength for c in played) < BLUFF_TRUCO_BELOW
            out[seat] = h.plus(_F["truco_shown"], _F["truco_bluffs"], bluff)
    return tuple(out)
