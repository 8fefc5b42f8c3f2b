"""The public record of the hands played so far: what everybody at the table saw of each one.

A person at a real table remembers more than counts: that Beto wanted a truco with a four and a
five, that Carla chanted envido and then said 21. `PastHand` keeps what was public of a finished
hand (every chant, answer and card in order, the values said aloud, the cards shown at its end)
and nothing else: the cards nobody played stay unknown, as they are at the table. The match keeps
one per finished hand (`MatchState.past`), and every seat's `Observation` carries
them, so a player may learn how its rivals play from everything they showed.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.game.actions import Action
from bot.game.cards import Card


@dataclass(frozen=True, slots=True)
class PastHand:
    """What the table saw of one finished hand."""

    number: int
    players: int
    dealer: int
    start_scores: tuple[int, int]
    history: tuple[Action, ...]  # every action, in order: cards played, chants, answers
    announced: tuple[tuple[int, int], ...] = ()  # (seat, value): envido and flor said aloud
    son_buenas: tuple[tuple[int, int, bool], ...] = ()  # as `HandState.son_buenas`
    shown: tuple[tuple[int, tuple[Card, ...]], ...] = ()  # cards shown at the end (R19, R23)
    duel: int | None = None  # a pica-pica hand's duel (R39): one record a duel

    @property
    def mano(self) -> int:
        """The hand's mano (a duel's: its duel mano)."""
        return (self.dealer + 1 + (self.duel or 0)) % self.players

    def played(self, seat: int) -> list[Card]:
        """The cards `seat` played, in order."""
        return [a.card for a in self.history if a.seat == seat and a.card is not None]

    def known(self, seat: int) -> list[Card]:
        """Every card of `seat`'s deal the table saw: played, or shown at the end."""
        cards = self.played(seat)
        for who, shown in self.shown:
            if who == seat:
                cards.extend(c for c in shown if c not in cards)
        return cards
